import type { Tx } from '../../data/database';
import * as flights from '../../data/repositories/flights-repository';
import type { BookingRow } from '../../data/repositories/booking-record';
import { sandboxOnly } from '../quotes/sandbox';
import { requireBooking } from '../bookings/get-booking';
import { bookingView } from '../bookings/booking-view';
import { flightDesignator } from '../bookings/booking-decision';
import { tellPartner } from './follow-flight';

export interface SandboxFlightInput {
  flight_number: string;
  date: string;
  delay_minutes?: number;
  status?: flights.SandboxFlight['status'];
}

/**
 * Sandbox test helper: sets what the sandbox's simulated flight-status provider answers for a flight on a Sri Lanka
 * date (a sandbox flight is scheduled to land at the booking's pickup), and applies it at once to the partner's open
 * sandbox bookings with that flight on that date, each with its `booking.flight_updated`. Live keys: not found.
 */
export async function setSandboxFlight(tx: Tx, scope: { partnerId: string; env: 'sandbox' | 'production' }, input: SandboxFlightInput, now: Date) {
  sandboxOnly(scope.env);
  const delay = input.delay_minutes ?? 0;
  const f: flights.SandboxFlight = {
    flightNumber: flightDesignator(input.flight_number),
    date: input.date,
    delayMinutes: delay,
    status: input.status ?? (delay > 0 ? 'delayed' : 'scheduled'),
  };
  await flights.saveSandboxFlight(tx, scope.partnerId, f, now);
  const refs = await flights.sandboxBookingsWithFlight(tx, scope.partnerId, f.flightNumber, f.date);
  const bookings: BookingRow[] = [];
  for (const ref of refs) {
    const b = await requireBooking(tx, scope, ref);
    const trouble = f.status === 'cancelled' || f.status === 'diverted';
    const estimated = trouble ? null : new Date(b.pickupAt.getTime() + delay * 60_000);
    const flight = {
      number: f.flightNumber,
      status: f.status,
      scheduled_arrival: b.pickupAt.toISOString(),
      estimated_arrival: estimated?.toISOString() ?? null,
    };
    await tellPartner(tx, ref, flight, estimated && delay !== 0 ? estimated : null, now);
    bookings.push(await requireBooking(tx, scope, ref));
  }
  return { flight_number: f.flightNumber, date: f.date, delay_minutes: f.delayMinutes, status: f.status, bookings: bookings.map(bookingView) };
}
