import type { Check } from './check';
import { field, isBooking, isQuote, nextMatching } from './traffic';

/** 5. After 410 offer_expired the partner quotes again, rather than retrying the expired offer. */
export const expiredOffersRequoted: Check = {
  id: 'expired_offers_requoted',
  title: 'After 410 offer_expired, quote again',
  texts: {
    pass: 'Every 410 ({n}) was followed by a new quote.',
    fail: '{n} expired offer(s) were retried or not re-quoted.',
    notSeen: 'No 410 in the window: provoke one with POST /test_helpers/offers/{offer_id}/expire.',
  },
  judge(rows, { pass, fail }) {
    rows.forEach((r, i) => {
      if (!(isBooking(r) && r.status === 410)) return;
      const offer = field(r.requestBody, 'offer_id');
      const next = nextMatching(rows, i, (x) => isQuote(x) || (isBooking(x) && field(x.requestBody, 'offer_id') === offer));
      if (!next) fail(r, `410 offer_expired for offer ${offer}, and no new quote followed`);
      else if (isQuote(next)) pass(next, `quoted again after ${r.requestId} (410 offer_expired)`);
      else fail(next, `booked the expired offer ${offer} again after ${r.requestId} (410)`);
    });
  },
};
