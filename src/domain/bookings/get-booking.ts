import type { Sql } from '../../data/database';
import { findBooking, type BookingRow } from '../../data/repositories/bookings-repository';
import { notFound } from '../../shared/errors';
import { bookingView } from './booking-view';
import type { Scope } from './booking-decision';

/** A partner's booking as they see it (GET /transfers/v1/bookings/{booking_ref}), in the environment they call. */
export async function getBooking(db: Sql, scope: Scope, bookingRef: string) {
  return bookingView(await requireBooking(db, scope, bookingRef));
}

/**
 * The booking of this partner and environment (the reference in any case), else not_found: another partner's
 * booking, or one of the other environment, is not there for them. `lock` holds its row until commit.
 */
export async function requireBooking(db: Sql, scope: Scope, bookingRef: string, lock = false): Promise<BookingRow> {
  const row = await findBooking(db, scope, bookingRef.toUpperCase(), lock);
  if (!row) throw notFound(`No booking ${bookingRef} on this account in ${scope.env}.`, { booking_ref: bookingRef });
  return row;
}
