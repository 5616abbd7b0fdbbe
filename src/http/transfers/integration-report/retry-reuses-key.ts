import type { Check } from './check';
import { describeAnswer, errorOf, field, header, isBooking, nextMatching, retryable, sameRequest } from './traffic';

/** 2. A retried booking (the same offer again after no answer or a retryable one) reuses its key and body. */
export const retryReusesKey: Check = {
  id: 'retry_reuses_key',
  title: 'A retried booking reuses its Idempotency-Key and body',
  texts: {
    pass: '{n} booking retr(ies) reused key and body.',
    fail: '{n} booking retr(ies) changed the key or the body: a retry with a new key can book twice.',
    notSeen: 'No booking was retried: provoke one with Sandbox-Simulate: service_unavailable (or idempotency_in_progress) on POST /bookings.',
  },
  judge(rows, { pass, fail }) {
    rows.forEach((first, i) => {
      if (!isBooking(first)) return;
      if (first.status === 409 && errorOf(first).details?.reason === 'body_mismatch') {
        fail(first, 'the same Idempotency-Key was sent with a different body (409 body_mismatch)');
        return;
      }
      // Only an attempt whose outcome the client could not know (retryable answer, or a 5xx) is retried.
      if (!(retryable(first) || (first.status ?? 500) >= 500)) return;
      const offer = field(first.requestBody, 'offer_id');
      const again = nextMatching(rows, i, (r) => isBooking(r) && field(r.requestBody, 'offer_id') === offer);
      if (!again) return;
      const key = header(first.requestHeaders, 'idempotency-key');
      const againKey = header(again.requestHeaders, 'idempotency-key');
      if (!key || againKey !== key) fail(again, `retry of ${first.requestId} (${describeAnswer(first)}) with ${againKey ? 'another' : 'no'} Idempotency-Key`);
      else if (!sameRequest(first, again)) fail(again, `retry of ${first.requestId} with the same key but a different body`);
      else pass(again, `retry of ${first.requestId} (${describeAnswer(first)}) with the same key and body → ${again.status}`);
    });
  },
};
