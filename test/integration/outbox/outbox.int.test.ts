import { setupServer } from 'msw/node';
import { delay, http, HttpResponse } from 'msw';
import { HttpMarketplaceClient } from '../../../src/adapters/marketplace/http-marketplace-client';
import { enqueueOutbound, type OutboundMessage } from '../../../src/domain/outbox/outbox';
import { deliverDueOnce, type OutboxWorkerOptions } from '../../../src/domain/outbox/worker';
import { verifyMarketplaceSignature } from '../../../src/shared/signing/marketplace-signature';
import type { ManualClock } from '../../../src/shared/clock';
import { freshDatabase, startTestApp, type TestApp } from '../../support/test-app';
import { operator } from '../../support/fixtures';
import { eventually } from '../../support/eventually';

const KEY = 'mp_test_private_key_7f3a';
const ENV = { MARKETPLACE_URL: 'http://marketplace.test', MARKETPLACE_USER_ID: '1001', MARKETPLACE_PRIVATE_KEY: KEY };
const BASE = 'http://marketplace.test/apiin/1001';
/** Deterministic jitter (half the ceiling) and a 1 s base, so the delays are 0.5 s, 1 s, 2 s, … */
const FAST: OutboxWorkerOptions = { baseDelayMs: 1_000, maxDelayMs: 60_000, random: () => 0.5 };

interface Hit {
  method: string;
  url: string;
  path: string;
  text: string;
  body: unknown;
  signatureOk: boolean;
}

const server = setupServer();
let hits: Hit[] = [];

/** Answers every marketplace request with `answer` (by default OK, and brands for the brand list), recording it. */
function marketplace(answer?: (hit: Hit, n: number) => Response | Promise<Response>) {
  server.use(
    http.all('http://marketplace.test/*', async ({ request }) => {
      const text = await request.text();
      const hit: Hit = {
        method: request.method,
        url: request.url,
        path: new URL(request.url).pathname.replace('/apiin/1001', ''),
        text,
        body: text ? JSON.parse(text) : undefined,
        signatureOk: verifyMarketplaceSignature(request.url, text, KEY, request.headers.get('PrivateKey') ?? undefined).ok,
      };
      hits.push(hit);
      if (answer) return answer(hit, hits.length);
      return hit.path === '/brandlist/'
        ? HttpResponse.json({
            status: 'OK',
            brands: [
              { id: 1, name: 'Toyota' },
              { id: 2, name: 'Kia' },
            ],
          })
        : HttpResponse.json({ status: 'OK' });
    }),
  );
}

const unavailable = () => HttpResponse.json({ status: 'ERROR', error: 'maintenance' }, { status: 503 });

function clientFor(app: TestApp) {
  const { url, userId, privateKey } = app.deps.config.marketplace;
  return new HttpMarketplaceClient({ baseUrl: url!, userId: userId!, privateKey: privateKey!, clock: app.clock });
}

const confirm = (orderId: string, extra: Partial<OutboundMessage> = {}): OutboundMessage => ({
  kind: 'confirm_order',
  orderId,
  payload: { order_id: orderId, supplier_order_id: `MO-${orderId}` },
  ...extra,
});

beforeAll(() =>
  server.listen({
    // Calls to the service under test pass through; anything else unhandled fails the test.
    onUnhandledRequest: (request, print) => {
      if (new URL(request.url).hostname !== '127.0.0.1') print.error();
    },
  }),
);
afterEach(() => {
  server.resetHandlers();
  hits = [];
});
afterAll(() => server.close());

