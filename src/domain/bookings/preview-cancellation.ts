import type { Sql } from '../../data/database';
import { toDecimal } from '../kernel/money';
import { cancellationFeeAt, cancellationPolicy } from '../terms/cancellation-policy';
import type { Scope } from './booking-decision';
import { cannotCancel } from './cancel-booking';
import { requireBooking } from './get-booking';

/**
 * What cancelling a booking would cost now (GET /bookings/{booking_ref}/cancellation), without cancelling: the fee
 * the cancel would charge at this moment; for a cancelled booking, the fee it was charged; for one that can no
 * longer be cancelled, why.
 */
export async function previewCancellation(db: Sql, scope: Scope, bookingRef: string, now: Date) {
  const row = await requireBooking(db, scope, bookingRef);
  const freeUntil = cancellationPolicy(row.terms, row.pickupAt, row.amountMinor, row.currency).free_until;
  const answer = (cancellable: boolean, feeMinor: number, asOf: Date, reason?: 'cancelled' | 'completed' | 'no_show' | 'pickup_passed') => ({
    booking_ref: row.bookingRef,
    cancellable,
    ...(reason ? { reason } : {}),
    fee: toDecimal(feeMinor, row.currency),
    currency: row.currency,
    free_until: freeUntil,
    as_of: asOf.toISOString(),
  });
  if (row.status === 'cancelled') return answer(false, row.cancellationFeeMinor ?? 0, row.cancelledAt ?? now, 'cancelled');
  if (cannotCancel(row, now)) return answer(false, 0, now, row.status === 'completed' || row.status === 'no_show' ? row.status : 'pickup_passed');
  return answer(true, cancellationFeeAt(row.terms, row.pickupAt, row.amountMinor, now), now);
}
