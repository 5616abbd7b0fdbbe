import type { Check } from './check';
import { bodyPrint, isQuote } from './traffic';

/** A declined quote sent this many times within DECLINE_LOOP_MS, unchanged, is a loop. */
const DECLINE_LOOP_COUNT = 3;
const DECLINE_LOOP_MS = 60_000;

/** 6. A declined quote is not re-sent unchanged in a tight loop. */
export const declinesHandled: Check = {
  id: 'declines_handled',
  title: 'Declines are answers: no tight loops re-sending a declined quote',
  texts: {
    pass: '{n} declined quote(s), none re-sent in a loop.',
    fail: '{n} declined quote(s) were re-sent unchanged in a loop: read declined.reason and hint, change the request.',
    notSeen: 'No declined quotes in the window: ask for a pickup under 24 hours ahead to see short_notice.',
  },
  judge(rows, { pass, fail }) {
    const declined = rows.filter((r) => isQuote(r) && r.status === 200 && (r.responseBody as { declined?: unknown } | null)?.declined);
    // Each looping body is reported once.
    const seen = new Set<string>();
    for (const r of declined) {
      const fp = bodyPrint(r);
      const reason = (r.responseBody as { declined: { reason?: string } }).declined.reason ?? 'declined';
      const burst = declined.filter((x) => bodyPrint(x) === fp && x.at >= r.at && x.at.getTime() - r.at.getTime() <= DECLINE_LOOP_MS);
      if (burst.length >= DECLINE_LOOP_COUNT) {
        if (!seen.has(fp)) fail(burst[burst.length - 1], `the same declined quote (${reason}) sent ${burst.length} times within ${DECLINE_LOOP_MS / 1000} s`);
        seen.add(fp);
      } else if (!seen.has(fp)) pass(r, `declined ${reason}, handled`);
    }
  },
};
