import type { MarketplaceNotice, NoticeBody, TrackPoint } from '../../domain/marketplace/notices';
import { BRANDS } from '../../domain/marketplace/listing';
import { formatLocal } from '../../domain/kernel/sri-lanka-time';
import type {
  ChangeConfirmationRequest,
  ConfirmOrderRequest,
  DeclineOrderRequest,
  DriverInfoRequest,
  DriverLocationRequest,
  NoShowRequest,
} from './http-marketplace-client';

type NoticeOf<K extends MarketplaceNotice['kind']> = Extract<MarketplaceNotice, { kind: K }>;

const confirmOrder = (n: NoticeOf<'confirm_order'>): ConfirmOrderRequest => ({ order_id: n.orderId, supplier_order_id: n.supplierOrderId });

const declineOrder = (n: NoticeOf<'decline_order'>): DeclineOrderRequest => ({ order_id: n.orderId, reason: n.reason, comment: n.comment });

const confirmChange = (n: NoticeOf<'change_confirmation'>): ChangeConfirmationRequest =>
  n.accepted ? { order_id: n.orderId, accepted: true } : { order_id: n.orderId, accepted: false, comment: n.comment };

/** The vehicle's brand goes with our id for it, when it is one of our brands. */
function driverInfo(n: NoticeOf<'driver_info'>): DriverInfoRequest {
  const { brand, model, plate, colour } = n.vehicle;
  const listed = BRANDS.find((b) => b.name === brand);
  return {
    order_id: n.orderId,
    driver: { name: n.driver.name, phone: n.driver.phone },
    vehicle: { ...(listed ? { brand_id: listed.id } : {}), brand, model, plate, color: colour },
  };
}

/** Positions in the marketplace's local time. */
const point = (p: TrackPoint) => ({ lat: p.lat, lon: p.lon, at: formatLocal(p.at) });

const driverLocation = (n: NoticeOf<'driver_location'>): DriverLocationRequest => ({ order_id: n.orderId, ...point(n.position) });

const noShow = (n: NoticeOf<'no_show'>): NoShowRequest => ({ order_id: n.orderId, evidence: { gps_track: n.track.map(point), comment: n.comment } });

/**
 * The body the marketplace receives for each notice (contracts/marketplace-outbound.yaml): what the outbox stores
 * and the worker sends as it is.
 */
export const marketplaceNoticeBody: NoticeBody = (n) => {
  switch (n.kind) {
    case 'confirm_order':
      return confirmOrder(n);
    case 'decline_order':
      return declineOrder(n);
    case 'change_confirmation':
      return confirmChange(n);
    case 'driver_info':
      return driverInfo(n);
    case 'driver_location':
      return driverLocation(n);
    case 'no_show':
      return noShow(n);
    default:
      throw new Error(`no marketplace body for notice ${String(n satisfies never)}`);
  }
};
