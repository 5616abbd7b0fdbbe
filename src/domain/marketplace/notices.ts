import type { Sql } from '../../data/database';
import type { operations } from '../../generated/marketplace-outbound';
import { enqueueLatest, enqueueOutbound } from '../outbox/outbox';

/** The reasons the marketplace accepts when we decline an order (contracts/marketplace-outbound.yaml declineOrder). */
export type OrderDeclineReason = operations['declineOrder']['requestBody']['content']['application/json']['reason'];

export interface TrackPoint {
  lat: number;
  lon: number;
  at: Date;
}

/**
 * What we owe the marketplace about an order, as the domain sees it. The outbox stores, and the worker sends, the
 * wire body a NoticeBody makes of it (src/adapters/marketplace/notice-bodies.ts).
 */
export type MarketplaceNotice =
  | { kind: 'confirm_order'; orderId: string; supplierOrderId: string }
  | { kind: 'decline_order'; orderId: string; reason: OrderDeclineReason; comment: string }
  | { kind: 'change_confirmation'; orderId: string; accepted: true }
  | { kind: 'change_confirmation'; orderId: string; accepted: false; comment: string }
  | { kind: 'driver_info'; orderId: string; driver: { name: string; phone: string }; vehicle: { brand: string; model: string; plate: string; colour: string } }
  | { kind: 'driver_location'; orderId: string; position: TrackPoint }
  | { kind: 'no_show'; orderId: string; track: readonly TrackPoint[]; comment: string };

/** The port that turns a notice into the body the marketplace receives (its adapter implements it). */
export type NoticeBody = (notice: MarketplaceNotice) => Record<string, unknown>;

interface Delivery {
  /** A second notice with the same key is not sent again (see enqueueOutbound). */
  dedupeKey: string;
  maxAttempts?: number;
}

/** Owes the marketplace a notice, in the caller's transaction. */
export async function notify(tx: Sql, body: NoticeBody, notice: MarketplaceNotice, delivery: Delivery, now: Date): Promise<void> {
  await enqueueOutbound(tx, { kind: notice.kind, orderId: notice.orderId, payload: body(notice), ...delivery }, now);
}

/** Like notify, but a notice not yet sent under the same key takes this one's place (the latest position wins). */
export async function notifyLatest(tx: Sql, body: NoticeBody, notice: MarketplaceNotice, delivery: Delivery, now: Date): Promise<void> {
  await enqueueLatest(tx, { kind: notice.kind, orderId: notice.orderId, payload: body(notice), ...delivery }, now);
}
