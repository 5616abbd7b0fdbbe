import type { Sql } from '../../data/database';
import { AppError } from '../../shared/errors';
import type { Scope } from '../bookings/booking-decision';
import { bookingView } from '../bookings/booking-view';
import { requireBooking } from '../bookings/get-booking';
import { eraseBooking } from './erase';

/**
 * A partner erases its traveller's personal data (POST /transfers/v1/bookings/{booking_ref}/erase):
 * 1. check: the booking is theirs, in this environment; its ride is over or it is cancelled (the driver needs the
 *    details until then: `booking_conflict`, `ride_pending`);
 * 2. erase (see erase.ts), in the request's transaction;
 * 3. answer the booking as it now reads: `erased_at` set, the personal fields null. Again: the same answer.
 */
export async function forgetBooking(tx: Sql, scope: Scope, bookingRef: string, now: Date) {
  const row = await requireBooking(tx, scope, bookingRef, true);
  const erasure = await eraseBooking(tx, row.bookingRef, now);
  if (erasure.kind === 'ride_pending') {
    throw new AppError(
      'booking_conflict',
      `Booking ${row.bookingRef} is ${row.status.replace(/_/g, ' ')}: the driver needs the traveller's details until the ride is over. Cancel it first, or erase it after the ride.`,
      { reason: 'ride_pending', booking_ref: row.bookingRef, status: row.status },
    );
  }
  const erased = await requireBooking(tx, scope, row.bookingRef);
  return { booking: bookingView(erased), subjects: erasure.kind === 'erased' ? erasure.subjects : [] };
}
