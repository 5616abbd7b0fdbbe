import { z } from 'zod';
import { FlightStatusUnavailable, type FlightQuery, type FlightReport, type FlightState, type FlightStatus } from '../../domain/flights/flight-status';
import type { OutboundExchange } from '../../domain/kernel/outbound-exchange';
import { requestId } from '../../shared/ids';
import { REDACTED } from '../../shared/redact';

/**
 * The flight-status provider over HTTP: the FlightStatus port (src/domain/flights/flight-status.ts) on the wire.
 * We define the provider's API; simulators/flights serves it for tests and local runs.
 *
 *   GET {FLIGHT_STATUS_URL}/flights/{number}?date=YYYY-MM-DD&arrival=CMB
 *   Accept: application/json
 *   Authorization: Bearer {FLIGHT_STATUS_KEY}          (only when a key is configured)
 *
 *   200 {
 *     "flight_number": "UL504", "date": "2026-12-01", "arrival_airport": "CMB",
 *     "status": "scheduled" | "delayed" | "landed" | "diverted" | "cancelled" | "unknown",
 *     "scheduled_arrival": RFC3339 | null, "estimated_arrival": RFC3339 | null, "actual_arrival": RFC3339 | null
 *   }
 *   404 the provider does not know the flight → null
 *   anything else (other statuses, redirects, timeout, connection failure, a body that is not the above)
 *     → FlightStatusUnavailable, whose message names the status code or the failure, never the key or the URL.
 *
 * - `{number}` is URL-encoded into the path; the query parameters are the FlightQuery's date and airport.
 * - The report's estimatedArrival is `actual_arrival ?? estimated_arrival ?? scheduled_arrival`, so a landed
 *   flight reports when it landed. A diverted or cancelled flight usually has neither, so it reports its scheduled
 *   time: read the status before the time.
 * - A status string we do not know maps to `unknown` (the provider may add states); any other field of the wrong
 *   type, a time that is not RFC 3339 with an offset, or an answer about another flight, date or airport is refused.
 *   Unknown extra fields are ignored.
 * - No retries and no redirects: the caller polls again later.
 */

export interface HttpFlightStatusOptions {
  /** FLIGHT_STATUS_URL: the provider's base URL (http or https; a path prefix is kept). */
  url: string;
  /** FLIGHT_STATUS_KEY: sent as a bearer token; no Authorization header without it. */
  key?: string;
  /** One lookup, connection to last byte of the body; default 5000. */
  timeoutMs?: number;
  fetch?: typeof globalThis.fetch;
  /**
   * Every lookup's exchange, whatever its outcome (answered, unknown flight, failed), for the audit log: the key is
   * redacted. A failure to record it fails the lookup.
   */
  onExchange?: (x: OutboundExchange) => Promise<void>;
}

export const DEFAULT_FLIGHT_STATUS_TIMEOUT_MS = 5_000;

const STATES = new Set<FlightState>(['unknown', 'scheduled', 'delayed', 'landed', 'diverted', 'cancelled']);

// RFC 3339 requires an offset (Z or ±hh:mm); a local time would be read in the server's zone, so it is refused.
const time = z.iso.datetime({ offset: true }).nullable();
const answer = z.object({
  flight_number: z.string().min(1),
  date: z.iso.date(),
  arrival_airport: z.string().min(1),
  status: z.string(),
  scheduled_arrival: time,
  estimated_arrival: time,
  actual_arrival: time,
});

