import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPartnerClient, retrying, type RetryInfo, type RetryPolicy } from '../client';
import { flowRecorder, type Check, type Flow } from './flow';

const FAKE_KEY = 'svc_sk_test_fakeserver000_0000000000000000000000000000000000000000';
const BASE_DELAY_MS = 100;

interface Hit {
  method: string;
  url: string;
  idempotencyKey: string | undefined;
}

type Script = Array<{ status: number; headers?: Record<string, string>; body: unknown }>;

/** A throwaway server on 127.0.0.1 that plays `script` in order (repeating the last answer) and counts hits. */
async function fakeServer(script: Script) {
  const hits: Hit[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      hits.push({ method: req.method ?? '', url: req.url ?? '', idempotencyKey: req.headers['idempotency-key'] as string | undefined });
      const step = script[Math.min(hits.length - 1, script.length - 1)];
      res.writeHead(step.status, { 'Content-Type': 'application/json', 'X-Request-Id': `req_fake_${hits.length}`, ...(step.headers ?? {}) });
      res.end(JSON.stringify(step.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, hits, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const errorBody = (code: string, details: Record<string, unknown> = {}) => ({ env: 'sandbox', error: { code, message: code, details } });
const ping = { env: 'sandbox', ok: true, partner: 'Fake', time: '2026-11-21T08:00:00.000Z' };

function recorder(): { policy: RetryPolicy; retries: RetryInfo[] } {
  const retries: RetryInfo[] = [];
  return { policy: { baseDelayMs: BASE_DELAY_MS, maxAttempts: 4, maxDelayMs: 5_000, onRetry: (i) => retries.push(i) }, retries };
}

/**
 * The client's retry policy, exercised against local fake servers: the service cannot be asked to fail on cue,
 * so these requirements certify this client, and show a partner what their own client must do.
 */
export const retriesFlow: Flow = async (_client, ctx) => {
  const flow = flowRecorder('retries', ctx);

  await flow.check('retry.503_backoff', '503 is retried with exponential backoff, honouring Retry-After (fake server: 503, 503, then 200)', async (c: Check) => {
    const fake = await fakeServer([
      { status: 503, body: errorBody('service_unavailable') },
      { status: 503, headers: { 'Retry-After': '1' }, body: errorBody('service_unavailable') },
      { status: 200, body: ping },
    ]);
    try {
      const { policy, retries } = recorder();
      const r = await retrying(createPartnerClient({ baseUrl: fake.url, apiKey: FAKE_KEY }), policy).ping();
      c.record(r, 'ping via the retrying client', `attempts ${r.attempts}, waits ${r.delaysMs.join(' ms, ')} ms`);
      c.equal(fake.hits.length, 3, 'hits on the fake server');
      c.equal(r.status, 200, 'final status');
      c.equal(retries.map((x) => x.status), [503, 503], 'statuses retried');
      c.expect(r.delaysMs[0] >= BASE_DELAY_MS, `first wait ${r.delaysMs[0]} ms is shorter than the ${BASE_DELAY_MS} ms backoff`);
      c.expect(r.delaysMs[1] >= 1000, `second wait ${r.delaysMs[1]} ms ignores Retry-After: 1`);
      c.detail(`3 hits; waited ${r.delaysMs[0]} ms, then ${r.delaysMs[1]} ms (Retry-After: 1)`);
    } finally {
      await fake.close();
    }
  });

  await flow.check('retry.4xx_not_retried', 'a 400 is returned at once, never retried (fake server answers 400)', async (c: Check) => {
    const fake = await fakeServer([{ status: 400, body: errorBody('invalid_request', { fields: [] }) }]);
    try {
      const { policy, retries } = recorder();
      const r = await retrying(createPartnerClient({ baseUrl: fake.url, apiKey: FAKE_KEY }), policy).ping();
      c.record(r, 'ping via the retrying client', `attempts ${r.attempts}`);
      c.equal(fake.hits.length, 1, 'hits on the fake server');
      c.equal(r.status, 400, 'status returned');
      c.equal(retries.length, 0, 'retries');
      c.detail('1 hit; 400 invalid_request returned to the caller');
    } finally {
      await fake.close();
    }
  });

  await flow.check('retry.in_progress_same_key', 'a 409 idempotency_conflict in_progress is retried with the same Idempotency-Key (fake server: 409, then 201)', async (c: Check) => {
    const fake = await fakeServer([
      { status: 409, headers: { 'Retry-After': '1' }, body: errorBody('idempotency_conflict', { reason: 'in_progress' }) },
      { status: 201, body: { env: 'sandbox', booking_ref: 'FAKE0001', status: 'confirmed' } },
    ]);
    try {
      const { policy } = recorder();
      const body = {
        quote_id: '0'.repeat(32),
        offer_id: '1'.repeat(32),
        partner_reference: `${ctx.runId}-fake`,
        passenger: { first_name: 'Ayesha', last_name: 'Perera' },
        passengers: { adults: 1, luggage: 0 },
      };
      const r = await retrying(createPartnerClient({ baseUrl: fake.url, apiKey: FAKE_KEY }), policy).createBooking(body);
      c.record(r, 'book via the retrying client', `attempts ${r.attempts}, waits ${r.delaysMs.join(', ')} ms`);
      c.equal(fake.hits.length, 2, 'hits on the fake server');
      c.equal(r.status, 201, 'final status');
      const keys = fake.hits.map((h) => h.idempotencyKey);
      c.expect(keys[0], 'the first request carried no Idempotency-Key');
      c.equal(keys[1], keys[0], 'Idempotency-Key of the retry');
      c.expect(r.delaysMs[0] >= 1000, `waited ${r.delaysMs[0]} ms despite Retry-After: 1`);
      c.detail(`2 hits with one key; waited ${r.delaysMs[0]} ms`);
    } finally {
      await fake.close();
    }
  });

  await flow.check('retry.network_error', 'a refused connection is retried a bounded number of times, then surfaces', async (c: Check) => {
    const fake = await fakeServer([{ status: 200, body: ping }]);
    await fake.close();
    const { retries } = recorder();
    let raised: unknown;
    try {
      await retrying(createPartnerClient({ baseUrl: fake.url, apiKey: FAKE_KEY }), { baseDelayMs: 20, maxAttempts: 3, onRetry: (i) => retries.push(i) }).ping();
    } catch (err) {
      raised = err;
    }
    c.note({ label: 'ping a closed port via the retrying client', method: 'GET', path: '/transfers/v1/ping', status: null, request_id: null, note: `${retries.length + 1} attempts` });
    c.expect(raised, 'no error surfaced after the retries');
    c.equal(retries.length, 2, 'retries before giving up (3 attempts)');
    c.expect(retries.every((x) => x.reason === 'network'), 'retries were not for network errors');
    const e = raised as { name?: string; message?: string };
    c.detail(`3 attempts, then ${e.name}: ${e.message}`);
  });

  return flow.result();
};
