import { setupServer } from 'msw/node';
import { http, HttpResponse } from 'msw';
import { backend, freshDatabase, startTestApp, testConfig, type TestApp, type TestDatabase } from '../../support/test-app';
import { client } from '../../support/http';
import { marketplaceClient, MARKETPLACE_ENV } from '../../support/marketplace';
import { ManualClock } from '../../../src/shared/clock';
import { makeKnex } from '../../../src/data/knex';
import { HttpMarketplaceClient } from '../../../src/adapters/marketplace/http-marketplace-client';
import { deliverDueOnce } from '../../../src/domain/outbox/worker';
import { runRetention } from '../../../src/retention';
import { sampleMarketplaceOrder } from '../../../harness/fixtures/marketplace-orders';
import { itOnPostgres } from '../../support/skip';
import { eventually } from '../../support/eventually';

/**
 * Replays of the marketplace's signed order calls, and changes arriving out of order. The signature has no
 * timestamp or nonce: a call identical to one already acted on (method, URL as addressed, body bytes) is answered
 * with the first answer and changes nothing; an order or change stamped (`updated_at`) before the stored order never
 * overwrites it. Two instances of the service share one database here, as in production.
 */
const NOW = '2026-11-21T08:00:00Z';
const MP = `${MARKETPLACE_ENV.MARKETPLACE_URL}/apiin/${MARKETPLACE_ENV.MARKETPLACE_USER_ID}`;
const TOKEN = MARKETPLACE_ENV.MARKETPLACE_CALLBACK_TOKEN;
const SEARCH = { from: { iata: 'CMB' }, to: { name: 'Jetwing Lighthouse, Galle' }, date: '2026-12-01 09:30:00', adults: 2, children: 0, luggage: 2 };

/** What the marketplace's API serves on re-fetch; each re-fetch takes its snapshot on arrival, then may be held. */
const held = new Map<string, Record<string, unknown>>();
const sent: Array<{ path: string; body: Record<string, unknown> }> = [];
let holdRefetch: Promise<void> | null = null;
/** Called as each re-fetch arrives, before it is held (a test waits on it instead of polling). */
let onRefetch: (() => void) | null = null;

const server = setupServer(
  http.get(`${MP}/booking/:orderId/`, async ({ params }) => {
    const order = held.get(String(params.orderId));
    onRefetch?.();
    if (holdRefetch) await holdRefetch;
    return order ? HttpResponse.json({ status: 'OK', order }) : HttpResponse.json({ status: 'ERROR', error: 'order not found' }, { status: 404 });
  }),
  http.post(`${MP}/booking/*`, async ({ request }) => {
    sent.push({ path: new URL(request.url).pathname, body: (await request.json()) as Record<string, unknown> });
    return HttpResponse.json({ status: 'OK' });
  }),
);

let seq = 0;

