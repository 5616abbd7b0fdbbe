import { startTestApp, type TestApp } from '../support/test-app';
import { eventually } from '../support/eventually';
import { client } from '../support/http';
import { operator } from '../support/fixtures';
import { MARKETPLACE_ENV } from '../support/marketplace';
import { ManualClock } from '../../src/shared/clock';
import { startMarketplaceSim, type RunningMarketplaceSim } from '../../simulators/marketplace/app';
import { createPartnerClient, type PartnerClient } from '../../simulators/partner/client';
import { sampleMarketplaceOrder } from '../../harness/fixtures/marketplace-orders';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createFlightSimulator } from '../../simulators/flights/app';
import { createHttpFlightStatus } from '../../src/adapters/flights/http-flight-status';
import { pollFlightsOnce } from '../../src/domain/flights/poll-flights';
import { autoDispatchOnce } from '../../src/domain/dispatch/auto-dispatch';

const { MARKETPLACE_USER_ID: USER_ID, MARKETPLACE_PRIVATE_KEY: KEY, MARKETPLACE_CALLBACK_TOKEN: TOKEN, MARKETPLACE_IN_URL: IN_URL } = MARKETPLACE_ENV;

/** Polls until `check` returns a value (the outbox worker delivers in the background, once a second). */

/**
 * One day on the service, with everything running for real: the service (with its background outbox worker),
 * the marketplace simulator over HTTP, and a partner integration built on the partner simulator's client.
 */
