import { setupServer } from 'msw/node';
import { startTestApp, type TestApp } from '../../support/test-app';
import { client } from '../../support/http';
import { MARKETPLACE_ENV } from '../../support/marketplace';
import { ManualClock } from '../../../src/shared/clock';
import { signMarketplaceRequest, verifyMarketplaceSignature } from '../../../src/shared/signing/marketplace-signature';
import { HttpMarketplaceClient } from '../../../src/adapters/marketplace/http-marketplace-client';
import { MarketplaceError } from '../../../src/adapters/marketplace/errors';
import { deliverDueOnce } from '../../../src/domain/outbox/worker';
import { startMarketplaceSim, type RunningMarketplaceSim } from '../../../simulators/marketplace/app';
import { marketplaceHandlers } from '../../../simulators/marketplace/handlers';
import { MarketplaceSimState, type RecordedCall } from '../../../simulators/marketplace/state';
import { sampleMarketplaceOrder } from '../../../harness/fixtures/marketplace-orders';

const NOW = '2026-11-21T08:00:00Z';
const { MARKETPLACE_USER_ID: USER_ID, MARKETPLACE_PRIVATE_KEY: KEY, MARKETPLACE_CALLBACK_TOKEN: TOKEN, MARKETPLACE_IN_URL: IN_URL } = MARKETPLACE_ENV;
const SEARCH = { from: { iata: 'CMB' }, to: { name: 'Jetwing Lighthouse, Galle' }, date: '2026-12-01 09:30:00', adults: 2, children: 0, luggage: 2 };

let seq = 0;
const nextId = () => `INT-SIM-${++seq}`;
// The simulator assigns state itself when it creates an order.
const order = (over: Record<string, unknown> = {}) => {
  const { state: _state, ...o } = sampleMarketplaceOrder(nextId(), over);
  return o;
};