describe('Marketplace outbox', () => {
  let app: TestApp;
  let clock: ManualClock;
  let client: HttpMarketplaceClient;
  let ops: ReturnType<typeof operator>;

  const enqueue = (msg: OutboundMessage) => app.deps.db.transaction((tx) => enqueueOutbound(tx, msg, clock.now()));
  const row = async (id: string) => app.db('outbox').where({ id }).first();
  const deliver = (opts: OutboxWorkerOptions = FAST) => deliverDueOnce(app.deps, client, opts);

  beforeAll(async () => {
    app = await startTestApp({ env: ENV, outboxWorker: false });
    clock = app.clock as ManualClock;
    client = clientFor(app);
    ops = operator(app.url);
  });
  afterAll(() => app.close());
  beforeEach(() => app.db('outbox').del());

  it('when one message of each kind is delivered, then each reaches its path with its JSON body and a PrivateKey that verifies', async () => {
    const messages: Array<[OutboundMessage, string, string]> = [
      [confirm('INT-700123'), 'POST', '/booking/confirm/'],
      [
        {
          kind: 'decline_order',
          orderId: 'INT-700124',
          payload: { order_id: 'INT-700124', reason: 'price_mark_expired', comment: 'The locked quote expired.' },
        },
        'POST',
        '/booking/decline/',
      ],
      [
        {
          kind: 'driver_info',
          orderId: 'INT-700123',
          payload: {
            order_id: 'INT-700123',
            driver: { name: 'Sunil Fernando', phone: '+94771234567', messenger: 'WhatsApp' },
            vehicle: { brand_id: 1, brand: 'Toyota', model: 'Corolla', plate: 'CAB-1234', color: 'white' },
          },
        },
        'POST',
        '/booking/driver/',
      ],
      [
        { kind: 'driver_location', orderId: 'INT-700123', payload: { order_id: 'INT-700123', lat: 7.1801, lon: 79.8843, at: '2026-12-01 09:12:00' } },
        'POST',
        '/booking/location/',
      ],
      [{ kind: 'change_confirmation', orderId: 'INT-700123', payload: { order_id: 'INT-700123', accepted: true } }, 'POST', '/booking/change/confirm/'],
      [
        {
          kind: 'no_show',
          orderId: 'INT-700123',
          payload: {
            order_id: 'INT-700123',
            evidence: { gps_track: [{ lat: 7.1801, lon: 79.8843, at: '2026-12-01 09:30:00' }], comment: 'Waited 70 minutes.' },
          },
        },
        'POST',
        '/booking/noshow/',
      ],
      [{ kind: 'brand_list', payload: {} }, 'GET', '/brandlist/'],
    ];
    marketplace();
    const ids = [];
    for (const [msg] of messages) ids.push((await enqueue(msg)).id);

    expect(await deliver()).toEqual({ delivered: 7, retried: 0, failed: 0 });

    expect(hits).toHaveLength(7);
    for (const [msg, method, path] of messages) {
      const hit = hits.find((h) => h.path === path);
      expect(hit).toMatchObject({ method, url: `${BASE}${path}`, signatureOk: true });
      if (method === 'GET') expect(hit!.text).toBe('');
      else expect(hit!.body).toEqual(msg.payload);
    }
    for (const id of ids)
      expect(await row(id)).toMatchObject({ status: 'delivered', attempts: 1, lastStatus: 200, lastError: null, lockedUntil: null, deliveredAt: clock.now() });
    expect(await app.db('marketplaceBrands').orderBy('id').select('id', 'name')).toEqual([
      { id: 1, name: 'Toyota' },
      { id: 2, name: 'Kia' },
    ]);
  });

  it('when a message fails twice (503) then succeeds, then it is delivered exactly once, after growing delays, with an audit row per attempt', async () => {
    marketplace((_hit, n) => (n <= 2 ? unavailable() : HttpResponse.json({ status: 'OK' })));
    const { id } = await enqueue(confirm('INT-RETRY'));

    expect(await deliver()).toEqual({ delivered: 0, retried: 1, failed: 0 });
    const first = await row(id);
    const delay1 = first.nextAttemptAt.getTime() - clock.now().getTime();
    expect(first).toMatchObject({ status: 'pending', attempts: 1, lastStatus: 503, lastError: expect.stringContaining('maintenance') });
    expect(delay1).toBe(500);

    expect(await deliver()).toEqual({ delivered: 0, retried: 0, failed: 0 });
    expect(hits).toHaveLength(1);

    clock.advance(delay1);
    expect(await deliver()).toEqual({ delivered: 0, retried: 1, failed: 0 });
    const second = await row(id);
    const delay2 = second.nextAttemptAt.getTime() - clock.now().getTime();
    expect(second.attempts).toBe(2);
    expect(delay2).toBeGreaterThan(delay1);

    clock.advance(delay2);
    expect(await deliver()).toEqual({ delivered: 1, retried: 0, failed: 0 });
    clock.advance(60 * 60_000);
    expect(await deliver()).toEqual({ delivered: 0, retried: 0, failed: 0 });

    expect(hits).toHaveLength(3);
    expect(hits.every((h) => h.signatureOk)).toBe(true);
    expect(await row(id)).toMatchObject({ status: 'delivered', attempts: 3, lastStatus: 200, lastError: null });

    const audit = (await ops.audit({ surface: 'marketplace', limit: '500' }))
      .filter((a) => a.request_id.startsWith(`outbox_${id}_`))
      .sort((a, b) => a.attempt - b.attempt);
    expect(audit.map((a) => [a.direction, a.method, a.path, a.status, a.attempt])).toEqual([
      ['outbound', 'POST', '/apiin/1001/booking/confirm/', 503, 1],
      ['outbound', 'POST', '/apiin/1001/booking/confirm/', 503, 2],
      ['outbound', 'POST', '/apiin/1001/booking/confirm/', 200, 3],
    ]);
    expect(audit.every((a) => a.request_headers.privatekey === '[REDACTED]')).toBe(true);
    expect(audit[0].error).toContain('503');
    expect(audit[2].error).toBeNull();
    expect(audit[2].request_body).toEqual({ order_id: 'INT-RETRY', supplier_order_id: 'MO-INT-RETRY' });
    const rawAudit = JSON.stringify(await app.db('audit_log').where('requestId', 'like', `outbox_${id}_%`));
    expect(rawAudit).not.toContain(KEY);
  });

  it('when a message keeps failing, then it is failed after its max attempts, listed for operators, and a retry delivers it', async () => {
    marketplace(unavailable);
    const { id } = await enqueue(confirm('INT-DOOMED', { maxAttempts: 3 }));
    const results = [];
    for (let i = 0; i < 3; i += 1) {
      results.push(await deliver());
      clock.advance(60_000);
    }
    expect(results).toEqual([
      { delivered: 0, retried: 1, failed: 0 },
      { delivered: 0, retried: 1, failed: 0 },
      { delivered: 0, retried: 0, failed: 1 },
    ]);
    expect(await deliver()).toEqual({ delivered: 0, retried: 0, failed: 0 });
    expect(hits).toHaveLength(3);

    const failed = await ops.call('GET', '/outbox?status=failed');
    expect(failed.status).toBe(200);
    expect(failed.body.data).toEqual([
      expect.objectContaining({ id, kind: 'confirm_order', order_id: 'INT-DOOMED', status: 'failed', attempts: 3, max_attempts: 3, last_status: 503 }),
    ]);
    expect((await ops.call('GET', '/outbox?status=pending')).body.data).toEqual([]);
    expect((await ops.call('GET', '/outbox?order_id=INT-DOOMED')).body.data).toHaveLength(1);

    const retried = await ops.call('POST', `/outbox/${id}/retry`);
    expect(retried.status).toBe(200);
    expect(retried.body).toMatchObject({ id, status: 'pending', attempts: 3, next_attempt_at: clock.now().toISOString() });

    server.resetHandlers();
    marketplace();
    expect(await deliver()).toEqual({ delivered: 1, retried: 0, failed: 0 });
    expect(await row(id)).toMatchObject({ status: 'delivered', attempts: 4 });

    const again = await ops.call('POST', `/outbox/${id}/retry`);
    expect(again.status).toBe(400);
    expect(again.body.error).toMatchObject({ code: 'invalid_request', message: 'Only failed or pending messages can be retried.' });
    expect((await ops.call('POST', '/outbox/999999999/retry')).status).toBe(404);
    expect((await ops.call('POST', '/outbox/abc/retry')).status).toBe(400);
  });

  it('when the marketplace refuses a message (400), then it fails at once without retries', async () => {
    marketplace(() => HttpResponse.json({ status: 'ERROR', error: 'supplier_order_id is required' }, { status: 400 }));
    const { id } = await enqueue(confirm('INT-BAD'));
    expect(await deliver()).toEqual({ delivered: 0, retried: 0, failed: 1 });
    clock.advance(24 * 60 * 60_000);
    expect(await deliver()).toEqual({ delivered: 0, retried: 0, failed: 0 });
    expect(hits).toHaveLength(1);
    expect(await row(id)).toMatchObject({
      status: 'failed',
      attempts: 1,
      lastStatus: 400,
      lastError: expect.stringContaining('supplier_order_id is required'),
    });
  });

  it('when the transaction that enqueues a message rolls back, then neither the state change nor the message exist', async () => {
    const failing = app.deps.db.transaction(async (tx) => {
      await tx.knex('partners').insert({ partnerId: 'ptn_rollback000000001', name: 'Rolled Back' });
      await enqueueOutbound(tx, confirm('INT-ROLLBACK'), clock.now());
      throw new Error('the state change failed');
    });
    await expect(failing).rejects.toThrow('the state change failed');
    expect(await app.db('outbox').where({ orderId: 'INT-ROLLBACK' })).toHaveLength(0);
    expect(await app.db('partners').where({ partnerId: 'ptn_rollback000000001' })).toHaveLength(0);
  });

  it('when the same dedupe key is enqueued twice, then there is one message and one delivery', async () => {
    marketplace();
    const first = await enqueue(confirm('INT-ONCE', { dedupeKey: 'confirm_order:INT-ONCE' }));
    const second = await enqueue(confirm('INT-ONCE', { dedupeKey: 'confirm_order:INT-ONCE' }));
    expect(first.enqueued).toBe(true);
    expect(second).toEqual({ id: first.id, enqueued: false });
    expect(await deliver()).toEqual({ delivered: 1, retried: 0, failed: 0 });
    expect(await enqueue(confirm('INT-ONCE', { dedupeKey: 'confirm_order:INT-ONCE' }))).toEqual({ id: first.id, enqueued: false });
    expect(await deliver()).toEqual({ delivered: 0, retried: 0, failed: 0 });
    expect(hits).toHaveLength(1);
    expect(await app.db('outbox').where({ orderId: 'INT-ONCE' })).toHaveLength(1);
  });

  it('when a worker dies after claiming a message, then the lease blocks others until it expires, and the message is then redelivered', async () => {
    marketplace();
    const { id } = await enqueue(confirm('INT-CRASH'));
    const crashed = { timeoutMs: client.timeoutMs, sendOutbound: () => new Promise<never>(() => {}) };
    void deliverDueOnce(app.deps, crashed, FAST);
    await waitFor(async () => (await row(id)).attempts === 1);
    const claimed = await row(id);
    expect(claimed).toMatchObject({ status: 'pending', attempts: 1 });
    expect(claimed.lockedUntil.getTime()).toBe(clock.now().getTime() + client.timeoutMs + 30_000);

    expect(await deliver()).toEqual({ delivered: 0, retried: 0, failed: 0 });
    clock.advance(client.timeoutMs + 30_000 + 1);
    expect(await deliver()).toEqual({ delivered: 1, retried: 0, failed: 0 });
    expect(hits).toHaveLength(1);
    expect(await row(id)).toMatchObject({ status: 'delivered', attempts: 2 });
  });

  it('when several workers run a pass at the same time, then no message is delivered twice', async () => {
    marketplace(async () => {
      await delay(20);
      return HttpResponse.json({ status: 'OK' });
    });
    const orderIds = Array.from({ length: 12 }, (_, i) => `INT-PAR-${i}`);
    for (const orderId of orderIds) await enqueue(confirm(orderId));
    const passes = await Promise.all([1, 2, 3].map(() => deliverDueOnce(app.deps, clientFor(app), { ...FAST, batchSize: 5 })));
    expect(passes.reduce((n, p) => n + p.delivered, 0)).toBe(12);
    expect(hits).toHaveLength(12);
    expect(new Set(hits.map((h) => (h.body as { order_id: string }).order_id))).toEqual(new Set(orderIds));
    expect(await app.db('outbox').whereNot({ status: 'delivered' }).orWhereNot({ attempts: 1 })).toHaveLength(0);
  });
});

