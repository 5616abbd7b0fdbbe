import type { Sql } from '../../data/database';
import { partnerTraffic, type TrafficRow } from '../../data/repositories/audit-repository';
import { jsonFingerprint } from '../../shared/canonical-json';
import { sandboxOnly } from '../quotes/sandbox';

/**
 * A partner's integration graded from its own sandbox traffic (the audit log): not what our bundled client does, but
 * what theirs did. Each requirement looks for the situations it is about in the requests, in order; a requirement
 * whose situation never arose is `not_seen` (the partner can provoke it with Sandbox-Simulate or the test helpers).
 * Pure: the rows come from the audit repository (partnerTraffic).
 */
/** One request as the audit log keeps it (redacted; header names in lower case). */
export type TrafficRequest = Omit<TrafficRow, 'id'>;

export type RequirementId =
  | 'idempotency_key_on_bookings'
  | 'retry_reuses_key'
  | 'retry_after_honoured'
  | 'no_blind_4xx_retries'
  | 'expired_offers_requoted'
  | 'declines_handled'
  | 'bookings_read_back';

export type RequirementStatus = 'pass' | 'fail' | 'not_seen';

export interface Evidence {
  request_id: string;
  at: string;
  detail: string;
}

export interface Requirement {
  id: RequirementId;
  title: string;
  status: RequirementStatus;
  detail: string;
  evidence: Evidence[];
}

export interface IntegrationReport {
  window: { from: string; to: string };
  requests_seen: number;
  summary: Record<RequirementStatus, number>;
  requirements: Requirement[];
}

/** Evidence kept per requirement (the newest of them). */
const MAX_EVIDENCE = 10;
/** A retry is the same request again within this long of the answer it retries. */
const RETRY_WINDOW_MS = 10 * 60_000;
/** A declined quote sent this many times within DECLINE_LOOP_MS, unchanged, is a loop. */
const DECLINE_LOOP_COUNT = 3;
const DECLINE_LOOP_MS = 60_000;
/** Clock granularity between our log of the answer and of the retry. */
const RETRY_AFTER_SLACK_MS = 100;

/** Requests that are not the integration's own calls: the reference console's, and the documents. */
function graded(r: TrafficRequest): boolean {
  if (r.requestHeaders['x-reference-console'] !== undefined) return false;
  const p = pathOf(r);
  return !/^\/transfers\/v1\/(openapi\.(json|yaml)|postman\.json|test_helpers\/integration_report)$/.test(p);
}

const pathOf = (r: TrafficRequest) => r.path.split('?')[0].replace(/\/+$/, '');
const header = (h: Record<string, unknown>, name: string): string | undefined => {
  for (const [k, v] of Object.entries(h)) if (k.toLowerCase() === name) return v === undefined || v === null ? undefined : String(v);
  return undefined;
};
const errorOf = (r: TrafficRequest): { code?: string; details?: Record<string, unknown> } =>
  ((r.responseBody as { error?: { code?: string; details?: Record<string, unknown> } } | null)?.error ?? {});
const answeredAt = (r: TrafficRequest) => r.at.getTime() + r.durationMs;
const isBooking = (r: TrafficRequest) => r.method === 'POST' && pathOf(r) === '/transfers/v1/bookings';
const isQuote = (r: TrafficRequest) => r.method === 'POST' && pathOf(r) === '/transfers/v1/quotes';
const fingerprints = new WeakMap<TrafficRequest, string>();
/** The request body's canonical fingerprint (computed once per request). */
function bodyPrint(r: TrafficRequest): string {
  let fp = fingerprints.get(r);
  if (fp === undefined) fingerprints.set(r, (fp = jsonFingerprint(r.requestBody ?? null)));
  return fp;
}
const sameRequest = (a: TrafficRequest, b: TrafficRequest) => a.method === b.method && a.path === b.path && bodyPrint(a) === bodyPrint(b);
const field = (body: unknown, name: string): string | undefined => {
  const v = body && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
  return typeof v === 'string' ? v : undefined;
};
/** Answers a client should retry unchanged, after Retry-After: 503, 429, and the in-progress 409. */
const retryable = (r: TrafficRequest) =>
  r.status === 503 || r.status === 429 || (r.status === 409 && errorOf(r).code === 'idempotency_conflict' && errorOf(r).details?.reason === 'in_progress');
