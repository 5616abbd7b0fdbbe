/**
 * The load generator of the HTTP benchmark: autocannon in a child process of its own, so that building requests
 * and parsing responses does not run on the event loop of the service being measured (it still shares the CPU
 * cores). Forked by bench/http.bench.ts; receives one `LoadSpec` over IPC, runs a warm-up and then the measured
 * run, answers with one `LoadOutcome`, and exits. Not meant to be run by hand.
 */

/** What the response to every request must look like for it to count as expected. */
export interface Expectation {
  status: number;
  /** A substring the body must contain (cheap: no JSON parse on the load generator). */
  bodyIncludes?: string;
  /** A response header that must be present with this value (name compared case-insensitively). */
  header?: { name: string; value: string };
}

/** Fresh bookings: every request books its own offer from the pool, with its own reference and Idempotency-Key. */
export interface BookingFeed {
  /** [quote_id, offer_id], each used at most once. */
  pool: Array<[string, string]>;
  /** The booking body without quote_id, offer_id and partner_reference. */
  template: Record<string, unknown>;
  /** Prefix of partner_reference and Idempotency-Key; request n uses `${prefix}-${n}`. */
  prefix: string;
}

export interface LoadSpec {
  /** Origin only, e.g. http://127.0.0.1:40123 */
  origin: string;
  method: 'POST' | 'GET';
  path: string;
  headers: Record<string, string>;
  /** A fixed body (every scenario but fresh bookings). */
  body?: string;
  bookings?: BookingFeed;
  connections: number;
  warmupSeconds: number;
  seconds: number;
  expect: Expectation;
}

export interface RunStats {
  /** Measured wall time of the run, s (autocannon's). */
  durationSec: number;
  /** Responses received. */
  responses: number;
  /** Requests written (includes the ones still in flight when the run stopped). */
  sent: number;
  statusCounts: Record<string, number>;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** Responses matching the expectation / not matching it. */
  expected: number;
  unexpected: number;
  /** One unexpected response, for the report. */
  sampleUnexpected?: { status: number; body: string };
}

export interface LoadOutcome {
  warmup: RunStats;
  measured: RunStats & {
    /** Client-side latency, request written → response complete, exact percentiles over every response, ms. */
    latencyMs: { p50: number; p90: number; p99: number; max: number; mean: number };
    /** autocannon's own (integer-ms histogram) percentiles, for reference. */
    autocannonLatencyMs: { p50: number; p99: number };
  };
  /** Pool entries handed out (fresh bookings only). */
  poolUsed?: number;
  /** Requests that found the pool empty and re-sent an used offer (should be 0: runs are capped at the pool size). */
  poolExhausted?: number;
}

// ---- autocannon has no type declarations: the part of its API used here. ----
interface AcRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  setupRequest?: (req: AcRequest, context: Record<string, unknown>) => AcRequest | null;
  onResponse?: (status: number, body: string, context: Record<string, unknown>, headers: Record<string, string | string[]>) => void;
}
interface AcOptions {
  url: string;
  connections: number;
  duration: number;
  pipelining?: number;
  timeout?: number;
  maxOverallRequests?: number;
  requests: AcRequest[];
}
interface AcResult {
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats: Record<string, { count: number }>;
  latency: { p50: number; p99: number };
  requests: { total: number; sent: number };
}
interface AcInstance extends PromiseLike<AcResult> {
  on(event: 'response', fn: (client: unknown, statusCode: number, resBytes: number, responseTimeMs: number) => void): this;
  stop(): void;
}
type Autocannon = (opts: AcOptions) => AcInstance;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon') as Autocannon;

function percentile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1];
}

const round2 = (x: number) => Math.round(x * 100) / 100;

