import type { JobPlace, JobRecord } from '../../data/repositories/jobs-repository';
import { routeBetween } from '../geo/route';
import type { ResolvedPlace } from '../geo/types';
import { journeyType } from '../pricing/price-journey';
import { jobEndsAt } from '../fleet/job-window';
import type { FleetVehicle } from '../fleet/fleet';
import { meetingInstructions } from '../bookings/meeting-instructions';
import { formatLocal } from './local-time';
import type { MarketplaceOrder } from './orders';
import { pickupAtOf, seatsNeeded } from './supplier';

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
    adults: seatsNeeded(o),
    luggage: o.luggage ?? 0,
    passenger: { name: o.customer.name, phone: o.customer.phone ?? null },
    flightNumber: o.flight_number ?? null,
    meetingInstructions: meetingInstructions({
      journeyType: type,
      pickupName: pickup.name,
      dropoffName: dropoff.name,
      iata: serve.pickup.iata,
      passengerName: o.customer.name,
      flightNumber: o.flight_number ?? null,
      pickupDatetime: formatLocal(pickupAt).replace(' ', 'T') + '+05:30',
    }),
  };
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