describe('A day in the life', () => {
  let app: TestApp;
  let mp: RunningMarketplaceSim;
  let sim: ReturnType<typeof client>;
  let partner: PartnerClient;
  const clock = new ManualClock('2026-11-21T06:00:00Z');

  const drive = async (action: string, body: unknown) => {
    const r = await sim('POST', `/__sim/drive/${action}`, { body });
    expect(r.status).toBe(200);
    return r.body as { response: { status: number; body: any }; order?: any };
  };
  const simCalls = async (query: string) => (await sim('GET', `/__sim/calls${query}`)).body.calls as Array<Record<string, any>>;
  const confirmedAtMarketplace = (orderId: string) =>
    eventually(`the confirmation of ${orderId} at the marketplace`, async () => {
      const calls = await simCalls(`?operation=confirmOrder&order_id=${orderId}`);
      return calls.some((c) => c.status === 200) ? calls : undefined;
    });

  const flights = createFlightSimulator({ now: () => clock.now() });
  let flightServer: http.Server;
  let flightsUrl: string;

  beforeAll(async () => {
    flightServer = http.createServer(flights.app).listen(0, '127.0.0.1');
    await new Promise((resolve) => flightServer.once('listening', resolve));
    flightsUrl = `http://127.0.0.1:${(flightServer.address() as AddressInfo).port}`;
    mp = await startMarketplaceSim({ userId: USER_ID, privateKey: KEY });
    app = await startTestApp({ clock, env: { ...MARKETPLACE_ENV, MARKETPLACE_URL: mp.url } });
    mp.sim.setSupplier({ inUrl: IN_URL, baseUrl: `${app.url}/marketplace`, callbackToken: TOKEN });
    sim = client(mp.url);
    const account = await operator(app.url).partnerWithKeys('Island Holidays');
    partner = createPartnerClient({ baseUrl: app.url, apiKey: account.liveKey });
  });
  afterAll(async () => {
    await app.close();
    await mp.stop();
    await new Promise((resolve) => flightServer.close(resolve));
  });

  it('partners and the marketplace book, confirmations arrive, operators dispatch, drivers move, one job completes, one is a no-show', async () => {
    const ops = operator(app.url);
    // 05:30 — the operator's fleet for the day: a car, a van and an SUV, and their drivers.
    const car = await ops.vehicle('standard_car', { brand: 'Toyota', model: 'Axio', colour: 'white', plate: 'CBG-7781' });
    const van = await ops.vehicle('standard_van', { brand: 'Toyota', model: 'HiAce KDH', colour: 'silver', plate: 'PH-7034' });
    const suv = await ops.vehicle('suv', { brand: 'Mitsubishi', model: 'Montero', colour: 'white', plate: 'CAW-4587' });
    const spare = await ops.vehicle('standard_car', { brand: 'Suzuki', model: 'Wagon R', colour: 'red', plate: 'CAD-1290' });
    const sunil = await ops.driver('Sunil Fernando', '+94 77 123 4567');
    const rizwan = await ops.driver('Mohamed Rizwan', '+94 71 234 5678');
    const chaminda = await ops.driver('Chaminda Perera', '+94 76 345 6789');
    const nuwan = await ops.driver('Nuwan Jayasuriya', '+94 70 456 7890');
    // Where each starts from, what each drives, and when each works (Tuesday 1 December is weekday 2).
    const crew = async (d: { driver_id: string }, base: string, vehicleId: string, days: number[], ends: string) => {
      expect((await ops.call('PATCH', `/drivers/${d.driver_id}`, { body: { base: { name: base }, usual_vehicle_id: vehicleId } })).status).toBe(200);
      const weekly = days.map((weekday) => ({ weekday, starts: '05:00', ends }));
      expect((await ops.call('PUT', `/drivers/${d.driver_id}/shifts`, { body: { weekly } })).status).toBe(200);
    };
    await crew(sunil, 'Kandy', car.vehicle_id, [2], '20:00');
    await crew(nuwan, 'Galle', spare.vehicle_id, [2], '16:00');
    await crew(rizwan, 'Kandy', van.vehicle_id, [1, 2, 3, 4, 5, 6, 7], '20:00');
    await crew(chaminda, 'Ella', suv.vehicle_id, [1, 2, 3, 4, 5, 6, 7], '20:00');

    // 06:00 — a travel agency quotes an airport pickup to a Galle hotel and books the standard car.
    expect((await partner.ping()).data).toMatchObject({ env: 'production', ok: true });
    const quote = await partner.createQuote({
      pickup: { iata: 'CMB' },
      dropoff: { name: 'Jetwing Lighthouse, Galle' },
      pickup_datetime: '2026-12-01T09:30:00+05:30',
      passengers: { adults: 2, luggage: 2 },
    });
    expect(quote.status).toBe(200);
    // Only what the fleet has free for that window is offered.
    expect(quote.data!.offers.map((o) => o.vehicle_code).sort()).toEqual(['standard_car', 'standard_van', 'suv']);
    const offer = quote.data!.offers.find((o) => o.vehicle_code === 'standard_car')!;
    const bookingBody = {
      quote_id: quote.data!.quote_id,
      offer_id: offer.offer_id,
      partner_reference: 'IH-2026-0042',
      passenger: { first_name: 'Ayesha', last_name: 'Perera', email: 'ayesha@example.com' },
      passengers: { adults: 2, luggage: 2 },
      flight_number: 'UL504',
    };
    const booked = await partner.createBooking(bookingBody, { idempotencyKey: 'ih-0042-attempt' });
    expect(booked.status).toBe(201);
    expect(booked.data).toMatchObject({ status: 'confirmed', price: offer.price, driver: null, dropoff: { name: 'Jetwing Lighthouse, Galle' } });
    const ref = booked.data!.booking_ref;
    // Their network drops the answer; they retry with the same key and get the same booking.
    const retried = await partner.createBooking(bookingBody, { idempotencyKey: 'ih-0042-attempt' });
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(retried.data!.booking_ref).toBe(ref);
    // A second booking, for a trip the client will call off late, inside a fee tier of the agency's terms.
    const q2 = await partner.createQuote({
      pickup: { name: 'Galle' },
      dropoff: { iata: 'CMB' },
      pickup_datetime: '2026-12-01T20:00:00+05:30',
      passengers: { adults: 2, luggage: 2 },
    });
    // Free until 12 hours before pickup, then 50 %, then 100 % from 2 hours before: the default terms.
    expect(q2.data!.offers[0].cancellation_policy).toMatchObject({
      free_until: '2026-12-01T02:30:00.000Z',
      fees: [
        { from: '2026-12-01T02:30:00.000Z', percent: 50 },
        { from: '2026-12-01T12:30:00.000Z', percent: 100 },
      ],
    });
    const second = await partner.createBooking({
      ...bookingBody,
      quote_id: q2.data!.quote_id,
      offer_id: q2.data!.offers[0].offer_id,
      partner_reference: 'IH-2026-0043',
      flight_number: undefined,
    });
    expect(second.status).toBe(201);

    // 07:00 — the marketplace searches, locks a quote and books the van for a family from Kandy.
    clock.advance(60 * 60 * 1000);
    const search = await drive('search', { from: { name: 'Kandy' }, to: { iata: 'CMB' }, date: '2026-12-02 07:00:00', adults: 4, children: 1, luggage: 4 });
    const vanOffer = search.response.body.vehicles.find((v: any) => v.vehicle_id === 'standard_van');
    const locked = await drive('lock', { vehicle_id: vanOffer.vehicle_id, price_mark: vanOffer.price_mark });
    expect(locked.response.body.vehicle.price).toBe(vanOffer.price);
    const order = await drive('book', {
      order: { ...sampleMarketplaceOrder('ignored'), order_id: undefined, state: undefined, price_mark: vanOffer.price_mark, price: vanOffer.price },
    });
    const orderId = order.order.order.order_id as string;
    expect(order.response.body).toMatchObject({ status: 'OK', order_id: orderId, order_state: 'confirmed' });
    // The confirmation reaches the marketplace by itself (outbox worker), signed, exactly once.
    const confirms = await confirmedAtMarketplace(orderId);
    expect(confirms.filter((c) => c.status === 200)).toHaveLength(1);
    expect(confirms.every((c) => c.signature_ok)).toBe(true);
    expect((await sim('GET', `/__sim/orders/${orderId}`)).body.status).toBe('confirmed');

    // 08:00 — an order arrives as a callback whose body is not the order: the service re-fetches it.
    clock.advance(60 * 60 * 1000);
    await sim('POST', '/__sim/scenarios', { body: { callback_body_override: { price: '1.00', customer: { name: 'Mallory' } } } });
    const cbOrder = sampleMarketplaceOrder('INT-900001', {
      state: undefined,
      from: { name: 'Ella' },
      to: { name: 'Kandy' },
      adults: 2,
      children: 0,
      luggage: 2,
      vehicle_id: 'suv',
      price: '120.00',
    });
    const cb = await drive('callback', { type: 'new', order: cbOrder });
    expect(cb.response).toMatchObject({ status: 200, body: { order_state: 'confirmed' } });
    const stored = await app.db('marketplace_orders').where({ orderId: 'INT-900001' }).first();
    expect(stored.order).toMatchObject({ price: '120.00', customer: { name: 'Anna Schmidt' } });
    expect(await simCalls('?operation=getOrder&order_id=INT-900001')).toHaveLength(1);
    await confirmedAtMarketplace('INT-900001');

    // One fleet, one schedule: all four journeys are jobs.
    const jobs = await ops.jobs({});
    expect(jobs.map((j) => [j.source, j.booking_ref ?? j.order_id, j.status, j.fleet_code])).toEqual([
      ['partner', ref, 'confirmed', 'standard_car'],
      ['partner', second.data!.booking_ref, 'confirmed', 'standard_car'],
      ['marketplace', orderId, 'confirmed', 'standard_van'],
      ['marketplace', 'INT-900001', 'confirmed', 'suv'],
    ]);
    const [agencyJob, , vanJob, suvJob] = jobs;
    expect(agencyJob.dropoff).toMatchObject({ name: 'Jetwing Lighthouse, Galle', resolved_name: 'Galle' });

    // 09:00 — the automatic pass dispatches the days ahead: each job to the driver it costs the least empty driving,
    // the evening trip left open (nobody works at 20:00 on Tuesday). The agency sees its driver; the marketplace gets
    // driver info for its orders.
    clock.advance(60 * 60 * 1000);
    const planned = await autoDispatchOnce(app.deps, { holder: 'e2e', aheadHours: 11 * 24, lockHours: 6 });
    expect(planned.map((p) => [p.date, p.applied])).toEqual([
      ['2026-12-01', 1],
      ['2026-12-02', 2],
    ]);
    const dispatched = async (jobId: string) => {
      const j = (await ops.call('GET', `/jobs/${jobId}`)).body;
      return [j.driver?.name ?? null, j.vehicle?.plate ?? null, j.assigned_by];
    };
    expect(await dispatched(agencyJob.job_id)).toEqual(['Nuwan Jayasuriya', 'CAD-1290', 'plan']);
    expect(await dispatched(vanJob.job_id)).toEqual(['Mohamed Rizwan', 'PH-7034', 'plan']);
    expect(await dispatched(suvJob.job_id)).toEqual(['Chaminda Perera', 'CAW-4587', 'plan']);
    expect(await dispatched(jobs[1].job_id)).toEqual([null, null, null]);
    // The agency asked for Sunil, who knows the family: the operator overrides the pass by hand, and a later pass
    // keeps it so.
    const assign = (jobId: string, driverId: string, vehicleId: string) =>
      ops.call('POST', `/jobs/${jobId}/assign`, { body: { driver_id: driverId, vehicle_id: vehicleId } });
    expect((await assign(agencyJob.job_id, sunil.driver_id, car.vehicle_id)).status).toBe(200);
    clock.advance(20 * 60 * 1000);
    await autoDispatchOnce(app.deps, { holder: 'e2e', aheadHours: 11 * 24, lockHours: 6 });
    expect(await dispatched(agencyJob.job_id)).toEqual(['Sunil Fernando', 'CBG-7781', 'operator']);
    // Rizwan cannot take the SUV job as well: he drives the van that same morning.
    expect((await assign(suvJob.job_id, rizwan.driver_id, suv.vehicle_id)).body.error.code).toBe('assignment_conflict');
    expect((await partner.getBooking(ref)).data).toMatchObject({
      status: 'driver_assigned',
      driver: { name: 'Sunil Fernando', phone: '+94 77 123 4567', vehicle: 'Toyota Axio (white)', plate: 'CBG-7781' },
    });
    const driverInfo = await eventually('driver info for INT-900001', async () => {
      const calls = await simCalls('?operation=sendDriverInfo&order_id=INT-900001');
      return calls.find((c) => c.status === 200);
    });
    expect(JSON.parse(driverInfo.body)).toMatchObject({
      driver: { name: 'Chaminda Perera' },
      vehicle: { brand: 'Mitsubishi', model: 'Montero', plate: 'CAW-4587' },
    });

    // 10:00 — the traveller's flight changes, and she wants a name board for the surfboards: the agency amends the
    // booking with the ETag it last read. The driver keeps the job; his board shows the notes.
    clock.advance(60 * 60 * 1000);
    const current = await partner.getBooking(ref);
    const amended = await partner.amendBooking(
      ref,
      { flight_number: 'UL 506', notes: 'Sign: Perera family (2 surfboards)' },
      { ifMatch: current.headers.get('etag')!, idempotencyKey: 'ih-0042-flight' },
    );
    expect(amended.status).toBe(200);
    expect(amended.headers.get('etag')).toBe('"2"');
    expect(amended.data).toMatchObject({ version: 2, status: 'driver_assigned', flight_number: 'UL506', notes: 'Sign: Perera family (2 surfboards)' });
    expect((await ops.call('GET', `/jobs/${agencyJob.job_id}`)).body).toMatchObject({
      status: 'driver_assigned',
      flight_number: 'UL506',
      notes: 'Sign: Perera family (2 surfboards)',
    });
    // A second amendment on the stale ETag is refused, not applied over the first.
    const stale = await partner.amendBooking(ref, { notes: 'Sign: Perera' }, { ifMatch: current.headers.get('etag')! });
    expect(stale.status).toBe(412);
    expect(stale.error).toMatchObject({ code: 'precondition_failed', details: { current_version: 2 } });

    // 18:00 — the marketplace cancels the van order (freeing Rizwan and the van).
    clock.advance(8 * 60 * 60 * 1000);
    const mpCancel = await drive('cancel', { order_id: orderId, reason: 'client changed plans' });
    expect(mpCancel.response.body).toMatchObject({ status: 'OK', order_state: 'cancelled' });
    expect((await ops.call('GET', `/jobs/${vanJob.job_id}`)).body).toMatchObject({ status: 'cancelled' });

    // 1 December — Ayesha's flight is 25 minutes late: the flight poller (against the flight simulator) moves the
    // pickup, and the agency is told; the booked pickup stays.
    const pickupAt = Date.parse(agencyJob.pickup_at);
    const minutes = (m: number) => new Date(pickupAt + m * 60_000).toISOString();
    flights.script({ flight_number: 'UL506', date: '2026-12-01', scheduled_arrival: agencyJob.pickup_at, scenario: 'delayed', minutes: 25 });
    clock.set(minutes(-240));
    expect(await pollFlightsOnce(app.deps, createHttpFlightStatus({ url: flightsUrl }))).toEqual({ checked: 1, failed: 0 });
    expect((await partner.getBooking(ref)).data).toMatchObject({
      pickup_datetime: booked.data!.pickup_datetime,
      pickup_estimated_at: minutes(25),
      flight: { number: 'UL506', status: 'delayed', estimated_arrival: minutes(25) },
    });

    // Sunil drives the ride from his phone (the driver API the driver app calls): on the way, at the airport,
    // Ayesha on board, and at the hotel in Galle. The agency sees each state and where he is.
    const phone = (await ops.driverToken(sunil.driver_id)).token;
    const drv = (path: string, body: object) => client(app.url)('POST', `/driver/v1${path}`, { key: phone, body });
    clock.set(minutes(-60));
    expect((await drv(`/jobs/${agencyJob.job_id}/status`, { status: 'en_route' })).body.status).toBe('en_route');
    expect((await drv('/location', { lat: 7.1801, lon: 79.8843 })).status).toBe(202);
    expect((await partner.getBooking(ref)).data).toMatchObject({ status: 'driver_en_route', driver: { location: { lat: 7.1801, lon: 79.8843 } } });
    clock.set(minutes(20));
    expect((await drv(`/jobs/${agencyJob.job_id}/status`, { status: 'arrived' })).body.waiting).toMatchObject({ free_minutes: 60, no_show_from: minutes(85) });
    clock.set(minutes(35));
    expect((await drv(`/jobs/${agencyJob.job_id}/status`, { status: 'on_board' })).body.status).toBe('on_board');
    clock.set('2026-12-01T07:10:00Z');
    expect((await drv(`/jobs/${agencyJob.job_id}/status`, { status: 'completed' })).body.status).toBe('completed');
    expect((await partner.getBooking(ref)).data).toMatchObject({ status: 'completed', driver: { name: 'Sunil Fernando', location: null } });
    // The evening's trip is called off at 12:40 in Sri Lanka, 7 h 20 before pickup: the agency checks the fee, then
    // cancels, at half the price, as the policy said when it booked.
    const price = second.data!.price;
    const feeCents = Math.round(Math.round(price * 100) / 2);
    const fee = feeCents / 100;
    const preview = await partner.previewCancellation(second.data!.booking_ref);
    expect(preview.data).toMatchObject({ cancellable: true, fee, as_of: '2026-12-01T07:10:00.000Z' });
    const cancelled = await partner.cancelBooking(second.data!.booking_ref);
    expect(cancelled.data).toMatchObject({ status: 'cancelled', cancelled_at: '2026-12-01T07:10:00.000Z', cancellation_fee: fee });
    // The agency catches up on its events instead of polling each booking: each booking's story, in sequence.
    const events = await eventually("the agency's events", async () => {
      const listed = (await partner.listEvents({ limit: 100 })).data?.data ?? [];
      return listed.length >= 6 ? listed : undefined;
    });
    const story = (bookingRef: string) =>
      events.filter((e) => 'booking' in e.data && e.data.booking?.booking_ref === bookingRef).map((e) => [e.type, e.sequence]);
    expect(story(ref)).toEqual([
      ['booking.confirmed', 1],
      ['booking.driver_assigned', 2], // the automatic pass: Nuwan
      ['booking.driver_assigned', 3], // the operator's override: Sunil
      ['booking.amended', 4],
      ['booking.flight_updated', 5],
      ['booking.driver_en_route', 6],
      ['booking.driver_arrived', 7],
      ['booking.passenger_on_board', 8],
      ['booking.completed', 9],
    ]);
    expect(story(second.data!.booking_ref)).toEqual([
      ['booking.confirmed', 1],
      ['booking.cancelled', 2],
    ]);

    // 2 December — Chaminda waits in Ella; the marketplace tracks him; the passenger never comes.
    clock.set('2026-12-02T01:15:00Z'); // 06:45 in Sri Lanka, a quarter of an hour before pickup
    await ops.call('POST', `/jobs/${suvJob.job_id}/location`, { body: { lat: 6.8667, lon: 81.0466 } });
    const position = await eventually('a driver position at the marketplace', async () => {
      const calls = await simCalls('?operation=sendDriverLocation&order_id=INT-900001');
      return calls.find((c) => c.status === 200);
    });
    expect(JSON.parse(position.body)).toEqual({ order_id: 'INT-900001', lat: 6.8667, lon: 81.0466, at: '2026-12-02 06:45:00' });
    clock.set('2026-12-02T02:45:00Z'); // 08:15: an hour and a quarter after pickup
    const noShow = await ops.call('POST', `/jobs/${suvJob.job_id}/no-show`, {
      body: { note: 'Waited at the hotel lobby until 08:15; the guest did not answer calls.' },
    });
    expect(noShow.body.status).toBe('no_show');
    const report = await eventually('the no-show report', async () =>
      (await simCalls('?operation=reportNoShow&order_id=INT-900001')).find((c) => c.status === 200),
    );
    expect(JSON.parse(report.body).evidence).toEqual({
      gps_track: [{ lat: 6.8667, lon: 81.0466, at: '2026-12-02 06:45:00' }],
      comment: 'Waited at the hotel lobby until 08:15; the guest did not answer calls. Last position 6.86670, 81.04660 at 2026-12-02 06:45 (Sri Lanka time).',
    });
    expect((await sim('GET', '/__sim/orders/INT-900001')).body.status).toBe('no_show');

    expect((await ops.jobs({})).map((j) => j.status)).toEqual(['completed', 'cancelled', 'cancelled', 'no_show']);
    // The agency's statement of 1 December: the completed trip at its price, the cancelled one at its fee.
    const statement = (await partner.getStatement('2026-12-01', '2026-12-01')).data!;
    expect(statement.lines.map((l) => [l.partner_reference, l.status, l.amount_due, l.final])).toEqual([
      ['IH-2026-0042', 'completed', offer.price, true],
      ['IH-2026-0043', 'cancelled', fee, true],
    ]);
    const total = (Math.round(offer.price * 100) + feeCents) / 100;
    expect(statement.totals).toEqual({ amount_due: total, final_amount_due: total, bookings: 2 });

    // Everything that crossed a boundary is in the audit log, inbound and outbound.
    const surfaces = await app.db('audit_log').select('surface', 'direction').count({ n: '*' }).groupBy('surface', 'direction');
    const seen = new Set(surfaces.map((s: any) => `${s.surface}/${s.direction}`));
    for (const s of ['transfers/inbound', 'ops/inbound', 'marketplace/inbound', 'marketplace/outbound']) expect(seen).toContain(s);
  });
});
