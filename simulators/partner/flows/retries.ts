import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPartnerClient, retrying, simulatingFirst, type RetryInfo, type RetryPolicy, type SimulatedFault } from '../client';
import { flowRecorder, type Check, type Flow, type FlowContext } from './flow';
import { bookingRequest } from './journeys';
import { freshOffer } from './shared';

const FAKE_KEY = 'svc_sk_test_closedport000_0000000000000000000000000000000000000000';
const BASE_DELAY_MS = 100;
/** How long the client waits for an answer in the slow-answer check; the sandbox holds `slow` answers 10 s. */
export const SLOW_CHECK_TIMEOUT_MS = 3_000;

type Attempt = Parameters<Parameters<typeof simulatingFirst>[2]>[0];

/**
 * A retrying client whose first `times` requests carry `Sandbox-Simulate: fault`: the deployment itself answers them
 * with the fault, and every attempt is kept as evidence.
 */
function faulty(ctx: FlowContext, c: Check, fault: SimulatedFault, times: number, extra: { timeoutMs?: number } = {}) {
  const attempts: Attempt[] = [];
  const retries: RetryInfo[] = [];
  const fetchFn = simulatingFirst(
    fault,
    times,
    (a) => {
      attempts.push(a);
      c.note({
        label: `attempt ${attempts.length}${a.simulated ? ` (Sandbox-Simulate: ${a.simulated})` : ''}`,
        method: a.method,
        path: a.path,
        status: a.status,
        request_id: a.requestId,
        ...(a.error ? { note: a.error } : {}),
      });
    },
    ctx.fetch,
  );
  const policy: RetryPolicy = { baseDelayMs: BASE_DELAY_MS, maxAttempts: 4, maxDelayMs: 5_000, ...ctx.retryPolicy, onRetry: (i) => retries.push(i) };
  const client = retrying(createPartnerClient({ baseUrl: ctx.baseUrl, apiKey: ctx.apiKey, fetch: fetchFn, timeoutMs: extra.timeoutMs }), policy);
  return { client, attempts, retries };
}

/**
 * The client's retry policy, against the deployment's own simulated faults (Sandbox-Simulate): what a partner's
 * client must do when the service is unavailable, rate limits, is still working on a key, or answers slowly.
 */
