import type { Knex } from 'knex';
import { AppError, notFound } from '../../shared/errors';
import { bookingView, type BookingRow } from './booking-view';
import type { Scope } from './place-booking';

async function findBooking(trx: Knex.Transaction, scope: Scope, bookingRef: string, lock = false): Promise<BookingRow> {
  const q = trx('bookings').where({ ...scope, bookingRef: bookingRef.toUpperCase() }).first();
  const row = (await (lock ? q.forUpdate() : q)) as BookingRow | undefined;
  if (!row) throw notFound(`No booking ${bookingRef} on this account in ${scope.env}.`, { booking_ref: bookingRef });
  return row;
}

export async function getBooking(trx: Knex.Transaction, scope: Scope, bookingRef: string) {
  return bookingView(await findBooking(trx, scope, bookingRef));
}

/**
 * Cancels a booking and its job. Repeating it returns the same record. A booking whose pickup time has passed
 * can no longer be cancelled. The row lock makes concurrent cancels agree on one cancelled_at.
 */
export async function cancelBooking(trx: Knex.Transaction, scope: Scope, bookingRef: string, now: Date) {
  const row = await findBooking(trx, scope, bookingRef, true);
  if (row.status === 'cancelled') return bookingView(row);
  if (new Date(row.pickupAt).getTime() <= now.getTime()) {
    throw new AppError('booking_conflict', 409, `Booking ${row.bookingRef} cannot be cancelled: its pickup time has passed.`, {
      reason: 'pickup_passed',
      booking_ref: row.bookingRef,
      pickup_datetime: row.pickupDatetime,
    });
  }
  await trx('bookings').where({ bookingRef: row.bookingRef }).update({ status: 'cancelled', cancelledAt: now });
  await trx('jobs').where({ source: 'partner_booking', sourceRef: row.bookingRef }).update({ status: 'cancelled', updatedAt: now });
  return bookingView({ ...row, status: 'cancelled', cancelledAt: now });
}
