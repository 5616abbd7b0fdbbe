import type { Sql } from '../../data/database';
import { markCancelled, type BookingRow } from '../../data/repositories/bookings-repository';
import { cancelJob } from '../../data/repositories/jobs-repository';
import { AppError } from '../../shared/errors';
import { cancellationFeeAt } from '../terms/cancellation-policy';
import { recordBookingEvent } from './booking-events';
import { bookingView } from './booking-view';
import type { Scope } from './booking-decision';
import { requireBooking } from './get-booking';

/**
 * Cancels a booking and its job, with its `booking.cancelled` event, at the fee its cancellation policy names for
 * this moment (the terms it was sold under). Repeating it returns the same record and the same fee (and writes no
 * second event). A booking finished, or whose pickup time has passed, can no longer be cancelled. The row lock makes
 * concurrent cancels agree on one cancelled_at and one fee.
 */
export async function cancelBooking(tx: Sql, scope: Scope, bookingRef: string, now: Date) {
  const row = await requireBooking(tx, scope, bookingRef, true);
  if (row.status === 'cancelled') return bookingView(row);
  const refusal = cannotCancel(row, now);
  if (refusal) throw refusal;

  const fee = cancellationFeeAt(row.terms, row.pickupAt, row.amountMinor, now);
  const eventSeq = await markCancelled(tx, row.bookingRef, now, fee);
  await cancelJob(tx, 'partner_booking', row.bookingRef, now);
  const cancelled: BookingRow = { ...row, status: 'cancelled', cancelledAt: now, cancellationFeeMinor: fee, eventSeq };
  await recordBookingEvent(tx, cancelled, now);
  return bookingView(cancelled);
}

/** Why a booking not cancelled yet can no longer be: it is finished, or its pickup time has passed. */
export function cannotCancel(row: BookingRow, now: Date): AppError | undefined {
  if (row.status === 'completed' || row.status === 'no_show') {
    return new AppError('booking_conflict', `Booking ${row.bookingRef} is ${row.status.replace('_', ' ')} and can no longer be cancelled.`, {
      reason: 'finished',
      booking_ref: row.bookingRef,
      status: row.status,
    });
  }
  if (row.pickupAt.getTime() <= now.getTime()) {
    return new AppError('booking_conflict', `Booking ${row.bookingRef} cannot be cancelled: its pickup time has passed.`, {
      reason: 'pickup_passed',
      booking_ref: row.bookingRef,
      pickup_datetime: row.pickupDatetime,
    });
  }
  return undefined;
}
