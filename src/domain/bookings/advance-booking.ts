import type { Sql } from '../../data/database';
import { setDispatch, type BookingRow, type DriverSnapshot } from '../../data/repositories/bookings-repository';
import { AppError } from '../../shared/errors';
import { sandboxOnly } from '../quotes/sandbox';
import { recordBookingEvent } from '../webhooks/events';
import { bookingView } from './booking-view';
import type { Scope } from './booking-decision';
import { requireBooking } from './get-booking';

/** The states dispatch moves a booking to. */
export type DispatchState = 'driver_assigned' | 'completed' | 'no_show';

/** The driver a sandbox booking gets: fictitious, and saying so. */
export const SANDBOX_DRIVER = { name: 'Sandbox Driver (fictitious)', phone: '+94 70 000 0000', vehicle: 'Toyota Axio (white)', plate: 'SANDBOX-1' };

const NEXT: Record<string, DispatchState[]> = {
  confirmed: ['driver_assigned', 'completed', 'no_show'],
  driver_assigned: ['completed', 'no_show'],
};

/**
 * Sandbox test helper: moves a booking through the states production dispatch moves it through, with a fictitious
 * driver, so an integration can handle each. Asking for the state it is in returns it unchanged.
 */
export async function advanceSandboxBooking(tx: Sql, scope: Scope, bookingRef: string, to: DispatchState, now: Date) {
  sandboxOnly(scope.env);
  const row = await requireBooking(tx, scope, bookingRef, true);
  if (row.status === to) return bookingView(row);
  if (!NEXT[row.status]?.includes(to)) {
    throw new AppError('booking_conflict', `Booking ${row.bookingRef} is ${row.status.replace('_', ' ')} and cannot become ${to.replace('_', ' ')}.`, {
      reason: 'invalid_transition',
      booking_ref: row.bookingRef,
      status: row.status,
      to,
    });
  }
  return bookingView(await moveBooking(tx, row.bookingRef, to, to === 'driver_assigned' ? SANDBOX_DRIVER : null, now));
}

/**
 * The booking follows its dispatch (a driver assigned, then completed or no-show), and its partner hears of it:
 * the event of the new state is written in the same transaction. Production dispatch (src/domain/fleet) and the
 * sandbox helper above move a booking only through here.
 */
export async function moveBooking(tx: Sql, bookingRef: string, to: DispatchState, driver: DriverSnapshot | null, now: Date): Promise<BookingRow> {
  const moved = await setDispatch(tx, bookingRef, to, driver, now);
  await recordBookingEvent(tx, moved, now);
  return moved;
}