export const retriesFlow: Flow = async (client, ctx) => {
  const flow = flowRecorder('retries', ctx);
  const api = retrying(client, ctx.retryPolicy);

  await flow.check('retry.503_backoff', '503 is retried with backoff, never sooner than Retry-After (the deployment simulates 503 twice)', async (c: Check) => {
    const f = faulty(ctx, c, 'service_unavailable', 2);
    const r = await f.client.ping();
    c.equal(
      f.attempts.map((a) => a.status),
      [503, 503, 200],
      'statuses of the attempts',
    );
    c.equal(
      f.attempts.map((a) => a.simulated),
      ['service_unavailable', 'service_unavailable', null],
      'Sandbox-Simulated of the attempts',
    );
    c.equal(r.status, 200, 'final status');
    c.expect(
      r.delaysMs.every((d) => d >= 2000),
      `waits ${r.delaysMs.join(' ms, ')} ms ignore Retry-After: 2`,
    );
    c.detail(`3 attempts; waited ${r.delaysMs.join(' ms, then ')} ms (Retry-After: 2)`);
  });

  await flow.check('retry.429_backoff', '429 rate_limited is retried after Retry-After (the deployment simulates 429 once)', async (c: Check) => {
    const f = faulty(ctx, c, 'rate_limited', 1);
    const r = await f.client.ping();
    c.equal(
      f.attempts.map((a) => a.status),
      [429, 200],
      'statuses of the attempts',
    );
    c.equal(
      f.retries.map((x) => x.reason),
      ['rate_limited'],
      'retry reasons',
    );
    c.expect(r.delaysMs[0] >= 2000, `waited ${r.delaysMs[0]} ms despite Retry-After: 2`);
    c.detail(`2 attempts; waited ${r.delaysMs[0]} ms (Retry-After: 2)`);
  });

  await flow.check(
    'retry.in_progress_same_key',
    'a 409 idempotency_conflict in_progress is retried with the same Idempotency-Key and body, and books once',
    async (c: Check) => {
      const { quote, offer } = await freshOffer(api, c, ctx);
      const f = faulty(ctx, c, 'idempotency_in_progress', 1);
      const r = await f.client.createBooking(bookingRequest(ctx, quote, offer, 'retry-in-progress'));
      c.equal(
        f.attempts.map((a) => a.status),
        [409, 201],
        'statuses of the attempts',
      );
      c.expect(f.attempts[0].idempotencyKey, 'the first attempt carried no Idempotency-Key');
      c.equal(f.attempts[1].idempotencyKey, f.attempts[0].idempotencyKey, 'Idempotency-Key of the retry');
      c.expect(r.delaysMs[0] >= 1000, `waited ${r.delaysMs[0]} ms despite Retry-After: 1`);
      c.detail(`booked ${r.data?.booking_ref} on the retry, with one key; waited ${r.delaysMs[0]} ms`);
    },
  );

  await flow.check(
    'retry.timeout_same_key',
    'a booking that times out is retried with the same Idempotency-Key: one booking, which replays',
    async (c: Check) => {
      const { quote, offer } = await freshOffer(api, c, ctx);
      const f = faulty(ctx, c, 'slow', 1, { timeoutMs: SLOW_CHECK_TIMEOUT_MS });
      const body = bookingRequest(ctx, quote, offer, 'retry-timeout');
      const r = await f.client.createBooking(body);
      c.equal(
        f.attempts.map((a) => a.status),
        [null, 201],
        'statuses of the attempts (the first timed out)',
      );
      c.equal(
        f.retries.map((x) => x.reason),
        ['network'],
        'retry reasons',
      );
      const key = f.attempts[0].idempotencyKey!;
      c.equal(f.attempts[1].idempotencyKey, key, 'Idempotency-Key of the retry');
      // The slow first attempt still runs on the server, later: it must find the booking, not make a second.
      const again = c.record(await api.createBooking(body, { idempotencyKey: key }), 'the same key again');
      c.equal(again.status, 200, 'status of the replay');
      c.equal(again.data?.booking_ref, r.data?.booking_ref, 'booking_ref of the replay');
      c.detail(`timed out after ${SLOW_CHECK_TIMEOUT_MS} ms, retried with the same key: booking ${r.data?.booking_ref}, replayed on a third send`);
    },
  );

  await flow.check('retry.4xx_not_retried', 'a 4xx is returned at once, never retried (a booking of an offer that does not exist)', async (c: Check) => {
    const { quote } = await freshOffer(api, c, ctx);
    const f = faulty(ctx, c, 'service_unavailable', 0);
    const body = { ...bookingRequest(ctx, quote, { ...quote.offers[0], offer_id: '0'.repeat(32) }, 'retry-404') };
    const r = await f.client.createBooking(body);
    c.equal(r.status, 404, 'status');
    c.equal(f.attempts.length, 1, 'attempts');
    c.equal(f.retries.length, 0, 'retries');
    c.detail(`1 attempt; 404 ${r.error?.code} returned to the caller`);
  });

  await flow.check('retry.network_error', 'a refused connection is retried a bounded number of times, then surfaces', async (c: Check) => {
    const closed = await closedPort();
    const retries: RetryInfo[] = [];
    let raised: unknown;
    try {
      await retrying(createPartnerClient({ baseUrl: closed, apiKey: FAKE_KEY }), { baseDelayMs: 20, maxAttempts: 3, onRetry: (i) => retries.push(i) }).ping();
    } catch (err) {
      raised = err;
    }
    c.note({
      label: 'ping a closed port via the retrying client',
      method: 'GET',
      path: '/transfers/v1/ping',
      status: null,
      request_id: null,
      note: `${retries.length + 1} attempts`,
    });
    c.expect(raised, 'no error surfaced after the retries');
    c.equal(retries.length, 2, 'retries before giving up (3 attempts)');
    c.expect(
      retries.every((x) => x.reason === 'network'),
      'retries were not for network errors',
    );
    const e = raised as { name?: string; message?: string };
    c.detail(`3 attempts, then ${e.name}: ${e.message}`);
  });

  return flow.result();
};

/** The address of a local port nothing listens on (a network failure cannot be simulated by the service). */
async function closedPort(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return url;
}
