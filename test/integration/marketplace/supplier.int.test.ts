import { marketplaceClient, MARKETPLACE_ENV } from '../../support/marketplace';
import { ManualClock } from '../../../src/shared/clock';
import { useTestApp } from '../../support/use-test-app';

const NOW = '2026-11-21T08:00:00Z';
const search = (over: Record<string, unknown> = {}) => ({
  from: { iata: 'CMB' },
  to: { name: 'Jetwing Lighthouse, Galle' },
  date: '2026-12-01 09:30:00',
  adults: 2,
  children: 0,
  luggage: 2,
  ...over,
});
let seq = 0;

describe('Marketplace supplier endpoints', () => {
  let mp: ReturnType<typeof marketplaceClient>;
  const clock = new ManualClock(NOW);
  const svc = useTestApp({ clock, env: MARKETPLACE_ENV, outboxWorker: false, resetClock: true });
  beforeAll(() => {
    mp = marketplaceClient(svc.app.url);
  });

  async function lockedVehicle(code = 'standard_car', over: Record<string, unknown> = {}) {
    const r = await mp.signed('POST', '/search/', search(over));
    expect(r.status).toBe(200);
    return r.body.vehicles.find((v: any) => v.vehicle_id === code);
  }

  function order(vehicle: any, over: Record<string, unknown> = {}) {
    seq += 1;
    return {
      order_id: `INT-${700000 + seq}`,
      price_mark: vehicle.price_mark,
      vehicle_id: vehicle.vehicle_id,
      date: '2026-12-01 09:30:00',
      from: { iata: 'CMB' },
      to: { name: 'Jetwing Lighthouse, Galle' },
      adults: 2,
      children: 0,
      luggage: 2,
      price: vehicle.price,
      currency: 'EUR',
      meeting_type: 'MG',
      flight_number: 'UL504',
      customer: { name: 'Anna Schmidt', phone: '+491701234567', email: 'anna@example.de' },
      ...over,
    };
  }

  describe('signing', () => {
    it('when the signature is missing, wrong, made with another key or for another URL, then 403 and nothing runs', async () => {
      const before = Number((await svc.app.db('price_marks').count({ n: '*' }).first())!.n);
      const attempts = [
        await mp.unsigned('POST', '/search/', search()),
        await mp.signed('POST', '/search/', search(), { key: 'wrong-key' }),
        await mp.signed('POST', '/search/', search(), { signAs: `${MARKETPLACE_ENV.MARKETPLACE_IN_URL}/search/?other=1` }),
        await mp.signed('POST', '/search/', search(), { signAs: 'https://elsewhere.example.lk/marketplace/search/' }),
        await mp.signed('POST', '/booking/', search(), { headers: { PrivateKey: 'f'.repeat(40) } }),
      ];
      for (const r of attempts) {
        expect(r.status).toBe(403);
        expect(r.body).toEqual({ status: 'ERROR', error: 'forbidden' });
      }
      expect(Number((await svc.app.db('price_marks').count({ n: '*' }).first())!.n)).toBe(before);
      const audit = await svc.app.db('audit_log').where({ surface: 'marketplace', status: 403 });
      expect(audit.length).toBeGreaterThanOrEqual(5);
      expect(JSON.stringify(audit)).not.toContain(MARKETPLACE_ENV.MARKETPLACE_PRIVATE_KEY);
      expect(audit.every((a: any) => a.requestHeaders.privatekey === undefined || a.requestHeaders.privatekey === '[REDACTED]')).toBe(true);
    });

    it('when the brand list is asked without a signature, then it is served', async () => {
      const r = await mp.unsigned('GET', '/brandlist/');
      expect(r.status).toBe(200);
      expect(r.body.status).toBe('OK');
      expect(r.body.brands).toEqual(expect.arrayContaining([{ id: 1, name: 'Toyota' }]));
    });

    it('when a resource is unknown or the method wrong, then 404 "api method is not supported"', async () => {
      for (const r of [await mp.unsigned('GET', '/nothing/'), await mp.signed('POST', '/booking/delete/', {}), await mp.unsigned('DELETE', '/search/')]) {
        expect(r.status).toBe(404);
        expect(r.body).toEqual({ status: 'ERROR', error: 'api method is not supported' });
      }
    });

    it('when the body is invalid, then 400 in the marketplace envelope', async () => {
      const r = await mp.signed('POST', '/search/', search({ adults: 0, date: '2026-12-01T09:30:00Z' }));
      expect(r.status).toBe(400);
      expect(r.body.status).toBe('ERROR');
      expect(r.body.error).toMatch(/adults/);
      expect(r.body.error).toMatch(/date/);
      const impossible = await mp.signed('POST', '/search/', search({ date: '2026-02-30 10:00:00' }));
      expect(impossible.status).toBe(400);
      expect(impossible.body).toEqual({ status: 'ERROR', error: expect.stringMatching(/2026-02-30 10:00:00/) });
    });
  });

  describe('search and price marks', () => {
    it('when searching, then fitting vehicles come with price marks, EUR string prices and local times', async () => {
      const r = await mp.signed('POST', '/search/', search());
      expect(r.status).toBe(200);
      expect(r.body.status).toBe('OK');
      const vehicles = r.body.vehicles as any[];
      expect(vehicles).toHaveLength(8);
      for (const v of vehicles) {
        expect(v.price).toMatch(/^\d+\.\d{2}$/);
        expect(v.currency).toBe('EUR');
        expect(v.price_mark).toMatch(/^pm_[0-9a-f]{32}$/);
        expect(v.expires_at).toBe('2026-11-21 14:00:00');
      }
      const prices = vehicles.map((v) => Number(v.price));
      expect([...prices].sort((a, b) => a - b)).toEqual(prices);
      expect(vehicles.find((v) => v.vehicle_id === 'standard_car').title).toBe('Toyota Axio Sedan 1-3 passengers');
    });

    it('when the party is six with children, then only vans and larger fit; unknown places say why', async () => {
      const big = await mp.signed('POST', '/search/', search({ adults: 4, children: 2, luggage: 4 }));
      expect(big.body.vehicles.every((v: any) => v.max_passengers >= 6)).toBe(true);
      const nowhere = await mp.signed('POST', '/search/', search({ to: { name: 'Atlantis Resort & Spa' } }));
      expect(nowhere.body).toMatchObject({ status: 'OK', vehicles: [], reason: 'route_unknown' });
    });

    it('when a price mark is read back, then the locked quote comes back until it expires, then 404', async () => {
      const v = await lockedVehicle();
      const locked = await mp.signed('GET', `/search/${v.vehicle_id}/${v.price_mark}/`);
      expect(locked.status).toBe(200);
      expect(locked.body).toMatchObject({ status: 'OK', vehicle: { price_mark: v.price_mark, price: v.price }, search: { date: '2026-12-01 09:30:00' } });
      expect((await mp.signed('GET', `/search/small_car/${v.price_mark}/`)).status).toBe(404);
      clock.advance(30 * 60 * 1000);
      const expired = await mp.signed('GET', `/search/${v.vehicle_id}/${v.price_mark}/`);
      expect(expired.status).toBe(404);
      expect(expired.body.status).toBe('ERROR');
    });

    it('when a vehicle is re-quoted, then it gets a fresh mark; if it no longer fits, NO_VEHICLE', async () => {
      const again = await mp.signed('POST', '/search/standard_car/', search());
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({ status: 'OK', vehicle: { vehicle_id: 'standard_car', price_mark: expect.stringMatching(/^pm_/) } });
      const tooMany = await mp.signed('POST', '/search/standard_car/', search({ adults: 5 }));
      expect(tooMany.status).toBe(200);
      expect(tooMany.body).toMatchObject({ status: 'NO_VEHICLE', reason: 'no_vehicle' });
      const unknown = await mp.signed('POST', '/search/hovercraft/', search());
      expect(unknown.body).toMatchObject({ status: 'NO_VEHICLE', reason: 'unknown_vehicle' });
    });
  });

  describe('orders', () => {
    it('when an order is booked, then it is stored, becomes a job and exactly one confirmation is queued; a resend changes nothing', async () => {
      const v = await lockedVehicle();
      const o = order(v);
      const first = await mp.signed('POST', '/booking/', o);
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ status: 'OK', order_id: o.order_id, order_state: 'confirmed', supplier_order_id: expect.stringMatching(/^MO-/) });
      const resend = await mp.signed('POST', '/booking/', o);
      expect(resend.body).toEqual(first.body);
      const concurrent = await Promise.all(Array.from({ length: 5 }, () => mp.signed('POST', '/booking/', o)));
      for (const r of concurrent) expect(r.body).toEqual(first.body);
      expect(await svc.app.db('marketplace_orders').where({ orderId: o.order_id })).toHaveLength(1);
      const jobs = await svc.app.db('jobs').where({ source: 'marketplace_order', sourceRef: o.order_id });
      expect(jobs).toHaveLength(1);
      expect(jobs[0]).toMatchObject({ status: 'confirmed', fleetCode: 'standard_car', adults: 2, flightNumber: 'UL504' });
      expect(new Date(jobs[0].pickupAt).toISOString()).toBe('2026-12-01T04:00:00.000Z');
      const outbox = await svc.app.db('outbox').where({ orderId: o.order_id });
      expect(outbox).toHaveLength(1);
      expect(outbox[0]).toMatchObject({ kind: 'confirm_order', payload: { order_id: o.order_id, supplier_order_id: first.body.supplier_order_id } });
    });

    it('when an order cannot be served, then it is declined with a queued decline and no job', async () => {
      const v = await lockedVehicle();
      const cases: Array<[Record<string, unknown>, string]> = [
        [order(v, { price: '1.00' }), 'price_mismatch'],
        [order(v, { adults: 6 }), 'no_vehicle'],
        [order(v, { price_mark: `pm_${'0'.repeat(32)}` }), 'price_mark_expired'],
      ];
      for (const [o, reason] of cases) {
        const r = await mp.signed('POST', '/booking/', o);
        expect(r.body).toMatchObject({ status: 'OK', order_state: 'declined', decline_reason: reason });
        expect(await svc.app.db('jobs').where({ sourceRef: o.order_id })).toHaveLength(0);
        const msgs = await svc.app.db('outbox').where({ orderId: o.order_id });
        expect(msgs.map((m: any) => [m.kind, m.payload.reason])).toEqual([['decline_order', reason]]);
      }
    });

    it('when an order without a price mark prices at or above ours, then it is confirmed', async () => {
      const v = await lockedVehicle();
      const o = order(v, { price_mark: undefined, price: (Number(v.price) + 5).toFixed(2) });
      const r = await mp.signed('POST', '/booking/', o);
      expect(r.body.order_state).toBe('confirmed');
    });

    it('when an order is cancelled, then it and its job are cancelled; again is harmless; unknown is 404', async () => {
      const v = await lockedVehicle();
      const o = order(v);
      await mp.signed('POST', '/booking/', o);
      const cancelled = await mp.signed('POST', '/booking/cancel/', { order_id: o.order_id, reason: 'client request' });
      expect(cancelled.body).toMatchObject({ status: 'OK', order_state: 'cancelled' });
      expect((await mp.signed('POST', '/booking/cancel/', { order_id: o.order_id })).body.order_state).toBe('cancelled');
      expect((await svc.app.db('jobs').where({ sourceRef: o.order_id }).first()).status).toBe('cancelled');
      const unknown = await mp.signed('POST', '/booking/cancel/', { order_id: 'INT-NOPE' });
      expect(unknown.status).toBe(404);
      expect(unknown.body.status).toBe('ERROR');
    });

    it('when an order is updated, then the job changes and a change confirmation is queued once; an impossible change is refused', async () => {
      const v = await lockedVehicle();
      const o = order(v);
      await mp.signed('POST', '/booking/', o);
      const change = { order_id: o.order_id, date: '2026-12-01 11:00:00', flight_number: 'EK650' };
      const r = await mp.signed('POST', '/booking/update/', change);
      expect(r.body).toMatchObject({ status: 'OK', order_state: 'change_confirmed' });
      await mp.signed('POST', '/booking/update/', change);
      const job = await svc.app.db('jobs').where({ sourceRef: o.order_id }).first();
      expect(new Date(job.pickupAt).toISOString()).toBe('2026-12-01T05:30:00.000Z');
      expect(job.flightNumber).toBe('EK650');
      const changes = await svc.app.db('outbox').where({ orderId: o.order_id, kind: 'change_confirmation' });
      expect(changes.map((m: any) => m.payload)).toEqual([{ order_id: o.order_id, accepted: true }]);
      const refused = await mp.signed('POST', '/booking/update/', { order_id: o.order_id, adults: 9 });
      expect(refused.body).toMatchObject({ status: 'NO_VEHICLE', reason: 'no_vehicle' });
      expect((await svc.app.db('jobs').where({ sourceRef: o.order_id }).first()).adults).toBe(2);
      const all = await svc.app.db('outbox').where({ orderId: o.order_id, kind: 'change_confirmation' }).orderBy('id');
      expect(all.map((m: any) => m.payload.accepted)).toEqual([true, false]);
    });

    it('when the marketplace acknowledges our confirmation, then it is recorded', async () => {
      const v = await lockedVehicle();
      const o = order(v);
      await mp.signed('POST', '/booking/', o);
      const r = await mp.signed('POST', '/booking/confirm/', { order_id: o.order_id });
      expect(r.body).toMatchObject({ status: 'OK', order_state: 'acknowledged' });
      expect((await svc.app.db('marketplace_orders').where({ orderId: o.order_id }).first()).acknowledgedAt).not.toBeNull();
      expect((await mp.signed('POST', '/booking/confirm/', { order_id: 'INT-NONE' })).status).toBe(404);
    });
  });

  // Last in the file: registering vehicles limits every later search to the classes registered.
  describe('an order changed after dispatch', () => {
    it("when a change moves an order onto its driver's next job, then its job follows as a partner booking's does: the assignment is released, the change confirmed", async () => {
      const car = await svc.ops.vehicle('standard_car');
      const driver = await svc.ops.driver('Kasun Jayasuriya', '+94774445556');
      const day = { date: '2026-12-20 09:30:00' };
      const first = order(await lockedVehicle('standard_car', day), day);
      const second = order(await lockedVehicle('standard_car', { date: '2026-12-20 18:00:00' }), { date: '2026-12-20 18:00:00' });
      for (const o of [first, second]) {
        expect((await mp.signed('POST', '/booking/', o)).body.order_state).toBe('confirmed');
        const [job] = await svc.ops.jobs({ order_id: o.order_id });
        expect((await svc.ops.call('POST', `/jobs/${job.job_id}/assign`, { body: { driver_id: driver.driver_id, vehicle_id: car.vehicle_id } })).status).toBe(
          200,
        );
      }
      const r = await mp.signed('POST', '/booking/update/', { order_id: first.order_id, date: '2026-12-20 16:30:00', comment: 'Surfboard bag' });
      expect(r.body).toMatchObject({ status: 'OK', order_state: 'change_confirmed' });
      const [moved] = await svc.ops.jobs({ order_id: first.order_id });
      expect(moved).toMatchObject({
        status: 'confirmed',
        pickup_at: '2026-12-20T11:00:00.000Z',
        driver: null,
        vehicle: null,
        notes: 'Surfboard bag',
        released: { reason: 'overlap' },
      });
      const [kept] = await svc.ops.jobs({ order_id: second.order_id });
      expect(kept).toMatchObject({ status: 'driver_assigned', driver: { driver_id: driver.driver_id } });
      const confirmations = await svc.app.db('outbox').where({ orderId: first.order_id, kind: 'change_confirmation' });
      expect(confirmations.map((m: any) => m.payload)).toEqual([{ order_id: first.order_id, accepted: true }]);
    });
  });
});
