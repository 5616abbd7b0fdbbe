import { startTestApp, type TestApp } from '../../support/test-app';
import { client, type Call } from '../../support/http';
import { operator } from '../../support/fixtures';
import { MARKETPLACE_ENV, marketplaceClient } from '../../support/marketplace';
import { ManualClock } from '../../../src/shared/clock';
import { HttpMarketplaceClient } from '../../../src/adapters/marketplace/http-marketplace-client';
import { deliverDueOnce } from '../../../src/domain/outbox/worker';
import { startMarketplaceSim, type RunningMarketplaceSim } from '../../../simulators/marketplace/app';
import type { RecordedCall } from '../../../simulators/marketplace/state';

const NOW = '2026-11-21T08:00:00Z';
const { MARKETPLACE_USER_ID: USER_ID, MARKETPLACE_PRIVATE_KEY: KEY, MARKETPLACE_CALLBACK_TOKEN: TOKEN, MARKETPLACE_IN_URL: IN_URL } = MARKETPLACE_ENV;
const SEARCH = { from: { iata: 'CMB' }, to: { name: 'Jetwing Lighthouse, Galle' }, date: '2026-12-01 09:30:00', adults: 2, children: 0, luggage: 2 };

/**
 * Driver events for marketplace orders reach the marketplace (here its simulator) through the outbox, signed and
 * audited: driver info on assignment, positions while the job is live (throttled, the newest winning), and the
 * no-show report with its evidence. Partner bookings send nothing there.
 */