async function run(spec: LoadSpec): Promise<LoadOutcome> {
  let next = 0;
  let exhausted = 0;
  const feed = spec.bookings;
  const headerName = spec.expect.header?.name.toLowerCase();

  // Per-run counters, reset between warm-up and measured run.
  let expected = 0;
  let unexpected = 0;
  let sampleUnexpected: RunStats['sampleUnexpected'];

  const request: AcRequest = {
    method: spec.method,
    path: spec.path,
    headers: spec.headers,
    body: spec.body,
    onResponse(status, body, _context, headers) {
      let ok = status === spec.expect.status;
      if (ok && spec.expect.bodyIncludes !== undefined) ok = body.includes(spec.expect.bodyIncludes);
      if (ok && spec.expect.header && headerName) {
        let value: string | string[] | undefined;
        for (const k of Object.keys(headers)) if (k.toLowerCase() === headerName) value = headers[k];
        ok = value === spec.expect.header.value;
      }
      if (ok) expected += 1;
      else {
        unexpected += 1;
        sampleUnexpected ??= { status, body: body.slice(0, 300) };
      }
    },
  };
  if (feed) {
    request.setupRequest = (req) => {
      let i = next++;
      if (i >= feed.pool.length) {
        exhausted += 1;
        i = feed.pool.length - 1;
      }
      const [quoteId, offerId] = feed.pool[i];
      const ref = `${feed.prefix}-${i}`;
      req.body = JSON.stringify({ quote_id: quoteId, offer_id: offerId, partner_reference: ref, ...feed.template });
      req.headers = { ...req.headers, 'Idempotency-Key': ref };
      return req;
    };
  }

  const once = async (seconds: number, measure: boolean) => {
    expected = 0;
    unexpected = 0;
    sampleUnexpected = undefined;
    const latencies: number[] = [];
    // A fresh-booking run never asks for more offers than are left (autocannon splits the cap over the connections).
    const remaining = feed ? feed.pool.length - next : undefined;
    if (remaining !== undefined && remaining < spec.connections) throw new Error(`offer pool exhausted before the ${measure ? 'measured run' : 'warm-up'}`);
    const instance = autocannon({
      url: `${spec.origin}${spec.path}`,
      connections: spec.connections,
      duration: seconds,
      pipelining: 1,
      timeout: 30,
      ...(remaining !== undefined ? { maxOverallRequests: remaining } : {}),
      requests: [request],
    });
    if (measure) instance.on('response', (_c, _status, _bytes, ms) => latencies.push(ms));
    const r = await instance;
    const statusCounts = Object.fromEntries(Object.entries(r.statusCodeStats).map(([k, v]) => [k, v.count]));
    const stats: RunStats = {
      durationSec: r.duration,
      responses: Object.values(statusCounts).reduce((a, b) => a + b, 0),
      sent: r.requests.sent,
      statusCounts,
      non2xx: r.non2xx,
      errors: r.errors,
      timeouts: r.timeouts,
      expected,
      unexpected,
      ...(sampleUnexpected ? { sampleUnexpected } : {}),
    };
    return { stats, latencies, r };
  };

  const warm = await once(spec.warmupSeconds, false);
  const main = await once(spec.seconds, true);
  const sorted = Float64Array.from(main.latencies).sort();
  const mean = sorted.length ? sorted.reduce((a, b) => a + b, 0) / sorted.length : 0;
  return {
    warmup: warm.stats,
    measured: {
      ...main.stats,
      latencyMs: {
        p50: round2(percentile(sorted, 0.5)),
        p90: round2(percentile(sorted, 0.9)),
        p99: round2(percentile(sorted, 0.99)),
        max: round2(sorted.length ? sorted[sorted.length - 1] : 0),
        mean: round2(mean),
      },
      autocannonLatencyMs: { p50: main.r.latency.p50, p99: main.r.latency.p99 },
    },
    ...(feed ? { poolUsed: Math.min(next, feed.pool.length), poolExhausted: exhausted } : {}),
  };
}

if (require.main === module) {
  if (!process.send) {
    console.error('bench/load-generator is started by bench/http.bench.ts (it needs an IPC channel).');
    process.exit(2);
  }
  process.once('message', (msg: { type: 'run'; spec: LoadSpec }) => {
    run(msg.spec).then(
      (outcome) => process.send!({ type: 'result', outcome }, () => process.disconnect()),
      (err: Error) => process.send!({ type: 'error', message: err.stack ?? String(err) }, () => process.disconnect()),
    );
  });
}
