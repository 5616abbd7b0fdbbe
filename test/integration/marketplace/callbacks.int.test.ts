import { setupServer } from 'msw/node';
import { http, HttpResponse } from 'msw';
import { startTestApp, OPERATOR_TOKEN, type TestApp } from '../../support/test-app';
import { client } from '../../support/http';
import { MARKETPLACE_ENV } from '../../support/marketplace';
import { ManualClock } from '../../../src/shared/clock';
import { verifyMarketplaceSignature } from '../../../src/shared/signing/marketplace-signature';
import { HttpMarketplaceClient } from '../../../src/adapters/marketplace/http-marketplace-client';
import { deliverDueOnce } from '../../../src/domain/outbox/worker';
import { sampleMarketplaceOrder } from '../../../harness/fixtures/marketplace-orders';

const NOW = '2026-11-21T08:00:00Z';
const MP = `${MARKETPLACE_ENV.MARKETPLACE_URL}/apiin/${MARKETPLACE_ENV.MARKETPLACE_USER_ID}`;
const TOKEN = MARKETPLACE_ENV.MARKETPLACE_CALLBACK_TOKEN;

/** What the marketplace's authenticated API holds: the only truth a callback may write. */
const held = new Map<string, Record<string, unknown>>();
const hits: Array<{ method: string; path: string; body: string; signed: boolean }> = [];
let refetchFailure: number | null = null;
/** While set, the re-fetch waits for it: a marketplace that is slow to answer. */
let refetchGate: Promise<void> | null = null;
/** Called as each re-fetch arrives (a test waits on it instead of polling `hits`). */
let onRefetch: (() => void) | null = null;

const server = setupServer(
  http.get(`${MP}/booking/:orderId/`, async ({ request, params }) => {
    const signed = verifyMarketplaceSignature(request.url, '', MARKETPLACE_ENV.MARKETPLACE_PRIVATE_KEY, request.headers.get('PrivateKey') ?? undefined).ok;
    hits.push({ method: 'GET', path: new URL(request.url).pathname, body: '', signed });
    onRefetch?.();
    if (!signed) return HttpResponse.json({ status: 'ERROR', error: 'invalid signature' }, { status: 403 });
    if (refetchGate) await refetchGate;
    if (refetchFailure) return HttpResponse.json({ status: 'ERROR', error: 'temporarily unavailable' }, { status: refetchFailure });
    const order = held.get(String(params.orderId));
    return order ? HttpResponse.json({ status: 'OK', order }) : HttpResponse.json({ status: 'ERROR', error: 'order not found' }, { status: 404 });
  }),
  http.post(`${MP}/booking/*`, async ({ request }) => {
    const body = await request.text();
    const signed = verifyMarketplaceSignature(request.url, body, MARKETPLACE_ENV.MARKETPLACE_PRIVATE_KEY, request.headers.get('PrivateKey') ?? undefined).ok;
    hits.push({ method: 'POST', path: new URL(request.url).pathname, body, signed });
    return HttpResponse.json({ status: 'OK' });
  }),
);

let seq = 0;
function marketplaceOrder(over: Record<string, unknown> = {}) {
  seq += 1;
  return sampleMarketplaceOrder(`INT-CB-${seq}`, over);
}

