import type { Check, Verdicts } from './check';
import type { TrafficRequest } from './report-types';
import { answeredAt, header, nextMatching, sameOperation } from './traffic';

/** Clock granularity between our log of the answer and of the retry. */
const RETRY_AFTER_SLACK_MS = 100;

const throttled = (r: TrafficRequest) => r.status === 503 || r.status === 429;

/** 3. 503 and 429 are retried only after Retry-After, and with backoff. */
export const retryAfterHonoured: Check = {
  id: 'retry_after_honoured',
  title: '503 and 429 are retried only after Retry-After, with backoff',
  texts: {
    pass: '{n} retr(ies) after 503/429 waited at least Retry-After.',
    fail: '{n} retr(ies) came before Retry-After, or without backoff.',
    notSeen: 'No 503 or 429 was retried: provoke one with Sandbox-Simulate: service_unavailable or rate_limited.',
  },
  judge(rows, verdicts) {
    rows.forEach((r, i) => {
      if (!throttled(r)) return;
      const again = nextMatching(rows, i, (x) => sameOperation(x, r));
      if (again) judgeRetry(rows, i, again, verdicts);
    });
  },
};

/** The retry `again` of the throttled rows[i]: after its Retry-After, and waiting longer than before it. */
function judgeRetry(rows: TrafficRequest[], i: number, again: TrafficRequest, { pass, fail }: Verdicts): void {
  const r = rows[i];
  const retryAfterMs = Number(header(r.responseHeaders, 'retry-after') ?? 0) * 1000;
  const waited = again.at.getTime() - answeredAt(r);
  if (waited + RETRY_AFTER_SLACK_MS < retryAfterMs) {
    fail(again, `retried ${waited} ms after ${r.requestId} (${r.status}), before its Retry-After of ${retryAfterMs / 1000} s`);
    return;
  }
  // Backoff: in a run of retryable answers to one operation, the waits must grow, not stay flat.
  const previous = rows
    .slice(0, i)
    .reverse()
    .find((x) => sameOperation(x, r));
  if (previous && throttled(previous)) {
    const before = r.at.getTime() - answeredAt(previous);
    if (waited + RETRY_AFTER_SLACK_MS < before) {
      fail(again, `waited ${waited} ms after the second ${r.status} in a row, less than the ${before} ms before it: no backoff`);
      return;
    }
  }
  pass(again, `retried ${waited} ms after ${r.requestId} (${r.status}, Retry-After ${retryAfterMs / 1000} s)`);
}
