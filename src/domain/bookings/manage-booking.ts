import type { Sql } from '../../data/database';
import { findBooking, markCancelled, type BookingRow } from '../../data/repositories/bookings-repository';
import { cancelJob } from '../../data/repositories/jobs-repository';
import { AppError, notFound } from '../../shared/errors';
import { bookingView } from './booking-view';
import type { Scope } from './place-booking';

async function requireBooking(db: Sql, scope: Scope, bookingRef: string, lock = false): Promise<BookingRow> {
  const row = await findBooking(db, scope, bookingRef.toUpperCase(), lock);
  if (!row) throw notFound(`No booking ${bookingRef} on this account in ${scope.env}.`, { booking_ref: bookingRef });
  return row;
}

export async function getBooking(db: Sql, scope: Scope, bookingRef: string) {
  return bookingView(await requireBooking(db, scope, bookingRef));
}

/**
 * Cancels a booking and its job. Repeating it returns the same record. A booking whose pickup time has passed
 * can no longer be cancelled. The row lock makes concurrent cancels agree on one cancelled_at.
 */
export async function cancelBooking(tx: Sql, scope: Scope, bookingRef: string, now: Date) {
  const row = await requireBooking(tx, scope, bookingRef, true);
  if (row.status === 'cancelled') return bookingView(row);
  if (row.pickupAt.getTime() <= now.getTime()) {
    throw new AppError('booking_conflict', 409, `Booking ${row.bookingRef} cannot be cancelled: its pickup time has passed.`, {
      reason: 'pickup_passed',
      booking_ref: row.bookingRef,
      pickup_datetime: row.pickupDatetime,
    });
  }
  await markCancelled(tx, row.bookingRef, now);
  await cancelJob(tx, 'partner_booking', row.bookingRef, now);
  return bookingView({ ...row, status: 'cancelled', cancelledAt: now });
}
