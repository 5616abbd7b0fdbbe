import type { Sql } from '../../data/database';
import { findBooking, markCancelled, setDispatch, type BookingRow, type DriverSnapshot } from '../../data/repositories/bookings-repository';
import { sandboxOnly } from '../quotes/sandbox';
import { cancelJob } from '../../data/repositories/jobs-repository';
import { AppError, notFound } from '../../shared/errors';
import { bookingView } from './booking-view';
import { recordBookingEvent } from '../webhooks/events';
import type { Scope } from './booking-decision';

async function requireBooking(db: Sql, scope: Scope, bookingRef: string, lock = false): Promise<BookingRow> {
  const row = await findBooking(db, scope, bookingRef.toUpperCase(), lock);
  if (!row) throw notFound(`No booking ${bookingRef} on this account in ${scope.env}.`, { booking_ref: bookingRef });
  return row;
}

export async function getBooking(db: Sql, scope: Scope, bookingRef: string) {
  return bookingView(await requireBooking(db, scope, bookingRef));
}

/**
 * Cancels a booking and its job, with its `booking.cancelled` event. Repeating it returns the same record (and
 * writes no second event). A booking whose pickup time has passed can no longer be cancelled. The row lock makes
 * concurrent cancels agree on one cancelled_at.
 */
export async function cancelBooking(tx: Sql, scope: Scope, bookingRef: string, now: Date) {
  const row = await requireBooking(tx, scope, bookingRef, true);
  if (row.status === 'cancelled') return bookingView(row);
  if (row.status === 'completed' || row.status === 'no_show') {
    throw new AppError('booking_conflict', `Booking ${row.bookingRef} is ${row.status.replace('_', ' ')} and can no longer be cancelled.`, {
      reason: 'finished',
      booking_ref: row.bookingRef,
      status: row.status,
    });
  }
  if (row.pickupAt.getTime() <= now.getTime()) {
    throw new AppError('booking_conflict', `Booking ${row.bookingRef} cannot be cancelled: its pickup time has passed.`, {
      reason: 'pickup_passed',
      booking_ref: row.bookingRef,
      pickup_datetime: row.pickupDatetime,
    });
  }
  const eventSeq = await markCancelled(tx, row.bookingRef, now);
  await cancelJob(tx, 'partner_booking', row.bookingRef, now);
  const cancelled: BookingRow = { ...row, status: 'cancelled', cancelledAt: now, eventSeq };
  await recordBookingEvent(tx, cancelled, now);
  return bookingView(cancelled);
}

/**
 * The booking follows its dispatch (a driver assigned, then completed or no-show), and its partner hears of it:
 * the event of the new state is written in the same transaction.
 */
export async function moveBooking(tx: Sql, bookingRef: string, to: 'driver_assigned' | 'completed' | 'no_show', driver: DriverSnapshot | null, now: Date): Promise<BookingRow> {
  const moved = await setDispatch(tx, bookingRef, to, driver, now);
  await recordBookingEvent(tx, moved, now);
  return moved;
}

/** The driver a sandbox booking gets: fictitious, and saying so. */
export const SANDBOX_DRIVER = { name: 'Sandbox Driver (fictitious)', phone: '+94 70 000 0000', vehicle: 'Toyota Axio (white)', plate: 'SANDBOX-1' };

const NEXT: Record<string, Array<'driver_assigned' | 'completed' | 'no_show'>> = {
  confirmed: ['driver_assigned', 'completed', 'no_show'],
  driver_assigned: ['completed', 'no_show'],
};

/**
 * Sandbox test helper: moves a booking through the states production dispatch moves it through, with a fictitious
 * driver, so an integration can handle each. Asking for the state it is in returns it unchanged.
 */
export async function advanceSandboxBooking(tx: Sql, scope: Scope, bookingRef: string, to: 'driver_assigned' | 'completed' | 'no_show', now: Date) {
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