const ev = (r: TrafficRequest, detail: string): Evidence => ({ request_id: r.requestId, at: r.at.toISOString(), detail });
const describe = (r: TrafficRequest) => `${r.method} ${pathOf(r)} → ${r.status ?? 'no answer'}${errorOf(r).code ? ` ${errorOf(r).code}` : ''}`;

/** The next request after index i that is the "same operation" by `same` within the retry window, if any. */
function nextMatching(rows: TrafficRequest[], i: number, same: (r: TrafficRequest) => boolean): TrafficRequest | undefined {
  const limit = answeredAt(rows[i]) + RETRY_WINDOW_MS;
  for (let j = i + 1; j < rows.length && rows[j].at.getTime() <= limit; j++) if (same(rows[j])) return rows[j];
  return undefined;
}

function requirement(id: RequirementId, title: string, findings: { failures: Evidence[]; passes: Evidence[] }, texts: { pass: string; fail: string; notSeen: string }): Requirement {
  const { failures, passes } = findings;
  const status: RequirementStatus = failures.length ? 'fail' : passes.length ? 'pass' : 'not_seen';
  const evidence = (failures.length ? failures : passes).slice(-MAX_EVIDENCE);
  const detail = status === 'fail' ? texts.fail.replace('{n}', String(failures.length)) : status === 'pass' ? texts.pass.replace('{n}', String(passes.length)) : texts.notSeen;
  return { id, title, status, detail, evidence };
}

/** How far back a report reads by default, and how many requests at most (the latest). */
export const DEFAULT_WINDOW_MS = 7 * 24 * 3600_000;
export const MAX_REQUESTS = 5_000;

/** The report for a partner's sandbox traffic since `since` (default: 7 days ago). Sandbox only. */
export async function integrationReport(db: Sql, scope: { partnerId: string; env: 'sandbox' | 'production' }, since: Date | undefined, now: Date): Promise<IntegrationReport> {
  sandboxOnly(scope.env);
  const from = since ?? new Date(now.getTime() - DEFAULT_WINDOW_MS);
  const rows = await partnerTraffic(db, scope.partnerId, scope.env, from, MAX_REQUESTS);
  return gradeIntegration(rows, { from, to: now });
}