describe('Marketplace simulator over HTTP against the service', () => {
  let app: TestApp;
  let mp: RunningMarketplaceSim;
  let simCall: ReturnType<typeof client>;
  const clock = new ManualClock(NOW);
  const outbound = (over: { privateKey?: string; timeoutMs?: number } = {}) =>
    new HttpMarketplaceClient({ baseUrl: mp.url, userId: USER_ID, privateKey: over.privateKey ?? KEY, timeoutMs: over.timeoutMs, clock });
  const deliver = () => deliverDueOnce(app.deps, outbound(), { baseDelayMs: 0 });
  const calls = async (query = ''): Promise<RecordedCall[]> => (await simCall('GET', `/__sim/calls${query}`)).body.calls;
  const simOrder = async (id: string) => (await simCall('GET', `/__sim/orders/${id}`)).body;
  const drive = async (action: string, body: unknown) => {
    const r = await simCall('POST', `/__sim/drive/${action}`, { body });
    expect(r.status).toBe(200);
    return r.body as { response: { status: number; body: any }; request: { url: string; signed_url?: string; body?: string }; order?: any; posted?: any };
  };

  beforeAll(async () => {
    mp = await startMarketplaceSim({ userId: USER_ID, privateKey: KEY });
    app = await startTestApp({ clock, env: { ...MARKETPLACE_ENV, MARKETPLACE_URL: mp.url }, outboxWorker: false });
    mp.sim.setSupplier({ inUrl: IN_URL, baseUrl: `${app.url}/marketplace`, callbackToken: TOKEN });
    simCall = client(mp.url);
  });
  afterAll(async () => {
    await app.close();
    await mp.stop();
  });
  beforeEach(async () => {
    expect((await simCall('POST', '/__sim/reset')).status).toBe(200);
  });

  it('when the simulator drives search → lock → book and the outbox delivers, then it records a signed confirm and the order is confirmed there', async () => {
    const search = await drive('search', SEARCH);
    expect(search.request.signed_url).toBe(`${IN_URL}/search/`);
    expect(search.response.status).toBe(200);
    const vehicle = search.response.body.vehicles.find((v: any) => v.vehicle_id === 'standard_car');
    const locked = await drive('lock', { vehicle_id: vehicle.vehicle_id, price_mark: vehicle.price_mark });
    expect(locked.response).toMatchObject({ status: 200, body: { status: 'OK', vehicle: { price_mark: vehicle.price_mark, price: vehicle.price } } });

    const booked = await drive('book', {
      order: {
        ...SEARCH,
        price_mark: vehicle.price_mark,
        vehicle_id: 'standard_car',
        price: vehicle.price,
        currency: 'EUR',
        meeting_type: 'MG',
        customer: { name: 'Anna Schmidt' },
      },
    });
    const orderId = booked.order.order.order_id as string;
    expect(orderId).toMatch(/^INT-\d{6}$/);
    expect(booked.order.status).toBe('new');
    expect(booked.response).toMatchObject({ status: 200, body: { status: 'OK', order_id: orderId, order_state: 'confirmed' } });

    expect(await deliver()).toEqual({ delivered: 1, retried: 0, failed: 0 });
    const confirms = await calls('?operation=confirmOrder');
    expect(confirms).toHaveLength(1);
    const [confirm] = confirms;
    expect(confirm).toMatchObject({ method: 'POST', path: `/apiin/${USER_ID}/booking/confirm/`, signature: 'ok', signature_ok: true, status: 200 });
    // The simulator's verdict, re-checked independently over the URL and bytes it recorded.
    expect(verifyMarketplaceSignature(confirm.url, confirm.body, KEY, confirm.headers.privatekey).ok).toBe(true);
    const stored = await app.db('marketplace_orders').where({ orderId }).first();
    expect(JSON.parse(confirm.body)).toEqual({ order_id: orderId, supplier_order_id: stored.supplierOrderId });
    const held = await simOrder(orderId);
    expect(held).toMatchObject({ status: 'confirmed', supplier_order_id: stored.supplierOrderId, order: { state: 'confirmed' } });
    expect(held.order.updated_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  });

  it('when a callback posts a body that differs from the order the simulator serves, then the service stores the served order', async () => {
    await simCall('POST', '/__sim/scenarios', { body: { callback_body_override: { price: '999.00', adults: 1, customer: { name: 'Mallory' } } } });
    const served = order();
    const cb = await drive('callback', { type: 'new', order: served });
    expect(cb.posted).toMatchObject({ type: 'new', order_id: served.order_id, price: '999.00', customer: { name: 'Mallory' } });
    expect(JSON.parse(cb.request.body!)).toEqual(cb.posted);
    expect(cb.response).toMatchObject({ status: 200, body: { status: 'OK', order_id: served.order_id, order_state: 'confirmed' } });

    const refetch = await calls('?operation=getOrder');
    expect(refetch).toMatchObject([{ method: 'GET', path: `/apiin/${USER_ID}/booking/${served.order_id}/`, signature_ok: true, status: 200 }]);
    const stored = await app.db('marketplace_orders').where({ orderId: served.order_id }).first();
    expect(stored.order).toMatchObject({ price: '150.00', adults: 4, customer: { name: 'Anna Schmidt' } });

    expect(await deliver()).toEqual({ delivered: 1, retried: 0, failed: 0 });
    expect((await simOrder(served.order_id)).status).toBe('confirmed');

    // A change: the simulator serves the changed order; the service applies it and confirms the change.
    await simCall('POST', '/__sim/scenarios', { body: { callback_body_override: null } });
    const change = await drive('callback', {
      type: 'change',
      order: { order_id: served.order_id, flight_number: 'QR662', date: '2026-12-02 08:30:00' },
      via: 'header',
    });
    expect(change.order).toMatchObject({ status: 'changed', order: { state: 'changed', flight_number: 'QR662', price: '150.00' } });
    expect(change.response.body).toMatchObject({ order_state: 'change_confirmed' });
    expect(await deliver()).toEqual({ delivered: 1, retried: 0, failed: 0 });
    expect(await simOrder(served.order_id)).toMatchObject({ status: 'change_confirmed', change: { accepted: true }, order: { state: 'confirmed' } });
  });

  it('when fail_next is {count: 2, status: 503}, then delivery is retried and the confirm lands once', async () => {
    const o = order();
    await drive('callback', { type: 'new', order: o });
    const set = await simCall('POST', '/__sim/scenarios', { body: { fail_next: { count: 2, status: 503 } } });
    expect(set.body.scenario.fail_next).toEqual({ count: 2, status: 503 });

    expect(await deliver()).toEqual({ delivered: 0, retried: 1, failed: 0 });
    expect(await deliver()).toEqual({ delivered: 0, retried: 1, failed: 0 });
    expect(await deliver()).toEqual({ delivered: 1, retried: 0, failed: 0 });
    expect(await deliver()).toEqual({ delivered: 0, retried: 0, failed: 0 });

    const confirms = await calls(`?operation=confirmOrder&order_id=${o.order_id}`);
    expect(confirms.map((c) => [c.status, c.fault ?? null])).toEqual([
      [503, 'fail'],
      [503, 'fail'],
      [200, null],
    ]);
    expect(confirms.every((c) => c.signature_ok)).toBe(true);
    const held = await simOrder(o.order_id);
    expect(held.status).toBe('confirmed');
    expect(held.history.filter((h: any) => h.event === 'confirmed')).toHaveLength(1);
    const outbox = await app.db('outbox').where({ orderId: o.order_id });
    expect(outbox).toMatchObject([{ kind: 'confirm_order', status: 'delivered', attempts: 3 }]);
  });

  it('when the simulator hangs past the client timeout, then the attempt times out, nothing changes there, and the retry lands', async () => {
    const o = order();
    await drive('callback', { type: 'new', order: o });
    await simCall('POST', '/__sim/scenarios', { body: { fail_next: { count: 1, timeout: true, hang_ms: 5000 } } });
    const pass = await deliverDueOnce(app.deps, outbound({ timeoutMs: 300 }), { baseDelayMs: 0 });
    expect(pass).toEqual({ delivered: 0, retried: 1, failed: 0 });
    // The client gave up: the simulator had not answered (its 504 comes only after the 5 s hang), and the attempt is
    // kept as a timeout, not as that 504.
    expect((await calls(`?operation=confirmOrder&order_id=${o.order_id}`)).map((c) => c.status)).toEqual([null]);
    expect(await app.db('outbox').where({ orderId: o.order_id }).first()).toMatchObject({ lastStatus: null, lastError: expect.stringMatching(/timeout/) });
    expect((await simOrder(o.order_id)).status).toBe('new');
    expect(await deliver()).toEqual({ delivered: 1, retried: 0, failed: 0 });
    expect((await simOrder(o.order_id)).status).toBe('confirmed');
    const outbox = await app.db('outbox').where({ orderId: o.order_id }).first();
    expect(outbox.attempts).toBe(2);
  });

  it('when a call to the simulator is wrongly signed, then 403 and it is recorded as a bad signature', async () => {
    const o = order();
    await simCall('POST', '/__sim/orders', { body: { order: { ...o, state: 'new' } } });
    const body = JSON.stringify({ order_id: o.order_id, supplier_order_id: 'MO-FORGED01' });
    const url = `${mp.url}/apiin/${USER_ID}/booking/confirm/`;
    const wrongKey = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', PrivateKey: signMarketplaceRequest(url, body, 'not-the-key') },
      body,
    });
    expect(wrongKey.status).toBe(403);
    expect(await wrongKey.json()).toEqual({ status: 'ERROR', error: 'invalid signature' });
    const otherUrl = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', PrivateKey: signMarketplaceRequest(`${url}?x=1`, body, KEY) },
      body,
    });
    expect(otherUrl.status).toBe(403);
    const unsigned = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
    expect(unsigned.status).toBe(403);

    const err = await outbound({ privateKey: 'also-wrong' })
      .confirmOrder({ order_id: o.order_id, supplier_order_id: 'MO-FORGED02' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MarketplaceError);
    expect(err).toMatchObject({ kind: 'rejected', status: 403, retryable: false });

    const recorded = await calls('?operation=confirmOrder');
    expect(recorded.map((c) => [c.status, c.signature, c.signature_ok])).toEqual([
      [403, 'mismatch', false],
      [403, 'mismatch', false],
      [403, 'missing', false],
      [403, 'mismatch', false],
    ]);
    expect((await simOrder(o.order_id)).status).toBe('new');
  });

  it('when a body breaks the contract or names an unknown order, then 400/404 in the error envelope and nothing changes', async () => {
    const c = outbound();
    const o = order();
    await simCall('POST', '/__sim/orders', { body: { order: { ...o, state: 'new' } } });
    const bad = await c
      .sendDriverLocation({ order_id: o.order_id, lat: 700, lon: 79.9, at: '2026-12-01T09:00:00Z' } as never)
      .catch((e: MarketplaceError) => e);
    expect(bad).toMatchObject({ status: 400, marketplaceMessage: expect.stringMatching(/^invalid request: .*lat.*at/) });
    const unknown = await c.confirmOrder({ order_id: 'INT-NOPE', supplier_order_id: 'MO-1' }).catch((e: MarketplaceError) => e);
    expect(unknown).toMatchObject({ status: 404, marketplaceMessage: 'order not found' });
    const brands = await c.getBrandList();
    expect(brands.body.brands).toEqual(
      expect.arrayContaining([
        { id: 1, name: 'Toyota' },
        { id: 2, name: 'Kia' },
      ]),
    );
    const other = await fetch(`${mp.url}/apiin/${USER_ID}/booking/delete/`, { method: 'POST', body: '{}' });
    expect(other.status).toBe(404);
    expect(await other.json()).toEqual({ status: 'ERROR', error: 'api method is not supported' });
    expect((await simCall('POST', '/__sim/scenarios', { body: { fail_next: { count: 1 } } })).status).toBe(400);
    expect((await simCall('POST', '/__sim/orders', { body: { order: { order_id: 'X' } } })).status).toBe(400);
  });
});