describe('Marketplace order callbacks', () => {
  let app: TestApp;
  let call: ReturnType<typeof client>;
  const clock = new ManualClock(NOW);
  const mpClient = () =>
    new HttpMarketplaceClient({
      baseUrl: MARKETPLACE_ENV.MARKETPLACE_URL,
      userId: MARKETPLACE_ENV.MARKETPLACE_USER_ID,
      privateKey: MARKETPLACE_ENV.MARKETPLACE_PRIVATE_KEY,
      clock,
    });

  beforeAll(async () => {
    server.listen({
      onUnhandledRequest: (request, print) => {
        if (new URL(request.url).hostname !== '127.0.0.1') print.error();
      },
    });
    app = await startTestApp({ clock, env: MARKETPLACE_ENV, outboxWorker: false });
    call = client(app.url);
  });
  afterAll(async () => {
    await app.close();
    server.close();
  });
  beforeEach(() => {
    hits.length = 0;
    refetchFailure = null;
    refetchGate = null;
    onRefetch = null;
  });

  const callback = (body: unknown, how: 'query' | 'header' | 'none' | 'wrong' = 'query') =>
    call('POST', `/marketplace/callback${how === 'query' ? `?token=${TOKEN}` : how === 'wrong' ? '?token=nope' : ''}`, {
      body,
      headers: how === 'header' ? { 'X-Callback-Token': TOKEN } : {},
    });

  it('when the token is missing or wrong, then 403 and the marketplace is not even asked', async () => {
    const o = marketplaceOrder();
    held.set(o.order_id, o);
    for (const how of ['none', 'wrong'] as const) {
      const r = await callback({ type: 'new', order_id: o.order_id }, how);
      expect(r.status).toBe(403);
      expect(r.body).toEqual({ status: 'ERROR', error: 'forbidden' });
    }
    const wrongHeader = await call('POST', '/marketplace/callback', { body: { type: 'new', order_id: o.order_id }, headers: { 'X-Callback-Token': 'nope' } });
    expect(wrongHeader.status).toBe(403);
    expect(hits).toHaveLength(0);
    expect(await app.db('marketplace_orders').where({ orderId: o.order_id })).toHaveLength(0);
    const audit = JSON.stringify(await app.db('audit_log').where('path', 'like', '/marketplace/callback%'));
    expect(audit).not.toContain(TOKEN);
  });

  it('when a new-order callback posts a body that differs from the order, then only the re-fetched order is stored', async () => {
    const o = marketplaceOrder();
    held.set(o.order_id, o);
    const forged = { type: 'new', order_id: o.order_id, price: '999.00', customer: { name: 'Mallory' }, adults: 1 };
    const r = await callback(forged, 'header');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'OK', order_id: o.order_id, order_state: 'confirmed' });
    expect(hits).toEqual([{ method: 'GET', path: `/apiin/1001/booking/${o.order_id}/`, body: '', signed: true }]);
    const stored = await app.db('marketplace_orders').where({ orderId: o.order_id }).first();
    expect(stored.order).toMatchObject({ price: '150.00', customer: { name: 'Anna Schmidt' }, adults: 4 });
    expect(stored.source).toBe('callback');
    const job = await app.db('jobs').where({ source: 'marketplace_order', sourceRef: o.order_id }).first();
    expect(job).toMatchObject({
      adults: 4,
      children: 1,
      fleetCode: 'standard_van',
      status: 'confirmed',
      passenger: { name: 'Anna Schmidt', phone: '+491701234567' },
    });
    const outbound = await app.db('audit_log').where({ requestId: r.headers.get('x-request-id')!, direction: 'outbound' });
    expect(outbound).toHaveLength(1);
    expect(outbound[0].requestHeaders.privatekey).toBe('[REDACTED]');
  });

  it('when a re-fetch hangs, then other requests proceed meanwhile (no transaction is open during it), and the callback completes after', async () => {
    const o = marketplaceOrder();
    held.set(o.order_id, o);
    let release!: () => void;
    refetchGate = new Promise((resolve) => (release = resolve));
    const arrived = new Promise<void>((resolve) => (onRefetch = resolve));
    let settled = false;
    const pending = callback({ type: 'new', order_id: o.order_id }).finally(() => (settled = true));
    await arrived;
    // The re-fetch is in flight; the service keeps answering, writes included.
    const ops = await call('POST', '/ops/v1/partners', { headers: { Authorization: `Bearer ${OPERATOR_TOKEN}` }, body: { name: 'During A Slow Re-fetch' } });
    expect(ops.status).toBe(201);
    const audit = await call('GET', '/ops/v1/audit?limit=1', { headers: { Authorization: `Bearer ${OPERATOR_TOKEN}` } });
    expect(audit.status).toBe(200);
    expect(settled).toBe(false);
    release();
    const r = await pending;
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ order_id: o.order_id, order_state: 'confirmed' });
    expect(await app.db('audit_log').where({ requestId: r.headers.get('x-request-id')! })).toHaveLength(2);
  });

  it('when the re-fetch fails, then 503 with Retry-After and nothing is written but the audit', async () => {
    const o = marketplaceOrder();
    held.set(o.order_id, o);
    refetchFailure = 502;
    const r = await callback({ type: 'new', order_id: o.order_id });
    expect(r.status).toBe(503);
    expect(r.headers.get('retry-after')).toBe('5');
    expect(r.body.status).toBe('ERROR');
    expect(await app.db('marketplace_orders').where({ orderId: o.order_id })).toHaveLength(0);
    expect(await app.db('jobs').where({ sourceRef: o.order_id })).toHaveLength(0);
    expect(await app.db('outbox').where({ orderId: o.order_id })).toHaveLength(0);
    const audit = await app
      .db('audit_log')
      .where({ requestId: r.headers.get('x-request-id')! })
      .orderBy('id');
    expect(audit.map((a: any) => [a.direction, a.status])).toEqual([
      ['outbound', 502],
      ['inbound', 503],
    ]);
    // The marketplace retries; now the re-fetch works.
    refetchFailure = null;
    expect((await callback({ type: 'new', order_id: o.order_id })).status).toBe(200);
    expect(await app.db('marketplace_orders').where({ orderId: o.order_id })).toHaveLength(1);
  });

  it('when the same callback arrives again, then nothing changes: one order, one job, one confirmation', async () => {
    const o = marketplaceOrder();
    held.set(o.order_id, o);
    const replies = [
      await callback({ type: 'new', order_id: o.order_id }),
      await callback({ type: 'new', order_id: o.order_id }),
      await callback({ type: 'change', order_id: o.order_id }),
    ];
    for (const r of replies) expect(r.body).toEqual(replies[0].body);
    expect(await app.db('jobs').where({ sourceRef: o.order_id })).toHaveLength(1);
    expect(await app.db('outbox').where({ orderId: o.order_id })).toHaveLength(1);
  });

  it('when a change callback arrives, then the re-fetched change is applied to the job and confirmed', async () => {
    const o = marketplaceOrder();
    held.set(o.order_id, o);
    await callback({ type: 'new', order_id: o.order_id });
    held.set(o.order_id, { ...o, state: 'changed', date: '2026-12-02 08:30:00', flight_number: 'QR662' });
    const r = await callback({ type: 'change', order_id: o.order_id, date: '2030-01-01 00:00:00' });
    expect(r.body).toMatchObject({ status: 'OK', order_state: 'change_confirmed' });
    const job = await app.db('jobs').where({ sourceRef: o.order_id }).first();
    expect(new Date(job.pickupAt).toISOString()).toBe('2026-12-02T03:00:00.000Z');
    expect(job.flightNumber).toBe('QR662');
    const kinds = (await app.db('outbox').where({ orderId: o.order_id }).orderBy('id')).map((m: any) => m.kind);
    expect(kinds).toEqual(['confirm_order', 'change_confirmation']);
  });

  it('when the re-fetched order says cancelled, then the order and its job are cancelled', async () => {
    const o = marketplaceOrder();
    held.set(o.order_id, o);
    await callback({ type: 'new', order_id: o.order_id });
    held.set(o.order_id, { ...o, state: 'cancelled' });
    const r = await callback({ type: 'change', order_id: o.order_id });
    expect(r.body.order_state).toBe('cancelled');
    expect((await app.db('jobs').where({ sourceRef: o.order_id }).first()).status).toBe('cancelled');
  });

  it('when the outbox is delivered, then the auto-confirm reaches the marketplace exactly once, signed', async () => {
    const o = marketplaceOrder();
    held.set(o.order_id, o);
    await callback({ type: 'new', order_id: o.order_id });
    await callback({ type: 'new', order_id: o.order_id });
    hits.length = 0;
    const mp = mpClient();
    await deliverDueOnce(app.deps, mp);
    await deliverDueOnce(app.deps, mp);
    const confirms = hits.filter((h) => h.path === '/apiin/1001/booking/confirm/' && JSON.parse(h.body).order_id === o.order_id);
    expect(confirms).toHaveLength(1);
    expect(confirms[0].signed).toBe(true);
    const stored = await app.db('marketplace_orders').where({ orderId: o.order_id }).first();
    expect(JSON.parse(confirms[0].body)).toEqual({ order_id: o.order_id, supplier_order_id: stored.supplierOrderId });
  });
});