/** Grades the requests (oldest first). */
export function gradeIntegration(all: TrafficRequest[], window: { from: Date; to: Date }): IntegrationReport {
  const rows = all.filter(graded);
  const bookings = rows.filter(isBooking);
  const requirements: Requirement[] = [];

  // 1. Every POST /bookings carries an Idempotency-Key.
  {
    const failures: Evidence[] = [];
    const passes: Evidence[] = [];
    for (const r of bookings) {
      if (header(r.requestHeaders, 'idempotency-key')) passes.push(ev(r, 'Idempotency-Key sent'));
      else failures.push(ev(r, 'POST /bookings without an Idempotency-Key: a retry after a timeout could book twice'));
    }
    requirements.push(
      requirement('idempotency_key_on_bookings', 'Every POST /bookings carries an Idempotency-Key', { failures, passes }, {
        pass: 'All {n} booking requests carried an Idempotency-Key.',
        fail: '{n} booking request(s) had no Idempotency-Key.',
        notSeen: 'No booking requests in the window.',
      }),
    );
  }

  // 2. A retried booking (the same offer again after no answer or a retryable one) reuses its key and body.
  {
    const failures: Evidence[] = [];
    const passes: Evidence[] = [];
    for (let i = 0; i < rows.length; i++) {
      const first = rows[i];
      if (!isBooking(first)) continue;
      const offer = field(first.requestBody, 'offer_id');
      const key = header(first.requestHeaders, 'idempotency-key');
      if (first.status === 409 && errorOf(first).details?.reason === 'body_mismatch') {
        failures.push(ev(first, 'the same Idempotency-Key was sent with a different body (409 body_mismatch)'));
        continue;
      }
      // Only an attempt whose outcome the client could not know (retryable answer, or a 5xx) is retried.
      if (!(retryable(first) || (first.status ?? 500) >= 500)) continue;
      const again = nextMatching(rows, i, (r) => isBooking(r) && field(r.requestBody, 'offer_id') === offer);
      if (!again) continue;
      const againKey = header(again.requestHeaders, 'idempotency-key');
      if (!key || againKey !== key) failures.push(ev(again, `retry of ${first.requestId} (${describe(first)}) with ${againKey ? 'another' : 'no'} Idempotency-Key`));
      else if (!sameRequest(first, again)) failures.push(ev(again, `retry of ${first.requestId} with the same key but a different body`));
      else passes.push(ev(again, `retry of ${first.requestId} (${describe(first)}) with the same key and body → ${again.status}`));
    }
    requirements.push(
      requirement('retry_reuses_key', 'A retried booking reuses its Idempotency-Key and body', { failures, passes }, {
        pass: '{n} booking retr(ies) reused key and body.',
        fail: '{n} booking retr(ies) changed the key or the body: a retry with a new key can book twice.',
        notSeen: 'No booking was retried: provoke one with Sandbox-Simulate: service_unavailable (or idempotency_in_progress) on POST /bookings.',
      }),
    );
  }

  // 3. 503 and 429 (and the in-progress 409) are retried only after Retry-After, and with backoff.
  {
    const failures: Evidence[] = [];
    const passes: Evidence[] = [];
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i];
      if (!(r.status === 503 || r.status === 429)) continue;
      const again = nextMatching(rows, i, (x) => x.method === r.method && pathOf(x) === pathOf(r));
      if (!again) continue;
      const retryAfterMs = Number(header(r.responseHeaders, 'retry-after') ?? 0) * 1000;
      const waited = again.at.getTime() - answeredAt(r);
      if (waited + RETRY_AFTER_SLACK_MS < retryAfterMs) {
        failures.push(ev(again, `retried ${waited} ms after ${r.requestId} (${r.status}), before its Retry-After of ${retryAfterMs / 1000} s`));
        continue;
      }
      // Backoff: in a run of retryable answers to one operation, the waits must grow, not stay flat.
      const previous = rows.slice(0, i).reverse().find((x) => x.method === r.method && pathOf(x) === pathOf(r));
      if (previous && (previous.status === 503 || previous.status === 429)) {
        const before = r.at.getTime() - answeredAt(previous);
        if (waited + RETRY_AFTER_SLACK_MS < before) {
          failures.push(ev(again, `waited ${waited} ms after the second ${r.status} in a row, less than the ${before} ms before it: no backoff`));
          continue;
        }
      }
      passes.push(ev(again, `retried ${waited} ms after ${r.requestId} (${r.status}, Retry-After ${retryAfterMs / 1000} s)`));
    }
    requirements.push(
      requirement('retry_after_honoured', '503 and 429 are retried only after Retry-After, with backoff', { failures, passes }, {
        pass: '{n} retr(ies) after 503/429 waited at least Retry-After.',
        fail: '{n} retr(ies) came before Retry-After, or without backoff.',
        notSeen: 'No 503 or 429 was retried: provoke one with Sandbox-Simulate: service_unavailable or rate_limited.',
      }),
    );
  }

  // 4. No 4xx (other than the in-progress 409 and 429) is resent unchanged.
  {
    const failures: Evidence[] = [];
    const passes: Evidence[] = [];
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i];
      if (r.status === null || r.status < 400 || r.status >= 500 || retryable(r)) continue;
      // A new Idempotency-Key does not change the request: the same body gets the same refusal.
      const again = nextMatching(rows, i, (x) => sameRequest(x, r));
      if (again) failures.push(ev(again, `resent unchanged after ${r.requestId} (${describe(r)})`));
      else passes.push(ev(r, `${describe(r)} was not resent unchanged`));
    }
    requirements.push(
      requirement('no_blind_4xx_retries', 'No 4xx other than in_progress or 429 is resent unchanged', { failures, passes }, {
        pass: '{n} 4xx answer(s), none resent unchanged.',
        fail: '{n} 4xx answer(s) were resent unchanged: they need a change first (branch on error.code).',
        notSeen: 'No 4xx answers in the window.',
      }),
    );
  }

  // 5. After 410 offer_expired the partner quotes again, rather than retrying the expired offer.
  {
    const failures: Evidence[] = [];
    const passes: Evidence[] = [];
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i];
      if (!(isBooking(r) && r.status === 410)) continue;
      const offer = field(r.requestBody, 'offer_id');
      const next = nextMatching(rows, i, (x) => isQuote(x) || (isBooking(x) && field(x.requestBody, 'offer_id') === offer));
      if (!next) failures.push(ev(r, `410 offer_expired for offer ${offer}, and no new quote followed`));
      else if (isQuote(next)) passes.push(ev(next, `quoted again after ${r.requestId} (410 offer_expired)`));
      else failures.push(ev(next, `booked the expired offer ${offer} again after ${r.requestId} (410)`));
    }
    requirements.push(
      requirement('expired_offers_requoted', 'After 410 offer_expired, quote again', { failures, passes }, {
        pass: 'Every 410 ({n}) was followed by a new quote.',
        fail: '{n} expired offer(s) were retried or not re-quoted.',
        notSeen: 'No 410 in the window: provoke one with POST /test_helpers/offers/{offer_id}/expire.',
      }),
    );
  }

  // 6. A declined quote is not re-sent unchanged in a tight loop.
  {
    const failures: Evidence[] = [];
    const passes: Evidence[] = [];
    const declined = rows.filter((r) => isQuote(r) && r.status === 200 && (r.responseBody as { declined?: unknown } | null)?.declined);
    const seen = new Set<string>();
    for (const r of declined) {
      const fp = bodyPrint(r);
      const reason = ((r.responseBody as { declined: { reason?: string } }).declined.reason ?? 'declined') as string;
      const burst = declined.filter((x) => bodyPrint(x) === fp && x.at >= r.at && x.at.getTime() - r.at.getTime() <= DECLINE_LOOP_MS);
      if (burst.length >= DECLINE_LOOP_COUNT) {
        if (!seen.has(fp)) failures.push(ev(burst[burst.length - 1], `the same declined quote (${reason}) sent ${burst.length} times within ${DECLINE_LOOP_MS / 1000} s`));
        seen.add(fp);
      } else if (!seen.has(fp)) passes.push(ev(r, `declined ${reason}, handled`));
    }
    requirements.push(
      requirement('declines_handled', 'Declines are answers: no tight loops re-sending a declined quote', { failures, passes }, {
        pass: '{n} declined quote(s), none re-sent in a loop.',
        fail: '{n} declined quote(s) were re-sent unchanged in a loop: read declined.reason and hint, change the request.',
        notSeen: 'No declined quotes in the window: ask for a pickup under 24 hours ahead to see short_notice.',
      }),
    );
  }

  // 7. Bookings made are read back (GET /bookings/{ref}).
  {
    const failures: Evidence[] = [];
    const passes: Evidence[] = [];
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i];
      if (!(isBooking(r) && r.status === 201)) continue;
      const ref = field(r.responseBody, 'booking_ref');
      if (!ref) continue;
      const read = rows.slice(i + 1).find((x) => x.method === 'GET' && pathOf(x) === `/transfers/v1/bookings/${ref}`);
      if (read) passes.push(ev(read, `booking ${ref} read back`));
      else failures.push(ev(r, `booking ${ref} was never read back with GET /bookings/${ref}`));
    }
    requirements.push(
      requirement('bookings_read_back', 'Bookings are read back with GET /bookings/{booking_ref}', { failures, passes }, {
        pass: 'All {n} new booking(s) were read back.',
        fail: '{n} booking(s) were never read back: read a booking to learn its status and driver.',
        notSeen: 'No booking was made in the window.',
      }),
    );
  }

  const count = (s: RequirementStatus) => requirements.filter((r) => r.status === s).length;
  return {
    window: { from: window.from.toISOString(), to: window.to.toISOString() },
    requests_seen: all.length,
    summary: { pass: count('pass'), fail: count('fail'), not_seen: count('not_seen') },
    requirements,
  };
}