describe('Marketplace replays and out-of-order changes', () => {
  const clock = new ManualClock(NOW);
  let database: TestDatabase;
  let second: TestDatabase;
  let a: TestApp;
  let b: TestApp;
  /** Instance A, instance B: the same calls through either. */
  let mpA: ReturnType<typeof marketplaceClient>;
  let mpB: ReturnType<typeof marketplaceClient>;

  beforeAll(async () => {
    server.listen({
      onUnhandledRequest: (request, print) => {
        if (new URL(request.url).hostname !== '127.0.0.1') print.error();
      },
    });
    database = await freshDatabase(MARKETPLACE_ENV);
    // Each instance with its own pool on PostgreSQL; PGlite is one connection, which both share.
    second =
      backend === 'postgres' ? { db: makeKnex(testConfig({ ...MARKETPLACE_ENV, ...database.env })), env: database.env, drop: async () => undefined } : database;
    a = await startTestApp({ clock, env: MARKETPLACE_ENV, db: database, outboxWorker: false });
    b = await startTestApp({ clock, env: MARKETPLACE_ENV, db: second, outboxWorker: false });
    mpA = marketplaceClient(a.url);
    mpB = marketplaceClient(b.url);
  });
  afterAll(async () => {
    await b.close();
    await a.close();
    if (second !== database) await second.db.destroy();
    await database.drop();
    server.close();
  });
  beforeEach(() => {
    clock.set(NOW);
    sent.length = 0;
    holdRefetch = null;
    onRefetch = null;
  });

  const db = () => a.db;
  const storedOrder = (orderId: string) => db()('marketplace_orders').where({ orderId }).first();
  const job = (orderId: string) => db()('jobs').where({ source: 'marketplace_order', sourceRef: orderId }).first();
  const outbox = (orderId: string) => db()('outbox').where({ orderId }).orderBy('id');
  const auditOf = (r: { headers: Headers }) =>
    db()('audit_log')
      .where({ requestId: r.headers.get('x-request-id')!, direction: 'inbound' })
      .first();

  /** A confirmed order on a fresh price mark, booked through instance A. */
  async function confirmedOrder(over: Record<string, unknown> = {}) {
    const search = await mpA.signed('POST', '/search/', SEARCH);
    const v = search.body.vehicles.find((x: any) => x.vehicle_id === 'standard_car');
    seq += 1;
    const order = {
      order_id: `INT-RP-${seq}`,
      price_mark: v.price_mark,
      vehicle_id: v.vehicle_id,
      ...SEARCH,
      price: v.price,
      currency: 'EUR',
      meeting_type: 'MG',
      flight_number: 'UL504',
      customer: { name: 'Anna Schmidt', phone: '+491701234567' },
      ...over,
    };
    const r = await mpA.signed('POST', '/booking/', order);
    expect(r.body).toMatchObject({ status: 'OK', order_state: 'confirmed' });
    return { order, first: r };
  }

  async function deliver() {
    const mp = new HttpMarketplaceClient({
      baseUrl: MARKETPLACE_ENV.MARKETPLACE_URL,
      userId: MARKETPLACE_ENV.MARKETPLACE_USER_ID,
      privateKey: MARKETPLACE_ENV.MARKETPLACE_PRIVATE_KEY,
      clock,
    });
    await deliverDueOnce(a.deps, mp);
  }

  describe('an identical signed call', () => {
    it('when an old update is sent again after a newer one, then it gets its first answer and the newer details stay', async () => {
      const { order } = await confirmedOrder();
      const older = { order_id: order.order_id, date: '2026-12-01 11:00:00', flight_number: 'EK650' };
      const newer = { order_id: order.order_id, date: '2026-12-01 12:00:00', flight_number: 'EK652' };
      const first = await mpA.signed('POST', '/booking/update/', older);
      expect(first.body).toMatchObject({ status: 'OK', order_state: 'change_confirmed' });
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      expect((await mpA.signed('POST', '/booking/update/', newer)).body.order_state).toBe('change_confirmed');
      const before = await storedOrder(order.order_id);

      clock.advance(10 * 60_000);
      // The captured older call, sent again — to the other instance too.
      for (const replay of [await mpA.signed('POST', '/booking/update/', older), await mpB.signed('POST', '/booking/update/', older)]) {
        expect(replay.status).toBe(first.status);
        expect(replay.text).toBe(first.text);
        expect(replay.headers.get('idempotent-replayed')).toBe('true');
        expect(replay.headers.get('original-request-id')).toBe(first.headers.get('x-request-id'));
        // Audited like every call, the replay said out loud.
        const audit = await auditOf(replay);
        expect(audit).toMatchObject({ status: 200, responseHeaders: expect.objectContaining({ 'idempotent-replayed': 'true' }) });
      }

      const after = await storedOrder(order.order_id);
      expect(after).toMatchObject({
        version: before.version,
        dataHash: before.dataHash,
        order: expect.objectContaining({ date: '2026-12-01 12:00:00', flight_number: 'EK652' }),
      });
      expect(new Date(after.updatedAt).toISOString()).toBe(new Date(before.updatedAt).toISOString());
      const j = await job(order.order_id);
      expect(new Date(j.pickupAt).toISOString()).toBe('2026-12-01T06:30:00.000Z');
      expect(j.flightNumber).toBe('EK652');
      // One change confirmation per change acted on, none for the replays — in the outbox, and on the wire.
      const changes = (await outbox(order.order_id)).filter((m: any) => m.kind === 'change_confirmation');
      expect(changes).toHaveLength(2);
      await deliver();
      expect(sent.filter((s) => s.path.endsWith('/booking/change/confirm/') && s.body.order_id === order.order_id)).toHaveLength(2);
      expect(await db()('marketplace_seen_calls').where({ orderId: order.order_id, operation: 'updateOrder' })).toHaveLength(2);
    });

    it('when a booking, a confirmation and a cancellation are sent again, then each gets its first answer and nothing is done twice', async () => {
      const { order, first } = await confirmedOrder();
      const ack = await mpA.signed('POST', '/booking/confirm/', { order_id: order.order_id });
      const acknowledgedAt = (await storedOrder(order.order_id)).acknowledgedAt;
      const cancel = await mpA.signed('POST', '/booking/cancel/', { order_id: order.order_id, reason: 'client request' });
      expect(cancel.body.order_state).toBe('cancelled');

      clock.advance(60 * 60_000);
      const booking = await mpB.signed('POST', '/booking/', order);
      // The first answer, not today's state of the order: the call was acted on once, and this is what it said.
      expect(booking.text).toBe(first.text);
      expect(booking.headers.get('original-request-id')).toBe(first.headers.get('x-request-id'));
      const ackAgain = await mpB.signed('POST', '/booking/confirm/', { order_id: order.order_id });
      expect(ackAgain.text).toBe(ack.text);
      expect(ackAgain.headers.get('idempotent-replayed')).toBe('true');
      expect(new Date((await storedOrder(order.order_id)).acknowledgedAt).toISOString()).toBe(new Date(acknowledgedAt).toISOString());
      const cancelAgain = await mpA.signed('POST', '/booking/cancel/', { order_id: order.order_id, reason: 'client request' });
      expect(cancelAgain.text).toBe(cancel.text);

      expect(await db()('marketplace_orders').where({ orderId: order.order_id })).toHaveLength(1);
      expect((await outbox(order.order_id)).map((m: any) => m.kind)).toEqual(['confirm_order']);
      expect((await job(order.order_id)).status).toBe('cancelled');
    });

    it('when a call was answered with an error, then it is not remembered: sent again once it can act, it acts', async () => {
      const { order } = await confirmedOrder();
      const early = { order_id: `${order.order_id}-X`, date: '2026-12-01 10:00:00' };
      expect((await mpA.signed('POST', '/booking/update/', early)).status).toBe(404);
      expect(await db()('marketplace_seen_calls').where({ orderId: early.order_id })).toHaveLength(0);
      expect((await mpA.signed('POST', '/booking/update/', early)).status).toBe(404);

      // A differing body is a different call: a genuine change back to earlier details acts (with its own stamp).
      const there = { order_id: order.order_id, flight_number: 'EK650', updated_at: '2026-11-21 13:40:00' };
      const back = { order_id: order.order_id, flight_number: 'UL504', updated_at: '2026-11-21 13:50:00' };
      for (const change of [there, back]) expect((await mpA.signed('POST', '/booking/update/', change)).body.order_state).toBe('change_confirmed');
      expect((await job(order.order_id)).flightNumber).toBe('UL504');
    });

    it('when identical calls arrive together at two instances, then exactly one acts and every one gets its answer', async () => {
      const { order } = await confirmedOrder();
      const change = { order_id: order.order_id, date: '2026-12-01 10:15:00', comment: 'two child seats' };
      const replies = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? mpB : mpA).signed('POST', '/booking/update/', change)));
      for (const r of replies) {
        expect(r.status).toBe(200);
        expect(r.text).toBe(replies[0].text);
      }
      const acted = replies.filter((r) => r.headers.get('idempotent-replayed') === null);
      expect(acted).toHaveLength(1);
      const actedId = acted[0].headers.get('x-request-id');
      for (const r of replies) if (r !== acted[0]) expect(r.headers.get('original-request-id')).toBe(actedId);
      expect((await storedOrder(order.order_id)).version).toBe(2);
      expect((await outbox(order.order_id)).map((m: any) => m.kind)).toEqual(['confirm_order', 'change_confirmation']);
    });

    itOnPostgres('two connections at once: the first call waits on a row another connection holds')(
      'when an identical call arrives while the first is still acting, then it waits for it and replays its answer (PostgreSQL)',
      async () => {
        const { order } = await confirmedOrder();
        const change = { order_id: order.order_id, luggage: 1 };
        // Hold the order's row: the first call claims, then waits on the row; the second waits on the claim.
        const trx = await db().transaction();
        const holder: number = (await trx.raw('select pg_backend_pid() as pid')).rows[0].pid;
        await trx('marketplace_orders').where({ orderId: order.order_id }).forUpdate().first();
        // The session a lock wait of `pid` is stuck behind (PostgreSQL's own view of it: no guessing by time).
        const blockedBy = (pid: number) =>
          eventually(`a session waiting on ${pid}`, async () => {
            const { rows } = await db().raw('select pid from pg_stat_activity where ? = any(pg_blocking_pids(pid))', [pid]);
            return rows.length ? (rows[0].pid as number) : undefined;
          });
        const one = mpA.signed('POST', '/booking/update/', change);
        const first = await blockedBy(holder);
        const two = mpB.signed('POST', '/booking/update/', change);
        await blockedBy(first);
        await trx.commit();
        const [r1, r2] = await Promise.all([one, two]);
        expect(r1.body.order_state).toBe('change_confirmed');
        expect(r1.headers.get('idempotent-replayed')).toBeNull();
        expect(r2.text).toBe(r1.text);
        expect(r2.headers.get('original-request-id')).toBe(r1.headers.get('x-request-id'));
        expect((await storedOrder(order.order_id)).version).toBe(2);
        expect((await outbox(order.order_id)).filter((m: any) => m.kind === 'change_confirmation')).toHaveLength(1);
      },
    );
  });

  describe('an older change', () => {
    it('when a change stamped before the stored order arrives, then it is acknowledged as stale and the newer details stay', async () => {
      const { order } = await confirmedOrder({ updated_at: '2026-11-21 13:00:00' });
      const newer = { order_id: order.order_id, date: '2026-12-01 12:00:00', updated_at: '2026-11-21 13:20:00' };
      const older = { order_id: order.order_id, date: '2026-12-01 11:00:00', flight_number: 'EK650', updated_at: '2026-11-21 13:10:00' };
      expect((await mpA.signed('POST', '/booking/update/', newer)).body.order_state).toBe('change_confirmed');
      const before = await storedOrder(order.order_id);

      const stale = await mpB.signed('POST', '/booking/update/', older);
      expect(stale.status).toBe(200);
      expect(stale.body).toEqual({ status: 'OK', order_id: order.order_id, supplier_order_id: before.supplierOrderId, order_state: 'confirmed', stale: true });
      expect((await auditOf(stale)).responseBody).toMatchObject({ stale: true });

      const after = await storedOrder(order.order_id);
      expect(after).toMatchObject({
        version: before.version,
        order: expect.objectContaining({ date: '2026-12-01 12:00:00', flight_number: 'UL504', updated_at: '2026-11-21 13:20:00' }),
      });
      const j = await job(order.order_id);
      expect(new Date(j.pickupAt).toISOString()).toBe('2026-12-01T06:30:00.000Z');
      expect(j.flightNumber).toBe('UL504');
      expect((await outbox(order.order_id)).filter((m: any) => m.kind === 'change_confirmation')).toHaveLength(1);
    });

    it('when the same details arrive stamped later, then the stamp moves on, so a change between the two stamps is older news', async () => {
      const { order } = await confirmedOrder({ updated_at: '2026-11-21 13:00:00' });
      const restated = { order_id: order.order_id, flight_number: 'UL504', updated_at: '2026-11-21 13:30:00' };
      expect((await mpA.signed('POST', '/booking/update/', restated)).body.order_state).toBe('change_confirmed');
      expect((await storedOrder(order.order_id)).order.updated_at).toBe('2026-11-21 13:30:00');
      const between = await mpA.signed('POST', '/booking/update/', { order_id: order.order_id, flight_number: 'EK650', updated_at: '2026-11-21 13:15:00' });
      expect(between.body).toMatchObject({ order_state: 'confirmed', stale: true });
      expect((await job(order.order_id)).flightNumber).toBe('UL504');
    });

    const callback = (app: TestApp, body: unknown) => client(app.url)('POST', `/marketplace/callback?token=${TOKEN}`, { body });

    it('when a re-fetched order is older than the stored one, then the callback is acknowledged as stale and changes nothing', async () => {
      seq += 1;
      const o = sampleMarketplaceOrder(`INT-RPCB-${seq}`, { updated_at: '2026-11-21 13:00:00' });
      held.set(o.order_id, o);
      expect((await callback(a, { type: 'new', order_id: o.order_id })).body.order_state).toBe('confirmed');
      held.set(o.order_id, { ...o, state: 'changed', flight_number: 'QR662', updated_at: '2026-11-21 13:30:00' });
      expect((await callback(a, { type: 'change', order_id: o.order_id })).body.order_state).toBe('change_confirmed');

      // A lagging copy at the marketplace serves an older state, then one that says cancelled, older still.
      for (const old of [
        { ...o, state: 'changed', flight_number: 'EK650', updated_at: '2026-11-21 13:10:00' },
        { ...o, state: 'cancelled', updated_at: '2026-11-21 13:05:00' },
      ]) {
        held.set(o.order_id, old);
        const r = await callback(b, { type: 'change', order_id: o.order_id });
        expect(r.status).toBe(200);
        expect(r.body).toMatchObject({ status: 'OK', order_id: o.order_id, order_state: 'confirmed', stale: true });
      }
      const stored = await storedOrder(o.order_id);
      expect(stored).toMatchObject({
        state: 'confirmed',
        version: 2,
        order: expect.objectContaining({ flight_number: 'QR662', updated_at: '2026-11-21 13:30:00' }),
      });
      expect(await job(o.order_id)).toMatchObject({ status: 'confirmed', flightNumber: 'QR662' });
      expect((await outbox(o.order_id)).map((m: any) => m.kind)).toEqual(['confirm_order', 'change_confirmation']);
    });

    it('when two callbacks overtake each other, then the later re-fetch is kept whichever commits last', async () => {
      seq += 1;
      const o = sampleMarketplaceOrder(`INT-RPCB-${seq}`, { updated_at: '2026-11-21 13:00:00' });
      held.set(o.order_id, o);
      await callback(a, { type: 'new', order_id: o.order_id });
      // The first callback's re-fetch takes the change at 13:10, then its answer is slow…
      held.set(o.order_id, { ...o, state: 'changed', flight_number: 'EK650', updated_at: '2026-11-21 13:10:00' });
      let release!: () => void;
      holdRefetch = new Promise((resolve) => (release = resolve));
      const fetching = new Promise<void>((resolve) => (onRefetch = resolve));
      const slow = callback(a, { type: 'change', order_id: o.order_id });
      await fetching;
      onRefetch = null;
      holdRefetch = null;
      // …while a second callback re-fetches the change at 13:20 and commits it.
      held.set(o.order_id, { ...o, state: 'changed', flight_number: 'QR662', updated_at: '2026-11-21 13:20:00' });
      expect((await callback(b, { type: 'change', order_id: o.order_id })).body.order_state).toBe('change_confirmed');
      release();
      expect((await slow).body).toMatchObject({ order_state: 'confirmed', stale: true });
      expect(await job(o.order_id)).toMatchObject({ flightNumber: 'QR662' });
      expect((await storedOrder(o.order_id)).order).toMatchObject({ flight_number: 'QR662', updated_at: '2026-11-21 13:20:00' });
    });
  });

  describe('retention', () => {
    it('when a call is 30 days old and its order over a week past its pickup, then the pass forgets it; not before', async () => {
      const { order } = await confirmedOrder();
      const later = await confirmedOrder();
      // The second order's pickup moved far out: its calls are kept while it is still to come.
      await db()('marketplace_orders')
        .where({ orderId: later.order.order_id })
        .update({ pickupAt: new Date('2027-03-01T04:00:00Z') });
      const seen = () => db()('marketplace_seen_calls').whereIn('orderId', [order.order_id, later.order.order_id]).orderBy('orderId');

      clock.set('2026-12-20T08:00:00Z'); // 29 days on, pickup (1 December) 19 days past: kept (30 days)
      await runRetention(a.deps);
      expect(await seen()).toHaveLength(2);
      clock.set('2026-12-22T08:00:00Z'); // 31 days on
      const pass = await runRetention(a.deps);
      expect(pass.marketplaceSeenCalls).toBeGreaterThanOrEqual(1);
      expect((await seen()).map((s: any) => s.orderId)).toEqual([later.order.order_id]);
    });
  });
});