describe('Marketplace outbox across restarts', () => {
  it('when the service stops before delivering and a new one starts on the same database, then the message is delivered once', async () => {
    const database = await freshDatabase();
    try {
      const first = await startTestApp({ db: database, env: ENV, outboxWorker: false });
      const { id } = await first.deps.db.transaction((tx) => enqueueOutbound(tx, confirm('INT-RESTART'), first.clock.now()));
      await first.close();

      const second = await startTestApp({ db: database, env: ENV, outboxWorker: false });
      try {
        marketplace();
        expect(await deliverDueOnce(second.deps, clientFor(second), FAST)).toEqual({ delivered: 1, retried: 0, failed: 0 });
        expect(await deliverDueOnce(second.deps, clientFor(second), FAST)).toEqual({ delivered: 0, retried: 0, failed: 0 });
        expect(hits).toHaveLength(1);
        expect(await second.db('outbox').where({ id }).first()).toMatchObject({ status: 'delivered', attempts: 1 });
      } finally {
        await second.close();
      }
    } finally {
      await database.drop();
    }
  });

  it('when the marketplace is configured, then the server delivers the outbox in the background', async () => {
    const app = await startTestApp({ env: ENV });
    try {
      marketplace();
      const { id } = await app.deps.db.transaction((tx) => enqueueOutbound(tx, confirm('INT-BACKGROUND'), app.clock.now()));
      await waitFor(async () => (await app.db('outbox').where({ id }).first()).status === 'delivered', 10_000);
      expect(hits).toHaveLength(1);
      expect(hits[0]).toMatchObject({ path: '/booking/confirm/', signatureOk: true });
    } finally {
      await app.close();
    }
  });
});

/** Until `check` holds (the shared `eventually`, bounded). */
async function waitFor(check: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  await eventually('the condition', async () => ((await check()) ? true : undefined), timeoutMs);
}
