import type { Check } from './check';
import { describeAnswer, nextMatching, retryable, sameRequest } from './traffic';

/** 4. No 4xx (other than the in-progress 409 and 429) is resent unchanged. */
export const noBlind4xxRetries: Check = {
  id: 'no_blind_4xx_retries',
  title: 'No 4xx other than in_progress or 429 is resent unchanged',
  texts: {
    pass: '{n} 4xx answer(s), none resent unchanged.',
    fail: '{n} 4xx answer(s) were resent unchanged: they need a change first (branch on error.code).',
    notSeen: 'No 4xx answers in the window.',
  },
  judge(rows, { pass, fail }) {
    rows.forEach((r, i) => {
      if (r.status === null || r.status < 400 || r.status >= 500 || retryable(r)) return;
      // A new Idempotency-Key does not change the request: the same body gets the same refusal.
      const again = nextMatching(rows, i, (x) => sameRequest(x, r));
      if (again) fail(again, `resent unchanged after ${r.requestId} (${describeAnswer(r)})`);
      else pass(r, `${describeAnswer(r)} was not resent unchanged`);
    });
  },
};
