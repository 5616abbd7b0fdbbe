import type { Check } from './check';
import { header, isBooking } from './traffic';

/** 1. Every POST /bookings carries an Idempotency-Key. */
export const idempotencyKeyOnBookings: Check = {
  id: 'idempotency_key_on_bookings',
  title: 'Every POST /bookings carries an Idempotency-Key',
  texts: {
    pass: 'All {n} booking requests carried an Idempotency-Key.',
    fail: '{n} booking request(s) had no Idempotency-Key.',
    notSeen: 'No booking requests in the window.',
  },
  judge(rows, { pass, fail }) {
    for (const r of rows.filter(isBooking)) {
      if (header(r.requestHeaders, 'idempotency-key')) pass(r, 'Idempotency-Key sent');
      else fail(r, 'POST /bookings without an Idempotency-Key: a retry after a timeout could book twice');
    }
  },
};