describe('Driver events to the marketplace', () => {
  let app: TestApp;
  let mp: RunningMarketplaceSim;
  let sim: Call;
  let ops: ReturnType<typeof operator>;
  const clock = new ManualClock(NOW);
  let outbound: HttpMarketplaceClient;
  const deliver = () => deliverDueOnce(app.deps, outbound, { baseDelayMs: 0 });
  const calls = async (operation: string, orderId: string): Promise<RecordedCall[]> =>
    (await sim('GET', `/__sim/calls?operation=${operation}&order_id=${orderId}`)).body.calls;
  const drive = async (action: string, body: unknown) => {
    const r = await sim('POST', `/__sim/drive/${action}`, { body });
    expect(r.status).toBe(200);
    return r.body as { request: { body?: string }; response: { status: number; body: any }; order?: any };
  };

  beforeAll(async () => {
    mp = await startMarketplaceSim({ userId: USER_ID, privateKey: KEY });
    app = await startTestApp({ clock, env: { ...MARKETPLACE_ENV, MARKETPLACE_URL: mp.url }, outboxWorker: false });
    mp.sim.setSupplier({ inUrl: IN_URL, baseUrl: `${app.url}/marketplace`, callbackToken: TOKEN });
    outbound = new HttpMarketplaceClient({ baseUrl: mp.url, userId: USER_ID, privateKey: KEY, clock });
    sim = client(mp.url);
    ops = operator(app.url);
    // Room for every order these tests take (the marketplace search offers only what the fleet has free).
    for (let i = 0; i < 20; i++) await ops.vehicle('standard_car');
  });
  afterAll(async () => {
    await app.close();
    await mp.stop();
  });
  afterEach(() => clock.set(NOW));

  /** An order booked through the simulator and confirmed to it: its job, ready to dispatch. */
  async function confirmedOrder() {
    const search = await drive('search', SEARCH);
    const vehicle = search.response.body.vehicles.find((v: any) => v.vehicle_id === 'standard_car');
    await drive('lock', { vehicle_id: vehicle.vehicle_id, price_mark: vehicle.price_mark });
    const booked = await drive('book', {
      order: {
        ...SEARCH,
        price_mark: vehicle.price_mark,
        vehicle_id: 'standard_car',
        price: vehicle.price,
        currency: 'EUR',
        meeting_type: 'MG',
        customer: { name: 'Anna Schmidt', phone: '+491701234567' },
      },
    });
    const orderId = booked.order.order.order_id as string;
    expect(await deliver()).toMatchObject({ delivered: 1 });
    const [job] = await ops.jobs({ order_id: orderId });
    expect(job).toMatchObject({ source: 'marketplace', order_id: orderId, booking_ref: null, status: 'confirmed', pickup_at: '2026-12-01T04:00:00.000Z' });
    /** The order as the marketplace posted it. */
    const sent: Record<string, unknown> = JSON.parse(booked.request.body!);
    return { orderId, job, sent };
  }

  async function dispatched() {
    const order = await confirmedOrder();
    const driver = await ops.driver('Sunil Fernando', '+94 77 123 4567');
    const car = await ops.vehicle('standard_car', { brand: 'Toyota', model: 'Axio', colour: 'white' });
    const r = await ops.call('POST', `/jobs/${order.job.job_id}/assign`, { body: { driver_id: driver.driver_id, vehicle_id: car.vehicle_id } });
    expect(r.status).toBe(200);
    return { ...order, driver, car };
  }

  const locate = (jobId: string, body: object) => ops.call('POST', `/jobs/${jobId}/location`, { body });
  const waiting = (orderId: string, kind: string) => app.db('outbox').where({ orderId, kind, status: 'pending' });

  it('when a marketplace job gets its driver, then one signed, audited driver-info call carries the driver and the vehicle', async () => {
    const { orderId, car } = await dispatched();
    expect(await deliver()).toEqual({ delivered: 1, retried: 0, failed: 0 });
    const [info, ...more] = await calls('sendDriverInfo', orderId);
    expect(more).toEqual([]);
    expect(info).toMatchObject({ method: 'POST', path: `/apiin/${USER_ID}/booking/driver/`, signature_ok: true, status: 200 });
    expect(JSON.parse(info.body)).toEqual({
      order_id: orderId,
      driver: { name: 'Sunil Fernando', phone: '+94 77 123 4567' },
      vehicle: { brand_id: expect.any(Number), brand: 'Toyota', model: 'Axio', plate: car.plate, color: 'white' },
    });
    expect((await sim('GET', `/__sim/orders/${orderId}`)).body.driver).toMatchObject({ driver: { name: 'Sunil Fernando' } });
    const audit = (await ops.audit({ surface: 'marketplace', direction: 'outbound', limit: '500' })).filter(
      (a) => a.path === `/apiin/${USER_ID}/booking/driver/`,
    );
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ status: 200, request_body: JSON.parse(info.body) });
    expect(audit[0].request_headers.privatekey).toBe('[REDACTED]');
  });

  it('when the driver is replaced, then the marketplace hears of the new driver once', async () => {
    const { orderId, job } = await dispatched();
    await deliver();
    const nimal = await ops.driver('Nimal Silva', '+94 71 555 0101');
    const van = await ops.vehicle('standard_car', { brand: 'Suzuki', model: 'Wagon R', colour: 'blue' });
    await ops.call('POST', `/jobs/${job.job_id}/assign`, { body: { driver_id: nimal.driver_id, vehicle_id: van.vehicle_id } });
    expect(await deliver()).toMatchObject({ delivered: 1 });
    const infos = (await calls('sendDriverInfo', orderId)).map((c) => JSON.parse(c.body));
    expect(infos.map((i) => i.driver.name)).toEqual(['Sunil Fernando', 'Nimal Silva']);
    expect(infos[1].vehicle).toMatchObject({ brand: 'Suzuki', model: 'Wagon R', color: 'blue' });
  });

  it('when positions come before the job is live, then they are kept but not forwarded', async () => {
    const { orderId, job } = await dispatched();
    await deliver();
    clock.set('2026-12-01T02:30:00Z'); // 90 minutes before pickup
    const r = await locate(job.job_id, { lat: 6.95, lon: 79.9 });
    expect(r.status).toBe(202);
    expect(r.body.forwarded).toBe(false);
    expect(await waiting(orderId, 'driver_location')).toHaveLength(0);
    expect((await ops.call('GET', `/jobs/${job.job_id}`)).body.last_location).toEqual({ lat: 6.95, lon: 79.9, at: '2026-12-01T02:30:00.000Z' });
  });

  it('when the job is live, then positions are forwarded at most one per 30 seconds, the newest winning, and never after completion', async () => {
    const { orderId, job } = await dispatched();
    await deliver();
    clock.set('2026-12-01T03:30:00Z'); // half an hour before pickup: live
    for (const [i, lat] of [7.1, 7.101, 7.102, 7.103, 7.104].entries()) {
      clock.set(new Date(Date.parse('2026-12-01T03:30:00Z') + i * 5_000).toISOString());
      expect((await locate(job.job_id, { lat, lon: 79.88 })).body.forwarded).toBe(true);
    }
    expect(await waiting(orderId, 'driver_location')).toHaveLength(1);
    expect(await deliver()).toMatchObject({ delivered: 1 });
    let sent = (await calls('sendDriverLocation', orderId)).map((c) => JSON.parse(c.body));
    expect(sent).toEqual([{ order_id: orderId, lat: 7.104, lon: 79.88, at: '2026-12-01 09:00:20' }]);

    // The next half-minute: one more.
    clock.set('2026-12-01T03:30:31Z');
    await locate(job.job_id, { lat: 7.2, lon: 79.87 });
    await deliver();
    sent = (await calls('sendDriverLocation', orderId)).map((c) => JSON.parse(c.body));
    expect(sent.map((s) => s.lat)).toEqual([7.104, 7.2]);

    clock.set('2026-12-01T06:00:00Z');
    expect((await ops.call('POST', `/jobs/${job.job_id}/complete`)).body.status).toBe('completed');
    const after = await locate(job.job_id, { lat: 6.03, lon: 80.21 });
    expect(after.status).toBe(409);
    expect(after.body.error.details).toMatchObject({ reason: 'job_closed', status: 'completed' });
    expect(await waiting(orderId, 'driver_location')).toHaveLength(0);
  });

  it('when the marketplace is down, then one position per order waits, not a backlog of stale ones', async () => {
    const { orderId, job } = await dispatched();
    await deliver();
    await sim('POST', '/__sim/scenarios', { body: { fail_next: { count: 1000, status: 503 } } });
    try {
      for (const [i, lat] of [7.0, 7.01, 7.02, 7.03, 7.04, 7.05].entries()) {
        clock.set(new Date(Date.parse('2026-12-01T03:40:00Z') + i * 60_000).toISOString());
        await locate(job.job_id, { lat, lon: 79.9 });
        await deliver();
      }
      const left = await waiting(orderId, 'driver_location');
      expect(left).toHaveLength(1);
      expect(left[0].payload).toMatchObject({ lat: 7.05, at: '2026-12-01 09:15:00' });
    } finally {
      await sim('POST', '/__sim/scenarios', { body: { fail_next: null } });
    }
    clock.set('2026-12-01T03:46:00Z');
    await deliver();
    const sent = (await calls('sendDriverLocation', orderId)).filter((c) => c.status === 200).map((c) => JSON.parse(c.body));
    expect(sent).toEqual([{ order_id: orderId, lat: 7.05, lon: 79.9, at: '2026-12-01 09:15:00' }]);
  });

  it('when a no-show is reported within 24 hours after pickup, then the report carries the track around pickup and the note', async () => {
    const { orderId, job } = await dispatched();
    await deliver();
    clock.set('2026-12-01T03:50:00Z');
    await locate(job.job_id, { lat: 7.1801, lon: 79.8843 });
    clock.set('2026-12-01T05:10:00Z');
    await locate(job.job_id, { lat: 7.1802, lon: 79.8844 });
    await deliver();

    const early = await ops.call('POST', `/jobs/${job.job_id}/no-show`, { body: { note: 'x' } });
    expect(early.status).toBe(200); // 70 minutes after pickup: allowed
    expect(early.body.status).toBe('no_show');
    expect(await deliver()).toMatchObject({ delivered: 1 });
    const [report] = await calls('reportNoShow', orderId);
    expect(report).toMatchObject({ path: `/apiin/${USER_ID}/booking/noshow/`, signature_ok: true, status: 200 });
    expect(JSON.parse(report.body)).toEqual({
      order_id: orderId,
      evidence: {
        gps_track: [
          { lat: 7.1801, lon: 79.8843, at: '2026-12-01 09:20:00' },
          { lat: 7.1802, lon: 79.8844, at: '2026-12-01 10:40:00' },
        ],
        comment: 'x Last position 7.18020, 79.88440 at 2026-12-01 10:40 (Sri Lanka time).',
      },
    });
    expect((await sim('GET', `/__sim/orders/${orderId}`)).body.status).toBe('no_show');
    expect((await app.db('marketplace_orders').where({ orderId }).first()).state).toBe('no_show');
  });

  it('when the driver reports a no-show from the app, then the report carries the arrival time, the minutes waited and the last position', async () => {
    const { orderId, job, driver } = await dispatched();
    await deliver();
    const token = (await ops.driverToken(driver.driver_id)).token;
    const drv = (path: string, body: object) => client(app.url)('POST', `/driver/v1${path}`, { key: token, body });
    clock.set('2026-12-01T03:30:00Z');
    expect((await drv(`/jobs/${job.job_id}/status`, { status: 'en_route' })).status).toBe(200);
    expect((await drv('/location', { lat: 7.1805, lon: 79.8846 })).body.job_id).toBe(job.job_id);
    clock.set('2026-12-01T03:55:00Z');
    expect((await drv(`/jobs/${job.job_id}/status`, { status: 'arrived' })).status).toBe(200);
    expect((await drv('/location', { lat: 7.1801, lon: 79.8843 })).status).toBe(202);
    await deliver();
    // The positions reached the marketplace through the outbox while the job was live.
    expect((await calls('sendDriverLocation', orderId)).length).toBeGreaterThan(0);
    clock.set('2026-12-01T05:04:00Z');
    const gone = await drv(`/jobs/${job.job_id}/status`, { status: 'no_show', note: 'Waited at arrivals exit.' });
    expect(gone.status).toBe(200);
    expect(await deliver()).toMatchObject({ delivered: 1 });
    const [report] = await calls('reportNoShow', orderId);
    const body = JSON.parse(report.body);
    expect(body.evidence.comment).toBe(
      'Waited at arrivals exit. Driver arrived at 2026-12-01 09:25 (Sri Lanka time) and waited 64 minutes after the pickup time. ' +
        'Last position 7.18010, 79.88430 at 2026-12-01 09:25 (Sri Lanka time).',
    );
    expect(body.evidence.gps_track).toEqual([
      { lat: 7.1805, lon: 79.8846, at: '2026-12-01 09:00:00' },
      { lat: 7.1801, lon: 79.8843, at: '2026-12-01 09:25:00' },
    ]);
  });

  it('when an order is posted again after its transfer is over, then the answer names how it ended: completed or no_show', async () => {
    const done = await dispatched();
    await deliver();
    const missed = await dispatched();
    await deliver();
    clock.set('2026-12-01T06:00:00Z');
    expect((await ops.call('POST', `/jobs/${done.job.job_id}/complete`)).body.status).toBe('completed');
    expect((await ops.call('POST', `/jobs/${missed.job.job_id}/no-show`, { body: { note: 'No one at the exit.' } })).body.status).toBe('no_show');
    const signed = marketplaceClient(app.url);
    for (const [{ orderId, sent }, ended] of [
      [done, 'completed'],
      [missed, 'no_show'],
    ] as const) {
      // Other bytes than the first post (a replay would get the first answer back): the order as it stands now.
      const again = await signed.signed('POST', '/booking/', { ...sent, comment: 'Posted again.' });
      expect(again.status).toBe(200);
      expect(again.body).toEqual({ status: 'OK', order_id: orderId, supplier_order_id: expect.stringMatching(/^MO-/), order_state: ended });
    }
  });

  it('when a no-show is reported before pickup or a day after, then 409 and nothing is sent', async () => {
    const { orderId, job } = await dispatched();
    await deliver();
    clock.set('2026-12-01T03:00:00Z');
    expect((await ops.call('POST', `/jobs/${job.job_id}/no-show`, { body: { note: 'too soon' } })).body.error.details.reason).toBe('too_early');
    clock.set('2026-12-02T04:00:01Z');
    expect((await ops.call('POST', `/jobs/${job.job_id}/no-show`, { body: { note: 'too late' } })).body.error.details.reason).toBe('too_late');
    expect(await app.db('outbox').where({ orderId, kind: 'no_show' })).toHaveLength(0);
  });

  it('when the marketplace cancels an order with a driver, then the driver and vehicle are free again', async () => {
    const { orderId, job, driver, car } = await dispatched();
    await deliver();
    const other = await confirmedOrder();
    const taken = await ops.call('POST', `/jobs/${other.job.job_id}/assign`, { body: { driver_id: driver.driver_id, vehicle_id: car.vehicle_id } });
    expect(taken.body.error.code).toBe('assignment_conflict');
    expect((await drive('cancel', { order_id: orderId })).response.status).toBe(200);
    expect((await ops.call('GET', `/jobs/${job.job_id}`)).body.status).toBe('cancelled');
    expect((await ops.call('POST', `/jobs/${other.job.job_id}/assign`, { body: { driver_id: driver.driver_id, vehicle_id: car.vehicle_id } })).status).toBe(
      200,
    );
  });

  it('when partner bookings are dispatched, then nothing goes to the marketplace', async () => {
    await deliver();
    const partner = await ops.partnerWithKeys('Quiet Partner');
    const call = client(app.url);
    const q = await call('POST', '/transfers/v1/quotes', {
      key: partner.liveKey,
      body: { pickup: { iata: 'CMB' }, dropoff: { name: 'Kandy' }, pickup_datetime: '2026-12-03T09:30:00+05:30', passengers: { adults: 2 } },
    });
    const b = await call('POST', '/transfers/v1/bookings', {
      key: partner.liveKey,
      body: {
        quote_id: q.body.quote_id,
        offer_id: q.body.offers.find((o: any) => o.vehicle_code === 'standard_car').offer_id,
        partner_reference: 'QUIET-1',
        passenger: { first_name: 'A', last_name: 'B' },
        passengers: { adults: 2 },
        flight_number: 'UL504',
      },
    });
    const [job] = await ops.jobs({ booking_ref: b.body.booking_ref });
    const before = await app.db('outbox').count<{ count: string }[]>('* as count');
    await ops.call('POST', `/jobs/${job.job_id}/assign`, {
      body: { driver_id: (await ops.driver('P')).driver_id, vehicle_id: (await ops.vehicle('standard_car')).vehicle_id },
    });
    clock.set('2026-12-03T03:50:00Z');
    await locate(job.job_id, { lat: 7.18, lon: 79.88 });
    clock.set('2026-12-03T05:00:00Z');
    await ops.call('POST', `/jobs/${job.job_id}/no-show`, { body: { note: 'Not there' } });
    expect(await app.db('outbox').count<{ count: string }[]>('* as count')).toEqual(before);
  });

  it('when a plan for the day is applied, then the marketplace order gets the same signed driver-info call as a manual assignment', async () => {
    const { orderId, job } = await confirmedOrder();
    // Enough planned drivers for every open order of the day these tests left (all at 09:30).
    const planned = [];
    for (let i = 0; i < 12; i++) {
      const d = await ops.driver(`Planned Driver ${i}`, `+94 77 000 00${String(i).padStart(2, '0')}`);
      const car = await ops.vehicle('standard_car');
      await ops.call('PATCH', `/drivers/${d.driver_id}`, { body: { base: { name: 'Negombo' }, usual_vehicle_id: car.vehicle_id } });
      await ops.call('PUT', `/drivers/${d.driver_id}/shifts`, { body: { weekly: [{ weekday: 2, starts: '05:00', ends: '22:00' }] } });
      planned.push(d.driver_id);
    }
    const plan = await ops.call('POST', '/dispatch/plans', { body: { date: '2026-12-01' } });
    const proposal = plan.body.assignments.find((a: any) => a.job_id === job.job_id);
    expect(proposal).toMatchObject({ change: 'new', driver_id: expect.any(String) });
    expect(planned).toContain(proposal.driver_id);
    const applied = await ops.call('POST', `/dispatch/plans/${plan.body.plan_id}/apply`);
    expect(applied.body.applied).toContain(job.job_id);
    await deliver();
    const [info] = await calls('sendDriverInfo', orderId);
    expect(info).toMatchObject({ signature_ok: true, status: 200 });
    expect(JSON.parse(info.body)).toMatchObject({ order_id: orderId, driver: { name: expect.stringMatching(/^Planned Driver \d+$/) } });
  });
});
