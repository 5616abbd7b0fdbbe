/** What the checks ask of a recorded request, its answer, and the requests after it. */
import { jsonFingerprint } from '../../../shared/canonical-json';
import type { TrafficRequest, WebhookAttempt } from './report-types';

/** A retry is the same request again within this long of the answer it retries. */
const RETRY_WINDOW_MS = 10 * 60_000;

export const pathOf = (r: TrafficRequest) => r.path.split('?')[0].replace(/\/+$/, '');

export const header = (h: Record<string, unknown>, name: string): string | undefined => {
  for (const [k, v] of Object.entries(h))
    if (k.toLowerCase() === name) return v === undefined || v === null ? undefined : typeof v === 'string' ? v : JSON.stringify(v);
  return undefined;
};

export const errorOf = (r: TrafficRequest): { code?: string; details?: Record<string, unknown> } =>
  (r.responseBody as { error?: { code?: string; details?: Record<string, unknown> } } | null)?.error ?? {};

/**
 * A request of a certification run (`npm run certify`, simulators/partner/certify.ts), by the User-Agent it sends,
 * `lanka-certify/<version>`. Its mistakes are deliberate (a partner_reference reused, simulated faults answered, a
 * webhook delivery refused with 500), so the report does not grade it as the partner's integration.
 */
export const fromCertification = (r: TrafficRequest) => /^lanka-certify\//i.test(header(r.requestHeaders, 'user-agent') ?? '');

/**
 * The webhook endpoints a certification run registered or used (`POST /webhook_endpoints` answered 201, and
 * `/webhook_endpoints/{endpoint_id}…`): deliveries to them reached the run's own receiver, not the partner's.
 */
export function certificationEndpoints(rows: TrafficRequest[]): Set<string> {
  const ids = new Set<string>();
  for (const r of rows) {
    if (!fromCertification(r)) continue;
    const path = pathOf(r);
    const named = /^\/transfers\/v1\/webhook_endpoints\/([^/]+)/.exec(path)?.[1];
    if (named) ids.add(decodeURIComponent(named));
    else if (r.method === 'POST' && path === '/transfers/v1/webhook_endpoints' && r.status === 201) {
      const id = field(r.responseBody, 'id');
      if (id) ids.add(id);
    }
  }
  return ids;
}

export const answeredAt = (r: TrafficRequest) => r.at.getTime() + r.durationMs;
export const isBooking = (r: TrafficRequest) => r.method === 'POST' && pathOf(r) === '/transfers/v1/bookings';
export const isQuote = (r: TrafficRequest) => r.method === 'POST' && pathOf(r) === '/transfers/v1/quotes';
/** The same method on the same path (the query aside). */
export const sameOperation = (a: TrafficRequest, b: TrafficRequest) => a.method === b.method && pathOf(a) === pathOf(b);

const fingerprints = new WeakMap<TrafficRequest, string>();
/** The request body's canonical fingerprint (computed once per request). */
export function bodyPrint(r: TrafficRequest): string {
  let fp = fingerprints.get(r);
  if (fp === undefined) fingerprints.set(r, (fp = jsonFingerprint(r.requestBody ?? null)));
  return fp;
}

export const sameRequest = (a: TrafficRequest, b: TrafficRequest) => a.method === b.method && a.path === b.path && bodyPrint(a) === bodyPrint(b);

export const field = (body: unknown, name: string): string | undefined => {
  const v = body && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
  return typeof v === 'string' ? v : undefined;
};

/** Answers a client should retry unchanged, after Retry-After: 503, 429, and the in-progress 409. */
export const retryable = (r: TrafficRequest) =>
  r.status === 503 || r.status === 429 || (r.status === 409 && errorOf(r).code === 'idempotency_conflict' && errorOf(r).details?.reason === 'in_progress');

/** `POST /transfers/v1/bookings → 409 idempotency_conflict`: the request and how it was answered. */
export const describeAnswer = (r: TrafficRequest) => `${r.method} ${pathOf(r)} → ${r.status ?? 'no answer'}${errorOf(r).code ? ` ${errorOf(r).code}` : ''}`;

/** The next request after index i that is the "same operation" by `same` within the retry window, if any. */
export function nextMatching(rows: TrafficRequest[], i: number, same: (r: TrafficRequest) => boolean): TrafficRequest | undefined {
  const limit = answeredAt(rows[i]) + RETRY_WINDOW_MS;
  for (let j = i + 1; j < rows.length && rows[j].at.getTime() <= limit; j++) if (same(rows[j])) return rows[j];
  return undefined;
}

/** A webhook delivery attempt its endpoint answered 2xx (within the timeout: a later answer is a timeout error). */
export const answered2xx = (a: WebhookAttempt) => a.status !== null && a.status >= 200 && a.status < 300;

/** `booking.confirmed evt_… (booking GM32DFCW), attempt 2, to https://…` */
export const describeDelivery = (a: WebhookAttempt) =>
  `${a.eventType ?? 'event'}${a.eventId ? ` ${a.eventId}` : ''}${a.bookingRef ? ` (booking ${a.bookingRef})` : ''}, attempt ${a.attempt ?? '?'}, to ${a.url}`;