export function createHttpFlightStatus(opts: HttpFlightStatusOptions): FlightStatus {
  validateOptions(opts);
  const base = opts.url.replace(/\/+$/, '');
  const timeoutMs = opts.timeoutMs ?? DEFAULT_FLIGHT_STATUS_TIMEOUT_MS;
  // Looked up per call when not injected, so an interceptor installed later (msw) still sees the request.
  const fetchImpl = opts.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (opts.key) headers.Authorization = `Bearer ${opts.key}`;

  return {
    async lookup(q: FlightQuery): Promise<FlightReport | null> {
      const query = new URLSearchParams({ date: q.date, arrival: q.airport });
      const url = `${base}/flights/${encodeURIComponent(q.number)}?${query.toString()}`;
      const started = new Date();
      let status: number | null = null;
      let text = '';
      let error: string | null = null;
      try {
        const signal = AbortSignal.timeout(timeoutMs);
        let res: Response;
        try {
          res = await fetchImpl(url, { method: 'GET', headers, signal, redirect: 'manual' });
          status = res.status;
          // Only a 200's body is read; any other is dropped unread, so a slow error body cannot hold the caller.
          if (res.status === 200) text = await res.text();
          else await res.body?.cancel().catch(() => undefined);
        } catch (err) {
          if (signal.aborted) throw unavailable(`timeout after ${timeoutMs} ms`);
          throw unavailable(`unreachable (${transportDetail(err)})`);
        }
        if (res.status === 404) return null;
        if (res.status !== 200) throw unavailable(`answered ${res.status}`);
        return toReport(q, parseAnswer(text));
      } catch (err) {
        error = err instanceof Error ? err.message : String(err);
        throw err;
      } finally {
        await opts.onExchange?.({
          requestId: requestId(),
          startedAt: started.toISOString(),
          method: 'GET',
          url,
          path: new URL(url).pathname + new URL(url).search,
          requestHeaders: { accept: 'application/json', ...(opts.key ? { authorization: `Bearer ${REDACTED}` } : {}) },
          requestBody: null,
          status,
          responseHeaders: {},
          responseBody: text ? safeJson(text) : null,
          durationMs: Date.now() - started.getTime(),
          error,
        });
      }
    },
  };
}

function validateOptions(o: HttpFlightStatusOptions): void {
  // The URL is configuration, not a secret, but it is not echoed either: someone may have put credentials in it.
  if (typeof o?.url !== 'string' || !/^https?:\/\//i.test(o.url) || !URL.canParse(o.url))
    throw new Error('createHttpFlightStatus: url (FLIGHT_STATUS_URL) must be an http(s) URL');
  if (o.timeoutMs !== undefined && !(Number.isFinite(o.timeoutMs) && o.timeoutMs > 0))
    throw new Error('createHttpFlightStatus: timeoutMs must be a positive number');
}

function parseAnswer(text: string): z.infer<typeof answer> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw unavailable('answered 200 with a body that is not JSON');
  }
  const parsed = answer.safeParse(json);
  if (!parsed.success) {
    // Field names only: the values are the provider's and are not repeated.
    const fields = [...new Set(parsed.error.issues.map((i) => i.path.join('.') || '(body)'))].join(', ');
    throw unavailable(`answered 200 with an invalid body (${fields})`);
  }
  return parsed.data;
}

const normalise = (s: string) => s.replace(/\s+/g, '').toUpperCase();

function toReport(q: FlightQuery, a: z.infer<typeof answer>): FlightReport {
  // An answer about another flight would move a driver to the wrong time: it is refused like any bad body.
  if (normalise(a.flight_number) !== normalise(q.number) || a.date !== q.date || normalise(a.arrival_airport) !== normalise(q.airport))
    throw unavailable('answered about another flight, date or airport');
  const at = (t: string | null) => (t === null ? null : new Date(t));
  const status = STATES.has(a.status as FlightState) ? (a.status as FlightState) : 'unknown';
  return {
    number: q.number,
    status,
    scheduledArrival: at(a.scheduled_arrival),
    estimatedArrival: at(a.actual_arrival ?? a.estimated_arrival ?? a.scheduled_arrival),
  };
}

/** The body as JSON when it is JSON, else its text (at most 4 KiB). */
function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text.slice(0, 4096);
  }
}

const unavailable = (what: string) => new FlightStatusUnavailable(`flight status provider ${what}`);

/** A system error code (ECONNREFUSED, ENOTFOUND…) when fetch gives one; never the request, its URL or headers. */
function transportDetail(err: unknown): string {
  const codeOf = (e: unknown) => (typeof e === 'object' && e !== null && 'code' in e && typeof e.code === 'string' ? e.code : undefined);
  return codeOf(err instanceof Error ? err.cause : undefined) ?? codeOf(err) ?? 'network error';
}
