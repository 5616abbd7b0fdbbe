import type { JobPlace, JobRecord } from '../../data/repositories/jobs-repository';
import { routeBetween } from '../geo/route';
import type { ResolvedPlace } from '../geo/types';
import { journeyType } from '../pricing/price-journey';
import { jobEndsAt } from '../kernel/job-window';
import type { FleetVehicle } from '../kernel/fleet';
import { meetingInstructions } from '../bookings/meeting-instructions';
import { formatLocalWithOffset } from '../kernel/sri-lanka-time';
import type { MarketplaceOrder } from './orders';
import { pickupAtOf } from './supplier';
import type { ExtraCode, SeatCounts } from '../kernel/seats';

/** How we serve an order: the vehicle, the located places and the drive time between them. */
export interface Served {
  vehicle: FleetVehicle;
  pickup: ResolvedPlace;
  dropoff: ResolvedPlace;
  durationMin: number;
}

/** The order as a job on the shared schedule: one mapping for creation and changes. */
export function orderJob(o: MarketplaceOrder, serve: Served): JobRecord {
  const pickupAt = pickupAtOf(o);
  const type = journeyType(serve.pickup, serve.dropoff);
  const pickup = place(serve.pickup, o.from);
  const dropoff = place(serve.dropoff, o.to);
  return {
    source: 'marketplace_order',
    sourceRef: o.order_id,
    fleetCode: serve.vehicle.code,
    pickupAt,
    endsAt: jobEndsAt(pickupAt, serve.durationMin, type),
    durationMin: serve.durationMin,
    pickup,
    dropoff,
    adults: o.adults,
    children: (o.children ?? 0) + (o.infants ?? 0),
    luggage: o.luggage ?? 0,
    seats: orderSeats(o),
    passenger: { name: o.customer.name, phone: o.customer.phone ?? null },
    flightNumber: o.flight_number ?? null,
    notes: o.comment?.trim() || null,
    meetingInstructions: meetingInstructions({
      journeyType: type,
      pickupName: pickup.name,
      dropoffName: dropoff.name,
      iata: serve.pickup.iata,
      passengerName: o.customer.name,
      flightNumber: o.flight_number ?? null,
      pickupDatetime: formatLocalWithOffset(pickupAt),
      seats: orderSeats(o),
    }),
  };
}

/** The marketplace's seat codes, in ours (its other extras, such as skis, are not seats). */
function seatKind(code: string): ExtraCode | undefined {
  switch (code) {
    case 'baby_seat':
      return 'infant_seat';
    case 'child_seat':
      return 'child_seat';
    case 'booster':
      return 'booster_seat';
    default:
      return undefined;
  }
}

function orderSeats(o: MarketplaceOrder): SeatCounts {
  const seats: SeatCounts = {};
  for (const e of o.extras ?? []) {
    const kind = seatKind(e.code);
    if (kind) seats[kind] = (seats[kind] ?? 0) + e.qty;
  }
  return seats;
}

/** The drive time between two located places (the route engine the quotes use). */
export const driveMin = (pickup: ResolvedPlace, dropoff: ResolvedPlace) => routeBetween(pickup, dropoff).duration_min;

const place = (p: ResolvedPlace, given: { name?: string }): JobPlace => ({
  name: given.name?.trim() || p.name,
  resolved_name: p.name,
  ...(p.iata ? { iata: p.iata } : {}),
  lat: p.lat,
  lon: p.lon,
});