describe('Marketplace simulator as msw handlers', () => {
  const state = new MarketplaceSimState({ userId: USER_ID, privateKey: KEY });
  const server = setupServer(...marketplaceHandlers(state, 'http://marketplace.test'));
  const c = new HttpMarketplaceClient({ baseUrl: 'http://marketplace.test', userId: USER_ID, privateKey: KEY });

  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterAll(() => server.close());

  it('when our client calls the intercepted marketplace, then the same routes record, check and answer', async () => {
    const o = { ...order(), state: 'new' as const };
    state.putOrder(o as never);
    await c.confirmOrder({ order_id: o.order_id, supplier_order_id: 'MO-ABCDEFGH' });
    expect((await c.getOrder(o.order_id)).body.order).toMatchObject({ order_id: o.order_id, state: 'confirmed' });
    const wrong = await new HttpMarketplaceClient({ baseUrl: 'http://marketplace.test', userId: USER_ID, privateKey: 'nope' })
      .getBrandList()
      .catch((e: MarketplaceError) => e);
    expect(wrong).toMatchObject({ status: 403 });
    expect(state.calls.map((x) => [x.operation, x.status, x.signature_ok])).toEqual([
      ['confirmOrder', 200, true],
      ['getOrder', 200, true],
      ['getBrandList', 403, false],
    ]);
    expect(state.calls[0].url).toBe(`http://marketplace.test/apiin/${USER_ID}/booking/confirm/`);
  });
});
