import type { Sql } from '../../data/database';
import { setDispatch, type BookingRow, type DriverSnapshot, type Position } from '../../data/repositories/bookings-repository';
import { AppError } from '../../shared/errors';
import type { DispatchState } from '../kernel/booking-states';
import { sandboxOnly } from '../quotes/sandbox';
import { recordBookingEvent } from './booking-events';
import { bookingView } from './booking-view';
import type { Scope } from './booking-decision';
import { requireBooking } from './get-booking';

/** The driver a sandbox booking gets: fictitious, and saying so. */
export const SANDBOX_DRIVER = {
  name: 'Sandbox Driver (fictitious)',
  phone: '+94 70 000 0000',
  vehicle: 'Toyota Axio (white)',
  plate: 'SANDBOX-1',
  colour: 'White',
};

/** The order of a ride; a no-show can end it until the passenger is on board. */
const ORDER: readonly string[] = ['confirmed', 'driver_assigned', 'driver_en_route', 'driver_arrived', 'passenger_on_board', 'completed'];
const NO_SHOW_FROM: ReadonlySet<string> = new Set(['confirmed', 'driver_assigned', 'driver_en_route', 'driver_arrived']);

export const mayAdvance = (from: string, to: DispatchState) =>
  to === 'no_show' ? NO_SHOW_FROM.has(from) : ORDER.includes(from) && ORDER.indexOf(to) > ORDER.indexOf(from);

/** Where the fictitious driver is: about 5 km north of the pickup while on the way, at the pickup from arrival on. */
function sandboxPosition(b: BookingRow, to: DispatchState, now: Date): Position | null {
  if (to === 'driver_en_route') return { lat: b.pickup.lat + 0.045, lon: b.pickup.lon, at: now.toISOString() };
  if (to === 'driver_arrived' || to === 'passenger_on_board') return { lat: b.pickup.lat, lon: b.pickup.lon, at: now.toISOString() };
  return null;
}

/**
 * Sandbox test helper: moves a booking to a later state of the ride (skipping steps if asked), with a fictitious
 * driver and position, so an integration can handle each. Asking for the state it is in returns it unchanged.
 */
export async function advanceSandboxBooking(tx: Sql, scope: Scope, bookingRef: string, to: DispatchState, now: Date) {
  sandboxOnly(scope.env);
  const row = await requireBooking(tx, scope, bookingRef, true);
  if (row.status === to) return bookingView(row);
  if (!mayAdvance(row.status, to)) {
    throw new AppError('booking_conflict', `Booking ${row.bookingRef} is ${row.status.replaceAll('_', ' ')} and cannot become ${to.replaceAll('_', ' ')}.`, {
      reason: 'invalid_transition',
      booking_ref: row.bookingRef,
      status: row.status,
      to,
    });
  }
  const driver = row.driver ? null : to === 'no_show' || to === 'completed' ? null : SANDBOX_DRIVER;
  return bookingView(await moveBooking(tx, row.bookingRef, to, { driver, location: sandboxPosition(row, to, now) }, now));
}

/**
 * The booking follows its dispatch and ride (a driver assigned, the ride's steps, then completed or no-show), and
 * its partner hears of it: the event of the new state is written in the same transaction. Production dispatch
 * (src/domain/fleet), the ride (src/domain/ride) and the sandbox helper above move a booking only through here.
 */
export async function moveBooking(
  tx: Sql,
  bookingRef: string,
  to: DispatchState,
  change: { driver?: DriverSnapshot | null; location?: Position | null },
  now: Date,
): Promise<BookingRow> {
  const moved = await setDispatch(tx, bookingRef, to, change, now);
  await recordBookingEvent(tx, moved, now);
  return moved;
}
