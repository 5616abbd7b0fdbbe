import { capturedLogger } from '../../support/logs';
import fs from 'node:fs';
import { Webhook } from 'standardwebhooks';
import { ManualClock } from '../../../src/shared/clock';
import { HttpMarketplaceClient } from '../../../src/adapters/marketplace/http-marketplace-client';
import { deliverChannelOnce, deliverDueOnce } from '../../../src/domain/outbox/worker';
import { webhookChannel, type WebhookAttempt, type WebhookPost, type WebhookPoster } from '../../../src/domain/webhooks/delivery';
import { startMarketplaceSim, type RunningMarketplaceSim } from '../../../simulators/marketplace/app';
import type { RecordedCall } from '../../../simulators/marketplace/state';
import { describeFound, dumpDatabase, whereFound } from '../../support/database-dump';
import { eventually } from '../../support/eventually';
import { operator } from '../../support/fixtures';
import { client, type Call, type Reply } from '../../support/http';
import { MARKETPLACE_ENV } from '../../support/marketplace';
import { backend, startTestApp, type TestApp } from '../../support/test-app';
import { fakeDns } from '../../support/webhooks';

/**
 * A traveller's personal data must be erasable. One traveller's details are planted through every surface — a quote
 * with their address, a booking, an amendment, a priced change, webhook deliveries of each event, the ride with the
 * driver's positions, the partner reading its request log, the operator's and driver's reads — and another
 * traveller's through a marketplace order, its update and its ride. The whole database is dumped (pg_dump on
 * PostgreSQL, every table and audit-log partition on PGlite): every planted value is in it. Then the booking is
 * erased by its partner and both travellers by an operator: the dump holds none of them, and the audit log gained
 * only the rows of those erasure requests.
 *
 * The planted values are unlike anything else in the test data, so a substring search (case-insensitive) finds them
 * in whatever column, JSON body or text they were copied into. Values the audit log keeps sealed are opened with the
 * data keys the dump itself holds, as anyone with the dump could: a value counts as gone only when it is neither in
 * the clear nor sealed with a key that still exists.
 */
const NOW = '2026-11-21T08:00:00Z';
/** The partner booking's pickup: 2026-12-01 09:30 in Colombo. */
const PICKUP = Date.parse('2026-12-01T04:00:00Z');
/** The marketplace order's pickup: 2026-12-02 09:30 in Colombo. */
const ORDER_PICKUP = Date.parse('2026-12-02T04:00:00Z');
const at = (base: number, minutes: number) => new Date(base + minutes * 60_000).toISOString();
const { MARKETPLACE_USER_ID: USER_ID, MARKETPLACE_PRIVATE_KEY: KEY, MARKETPLACE_CALLBACK_TOKEN: TOKEN, MARKETPLACE_IN_URL: IN_URL } = MARKETPLACE_ENV;

/** A driver's position, with its digits rounded to 5 places as reports write them (a no-show's "Last position …"). */
const position = (lat: number, lon: number) => ({ lat, lon, rounded: [lat.toFixed(5), lon.toFixed(5)] });

/** The partner's traveller. */
const TRAVELLER = {
  first_name: 'Zephyrine',
  last_name: 'Quillfeather',
  email: 'zephyrine.q@planted.example',
  phone: '+94 77 000 1357',
};
const AMENDED_LAST_NAME = 'Quillfeather-Amended';
const NOTES = 'Planted note 7Q3X';
/** The pickup as the partner writes it (a home address; coordinates given, so the text is kept as written). */
const PICKUP_TEXT = '17 Planted Lane, Colombo 7Q3X';
const PICKUP_PLACE = { name: PICKUP_TEXT, lat: 6.9061, lon: 79.8653 };
/** Where the priced change moves the pickup to. */
const CHANGED_PICKUP_TEXT = '23 Planted Mews, Colombo 7Q3X';
const CHANGED_PICKUP_PLACE = { name: CHANGED_PICKUP_TEXT, lat: 6.9072, lon: 79.8661 };
const FLIGHT = 'ZQ7351';
/** The driver's positions during the ride: on the way, and with the traveller on board. */
const RIDE_POSITIONS = [position(6.912345, 79.856789), position(7.054321, 79.871234)];

/** The marketplace's traveller. */
const CUSTOMER = { name: 'Octavian Brightwater', phone: '+49 170 000 2468', email: 'octavian.b@planted.example' };
const CUSTOMER_NEW_PHONE = '+49 170 000 8642';
const CO_TRAVELLER = { name_surname: 'Liviana Brightwater', passport: 'PZ8R4Y246' };
const COMMENT = 'Planted comment 8R4Y';
const COMMENT_AMENDED = 'Planted comment amended 8R4Y';
const DROPOFF_TEXT = '41 Planted Terrace, Negombo 8R4Y';
const ORDER_FLIGHT = 'ZQ8462';
const ORDER_POSITIONS = [position(7.176543, 79.883219), position(7.198765, 79.851234)];

/**
 * Every value planted: each must be in the dump before the erasure, in the clear or sealed with a key the dump holds
 * (the order's first phone and comment, replaced by its update, are left only in the audit log's sealed bodies).
 */
const PLANTED: string[] = [
  TRAVELLER.first_name,
  TRAVELLER.last_name,
  AMENDED_LAST_NAME,
  TRAVELLER.email,
  TRAVELLER.phone,
  NOTES,
  PICKUP_TEXT,
  CHANGED_PICKUP_TEXT,
  '7Q3X',
  FLIGHT,
  ...RIDE_POSITIONS.flatMap((p) => [String(p.lat), String(p.lon)]),
  'Octavian',
  'Brightwater',
  CO_TRAVELLER.name_surname,
  CO_TRAVELLER.passport,
  CUSTOMER.email,
  CUSTOMER.phone,
  CUSTOMER_NEW_PHONE,
  COMMENT,
  COMMENT_AMENDED,
  DROPOFF_TEXT,
  '8R4Y',
  ORDER_FLIGHT,
  ...ORDER_POSITIONS.flatMap((p) => [String(p.lat), String(p.lon)]),
];
/**
 * The forms a value may be copied in (a phone's digits alone, a position rounded to 5 places as reports write it):
 * none may be in the dump after the erasure; none need be before.
 */
const VARIANTS = ['770001357', '1700002468', '1700008642', ...[...RIDE_POSITIONS, ...ORDER_POSITIONS].flatMap((p) => p.rounded)];
const EVERY_FORM = [...PLANTED, ...VARIANTS].filter((v, i, all) => all.indexOf(v) === i);

/**
 * The partner's webhook receiver, in process: production endpoints must be public https URLs, which no receiver in
 * a test can be, so deliveries go through the service's own webhook channel (claim, sign, audit, record) to this
 * poster instead of over HTTP. It keeps what it was sent and answers 200.
 */
function receivingPoster() {
  const received: WebhookPost[] = [];
  const poster: WebhookPoster = {
    timeoutMs: 2000,
    async post(p: WebhookPost): Promise<WebhookAttempt> {
      received.push(p);
      return {
        ok: true,
        error: null,
        exchange: {
          requestId: p.requestId,
          startedAt: p.startedAt.toISOString(),
          method: 'POST',
          url: p.url,
          path: p.url,
          requestHeaders: { 'content-type': p.headers['Content-Type'], 'webhook-id': p.headers['webhook-id'] },
          requestBody: JSON.parse(p.body),
          status: 200,
          responseHeaders: { 'content-type': 'text/plain' },
          responseBody: null,
          durationMs: 1,
          error: null,
        },
      };
    },
  };
  return { poster, received };
}

describe(`A traveller's planted personal data, before and after erasure (${backend})`, () => {
  const clock = new ManualClock(NOW);
  const dns = fakeDns();
  let app: TestApp;
  let call: Call;
  let ops: ReturnType<typeof operator>;
  let mp: RunningMarketplaceSim;
  let sim: Call;
  let partner: Awaited<ReturnType<ReturnType<typeof operator>['partnerWithKeys']>>;
  const hooks = receivingPoster();
  // Every line the service logs, at debug: none may carry a planted value.
  const logs = capturedLogger('debug');
  let webhookSecret: string;

  /** What the test planted, for the erasure to find. */
  const planted = { bookingRef: '', orderId: '', bookingJobId: '', orderJobId: '', statement: undefined as unknown };

  beforeAll(async () => {
    mp = await startMarketplaceSim({ userId: USER_ID, privateKey: KEY });
    // No background worker: every delivery is made here, so nothing writes behind the test's back (the audit count).
    app = await startTestApp({
      clock,
      env: { ...MARKETPLACE_ENV, MARKETPLACE_URL: mp.url },
      outboxWorker: false,
      resolveHost: dns.resolve,
      logger: logs.logger,
    });
    mp.sim.setSupplier({ inUrl: IN_URL, baseUrl: `${app.url}/marketplace`, callbackToken: TOKEN });
    call = client(app.url);
    sim = client(mp.url);
    ops = operator(app.url);
    partner = await ops.partnerWithKeys('Planted Travel');
    // Room for both rides (the marketplace search offers only what the fleet has free).
    for (let i = 0; i < 3; i++) await ops.vehicle('standard_car');
  });
  afterAll(async () => {
    await app?.close();
    await mp?.stop();
  });

  const live = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    call(method, `/transfers/v1${path}`, { key: partner.liveKey, body, headers });
  const expectStatus = (r: Reply, status: number, what: string) => {
    if (r.status !== status) throw new Error(`${what}: expected ${status}, got ${r.status} ${r.text}`);
    return r;
  };

  /** Webhook deliveries, pass by pass, until none is due. */
  async function deliverWebhooks() {
    const channel = webhookChannel(app.deps, hooks.poster);
    for (let i = 0; i < 20; i++) {
      const pass = await deliverChannelOnce(app.deps, channel);
      if (pass.delivered + pass.retried + pass.failed === 0) return;
    }
  }
  /** Marketplace calls owed (confirmations, driver info, positions), pass by pass, until none is due. */
  async function deliverMarketplace() {
    const outbound = new HttpMarketplaceClient({ baseUrl: mp.url, userId: USER_ID, privateKey: KEY, clock });
    for (let i = 0; i < 20; i++) {
      const pass = await deliverDueOnce(app.deps, outbound, { baseDelayMs: 0 });
      if (pass.delivered + pass.retried + pass.failed === 0) return;
    }
  }
  const simCalls = async (operation: string, orderId: string): Promise<RecordedCall[]> =>
    (await sim('GET', `/__sim/calls?operation=${operation}&order_id=${orderId}`)).body.calls;
  const drive = async (action: string, body: unknown) => {
    const r = await sim('POST', `/__sim/drive/${action}`, { body });
    if (r.status !== 200) throw new Error(`sim ${action}: ${r.status} ${r.text}`);
    return r.body as { request: { body?: string }; response: { status: number; body: any }; order?: any };
  };
  const auditRows = async () => Number((await app.db('audit_log').count({ n: '*' }).first())!.n);

  it('when one traveller is planted through every surface, then the dump of the database holds every planted value', async () => {
    // The partner's webhook endpoint (production: a public https URL), there before the booking so every event goes to it.
    dns.set('hooks.planted-travel.example', '93.184.215.14');
    const endpoint = expectStatus(await live('POST', '/webhook_endpoints', { url: 'https://hooks.planted-travel.example/lanka' }), 201, 'endpoint');
    webhookSecret = endpoint.body.secret;

    // A quote from the traveller's own address to the airport, and the booking.
    const quote = expectStatus(
      await live('POST', '/quotes', {
        pickup: PICKUP_PLACE,
        dropoff: { iata: 'CMB' },
        pickup_datetime: '2026-12-01T09:30:00+05:30',
        passengers: { adults: 1, luggage: 1 },
      }),
      200,
      'quote',
    );
    expect(quote.body.declined).toBeNull();
    const offer = quote.body.offers.find((o: { vehicle_code: string }) => o.vehicle_code === 'standard_car');
    expect(offer).toBeDefined();
    const booked = expectStatus(
      await live(
        'POST',
        '/bookings',
        {
          quote_id: quote.body.quote_id,
          offer_id: offer.offer_id,
          partner_reference: `PLANT-${process.pid}`,
          passenger: TRAVELLER,
          passengers: { adults: 1, luggage: 1 },
          flight_number: FLIGHT,
        },
        { 'Idempotency-Key': `plant-book-${process.pid}` },
      ),
      201,
      'book',
    );
    const ref = booked.body.booking_ref as string;
    planted.bookingRef = ref;
    expect(booked.body).toMatchObject({ passenger: TRAVELLER, flight_number: FLIGHT, pickup: { name: PICKUP_TEXT } });

    // An amendment (PATCH): a new last name and notes for the driver.
    const amended = expectStatus(
      await live('PATCH', `/bookings/${ref}`, { passenger: { last_name: AMENDED_LAST_NAME }, notes: NOTES }, { 'If-Match': booked.headers.get('etag')! }),
      200,
      'amend',
    );
    expect(amended.body).toMatchObject({ version: 2, passenger: { last_name: AMENDED_LAST_NAME }, notes: NOTES });

    // A priced change: the pickup moves to another address of the traveller's.
    const changeQuote = expectStatus(await live('POST', `/bookings/${ref}/change_quotes`, { pickup: CHANGED_PICKUP_PLACE }), 200, 'change quote');
    expect(changeQuote.body.declined).toBeNull();
    const changeOffer = changeQuote.body.offers.find((o: { vehicle_code: string }) => o.vehicle_code === 'standard_car');
    const changed = expectStatus(
      await live(
        'POST',
        `/bookings/${ref}/changes`,
        { change_quote_id: changeQuote.body.change_quote_id, offer_id: changeOffer.offer_id },
        { 'If-Match': amended.headers.get('etag')! },
      ),
      200,
      'change',
    );
    expect(changed.body).toMatchObject({ version: 3, pickup: { name: CHANGED_PICKUP_TEXT }, passenger: { last_name: AMENDED_LAST_NAME } });

    // The marketplace's traveller: a search, a lock and an order through the simulator, then an update.
    const search = {
      from: { iata: 'CMB' },
      to: { name: DROPOFF_TEXT, lat: 7.2083, lon: 79.8358 },
      date: '2026-12-02 09:30:00',
      adults: 2,
      children: 0,
      luggage: 2,
    };
    const found = await drive('search', search);
    const vehicle = found.response.body.vehicles?.find((v: any) => v.vehicle_id === 'standard_car');
    if (!vehicle) throw new Error(`no standard_car in the search: ${JSON.stringify(found.response)}`);
    await drive('lock', { vehicle_id: vehicle.vehicle_id, price_mark: vehicle.price_mark });
    const order = await drive('book', {
      order: {
        ...search,
        price_mark: vehicle.price_mark,
        vehicle_id: 'standard_car',
        price: vehicle.price,
        currency: 'EUR',
        meeting_type: 'MG',
        flight_number: ORDER_FLIGHT,
        customer: CUSTOMER,
        passengers: { '1': { name_surname: CUSTOMER.name }, '2': CO_TRAVELLER },
        comment: COMMENT,
      },
    });
    expect(order.response).toMatchObject({ status: 200, body: { status: 'OK', order_state: 'confirmed' } });
    const orderId = order.order.order.order_id as string;
    planted.orderId = orderId;
    await deliverMarketplace(); // our confirmation, before the marketplace changes the order
    expect((await simCalls('confirmOrder', orderId)).map((c) => c.status)).toEqual([200]);
    const update = await drive('update', { order_id: orderId, customer: { ...CUSTOMER, phone: CUSTOMER_NEW_PHONE }, comment: COMMENT_AMENDED });
    expect(update.response).toMatchObject({ status: 200, body: { status: 'OK', order_state: 'change_confirmed' } });
    await deliverMarketplace(); // the change's confirmation
    expect((await simCalls('confirmChange', orderId)).map((c) => c.status)).toEqual([200]);

    // Both jobs dispatched: a driver and a car each, and the drivers' phones signed in.
    const dispatch = async (query: Record<string, string>, name: string, phone: string) => {
      const [job] = await eventually(`the job of ${JSON.stringify(query)}`, async () => {
        const jobs = await ops.jobs(query);
        return jobs.length ? jobs : undefined;
      });
      const driver = await ops.driver(name, phone);
      const car = await ops.vehicle('standard_car');
      expectStatus(await ops.call('POST', `/jobs/${job.job_id}/assign`, { body: { driver_id: driver.driver_id, vehicle_id: car.vehicle_id } }), 200, 'assign');
      const token = (await ops.driverToken(driver.driver_id)).token;
      const phoneCall = (method: string, path: string, body?: unknown) => call(method, `/driver/v1${path}`, { key: token, body });
      return { jobId: job.job_id as string, phoneCall };
    };
    const rideA = await dispatch({ booking_ref: ref }, 'Nuwan Jayasena', '+94 71 555 0190');
    const rideB = await dispatch({ order_id: orderId }, 'Kasun Weerasinghe', '+94 71 555 0191');
    planted.bookingJobId = rideA.jobId;
    planted.orderJobId = rideB.jobId;
    await deliverMarketplace(); // the order's driver info

    // The partner's ride, driven from the driver's phone: its positions reach the booking, the tracking page and the webhooks.
    const step = async (ride: typeof rideA, status: string) =>
      expectStatus(await ride.phoneCall('POST', `/jobs/${ride.jobId}/status`, { status }), 200, status);
    const report = async (ride: typeof rideA, p: { lat: number; lon: number }) => {
      const r = expectStatus(await ride.phoneCall('POST', '/location', { lat: p.lat, lon: p.lon, accuracy: 8 }), 202, 'location');
      expect(r.body.job_id).toBe(ride.jobId);
    };
    const list = expectStatus(await rideA.phoneCall('GET', '/jobs?date=2026-12-01'), 200, 'driver jobs');
    expect(JSON.stringify(list.body)).toContain(TRAVELLER.first_name);
    clock.set(at(PICKUP, -90));
    await step(rideA, 'en_route');
    await report(rideA, RIDE_POSITIONS[0]);
    const underWay = expectStatus(await live('GET', `/bookings/${ref}`), 200, 'read');
    expect(underWay.body.driver.location).toMatchObject({ lat: RIDE_POSITIONS[0].lat, lon: RIDE_POSITIONS[0].lon });
    const tracking = expectStatus(await call('GET', new URL(underWay.body.tracking_url).pathname), 200, 'tracking page');
    expect(tracking.text).toContain('Your driver is on the way');
    expectStatus(await rideA.phoneCall('GET', `/jobs/${rideA.jobId}`), 200, 'driver job');
    clock.set(at(PICKUP, -5));
    await step(rideA, 'arrived');
    clock.set(at(PICKUP, 5));
    await step(rideA, 'on_board');
    clock.set(at(PICKUP, 20));
    await report(rideA, RIDE_POSITIONS[1]);
    expectStatus(await call('GET', new URL(underWay.body.tracking_url).pathname), 200, 'tracking page');
    expectStatus(await ops.call('GET', `/jobs/${rideA.jobId}`), 200, 'operator job');
    clock.set(at(PICKUP, 120));
    await step(rideA, 'completed');

    // The order's ride: its positions go on to the marketplace (at most one per 30 s, so one each here).
    clock.set(at(ORDER_PICKUP, -45));
    await step(rideB, 'en_route');
    await report(rideB, ORDER_POSITIONS[0]);
    await deliverMarketplace();
    clock.set(at(ORDER_PICKUP, -2));
    await step(rideB, 'arrived');
    clock.set(at(ORDER_PICKUP, 3));
    await step(rideB, 'on_board');
    clock.set(at(ORDER_PICKUP, 15));
    await report(rideB, ORDER_POSITIONS[1]);
    await deliverMarketplace();
    const forwarded = (await simCalls('sendDriverLocation', orderId)).map((c) => JSON.parse(c.body));
    expect(forwarded.map((c) => [c.lat, c.lon])).toEqual(ORDER_POSITIONS.map((p) => [p.lat, p.lon]));
    clock.set(at(ORDER_PICKUP, 120));
    await step(rideB, 'completed');
    await deliverMarketplace();
    expectStatus(await ops.call('GET', `/jobs/${rideB.jobId}`), 200, 'operator job');

    // Every event of the booking delivered to the partner's endpoint, carrying the booking (and the positions).
    const events = ['booking.confirmed', 'booking.amended', 'booking.driver_assigned', 'booking.driver_en_route', 'booking.completed'];
    await eventually('the booking’s webhook deliveries', async () => {
      await deliverWebhooks();
      const types = hooks.received.map((p) => JSON.parse(p.body).type as string);
      return events.every((e) => types.includes(e)) ? types : undefined;
    });
    // Every call owed, to the marketplace and to the partner, went out and was accepted.
    expect(await app.db('outbox').whereNot({ status: 'delivered' }).select('kind', 'status', 'lastError')).toEqual([]);
    const deliveredBodies = hooks.received.map((p) => new Webhook(webhookSecret).verify(p.body, p.headers) as any);
    expect(deliveredBodies.every((e) => e.data.booking?.booking_ref === ref)).toBe(true);
    expect(JSON.stringify(deliveredBodies)).toContain(TRAVELLER.email);
    expect(JSON.stringify(deliveredBodies)).toContain(String(RIDE_POSITIONS[0].lat));

    // The partner reads its workbench: the request log, one request in full, the booking's timeline, its deliveries, its events.
    const log = expectStatus(await live('GET', '/requests?limit=100'), 200, 'request log');
    const bookingRequest = log.body.data.find((r: { method: string; path: string }) => r.method === 'POST' && r.path === '/transfers/v1/bookings');
    expect(bookingRequest).toBeDefined();
    const detail = expectStatus(await live('GET', `/requests/${bookingRequest.request_id}`), 200, 'request detail');
    expect(detail.text).toContain(TRAVELLER.email);
    expectStatus(await live('GET', `/bookings/${ref}/timeline`), 200, 'timeline');
    expectStatus(await live('GET', `/webhook_deliveries?booking_ref=${ref}`), 200, 'deliveries');
    expectStatus(await live('GET', '/events?limit=100'), 200, 'events');
    expectStatus(await live('GET', `/bookings/${ref}`), 200, 'read');

    // An operator answers the traveller's access request: everything planted, opened.
    const exported = expectStatus(await ops.call('GET', `/privacy/subjects?email=${encodeURIComponent(TRAVELLER.email)}`), 200, 'export');
    expect(exported.body.bookings.map((b: { booking_ref: string }) => b.booking_ref)).toEqual([ref]);
    expect(exported.body.bookings[0].passenger).toMatchObject({ first_name: TRAVELLER.first_name, last_name: AMENDED_LAST_NAME });
    expect(exported.body.positions.map((p: { lat: number }) => p.lat)).toEqual(expect.arrayContaining(RIDE_POSITIONS.map((p) => p.lat)));
    const exportedText = JSON.stringify(exported.body.audit_entries);
    for (const v of [TRAVELLER.email, NOTES, PICKUP_TEXT, CHANGED_PICKUP_TEXT, FLIGHT]) expect(exportedText).toContain(v);
    // Its own audit row keeps neither the e-mail it was asked for nor what it answered.
    const exportRow = await app
      .db('audit_log')
      .where({ request_id: exported.headers.get('x-request-id') })
      .first();
    expect(exportRow.path).toBe('/ops/v1/privacy/subjects?email=%5Bpersonal%5D');
    expect(exportRow.responseBody).toMatchObject({ $omitted: 'echoes stored exchanges' });
    planted.statement = expectStatus(await live('GET', '/statements?from=2026-11-01&to=2026-12-31'), 200, 'statement').body;

    // The dump holds every planted value.
    const dump = await dumpDatabase(app);
    const where = whereFound(dump, EVERY_FORM);
    // PLANTED_VALUES_REPORT=<file>: where each value is, as JSON (and the dump itself beside it), for a person to read.
    if (process.env.PLANTED_VALUES_REPORT) {
      fs.writeFileSync(process.env.PLANTED_VALUES_REPORT, `${JSON.stringify({ backend, where }, null, 2)}\n`);
      fs.writeFileSync(`${process.env.PLANTED_VALUES_REPORT}.dump.txt`, dump);
    }
    // Sealed values are read here as anyone holding the dump could (test/support/database-dump.ts): when none of them
    // opens, the seal's format has changed and the reader there must follow, or this test would stop seeing them.
    if (/pd1:/.test(dump)) expect(Object.values(where).some((f) => f.some((x) => x.sealed))).toBe(true);
    const missing = PLANTED.filter((v) => where[v].length === 0);
    if (missing.length) throw new Error(`planted, yet not in the dump: ${missing.join(', ')}\n${describeFound(where)}`);
  }, 240_000);

  it('when the booking is erased by its partner and both travellers by an operator, then the dump holds none of the planted values, and the audit log gained only the erasure requests', async () => {
    expect(planted.bookingRef).not.toBe(''); // the test before planted them
    clock.set(at(ORDER_PICKUP, 180));
    const before = await auditRows();
    let requests = 0;

    const erased = await live('POST', `/bookings/${planted.bookingRef}/erase`);
    requests += 1;
    expectStatus(erased, 200, 'erase the booking');
    expect(erased.body.erased_at).toEqual(expect.any(String));
    expect(erased.body.passenger).toBeNull();

    for (const email of [CUSTOMER.email, TRAVELLER.email]) {
      const receipt = await ops.call('POST', '/privacy/erasures', { body: { email } });
      requests += 1;
      expectStatus(receipt, 200, `erase ${email}`);
      expect(receipt.body).toEqual(expect.any(Object));
    }

    expect(await auditRows()).toBe(before + requests);
    const where = whereFound(await dumpDatabase(app), EVERY_FORM);
    const left = Object.fromEntries(Object.entries(where).filter(([, f]) => f.length > 0));
    if (Object.keys(left).length) throw new Error(`erased, yet still in the dump:\n${describeFound(left)}`);

    const read = expectStatus(await live('GET', `/bookings/${planted.bookingRef}`), 200, 'read the erased booking');
    expect(read.body.erased_at).toEqual(expect.any(String));
    expect(read.body.passenger).toBeNull();
    const stillThere = EVERY_FORM.filter((v) => read.text.toLowerCase().includes(v.toLowerCase()));
    expect(stillThere).toEqual([]);
    // What the partner is billed is as it was: the same lines, the same amounts.
    expect(expectStatus(await live('GET', '/statements?from=2026-11-01&to=2026-12-31'), 200, 'statement').body).toEqual(planted.statement);
    // Nothing is left to find the traveller by.
    const exported = expectStatus(await ops.call('GET', `/privacy/subjects?email=${encodeURIComponent(TRAVELLER.email)}`), 200, 'export after');
    expect(exported.body).toEqual({ bookings: [], orders: [], audit_entries: [], positions: [] });

    // The service's log output, from the first request to the last, never held a planted value.
    expect(logs.lines.length).toBeGreaterThan(50);
    const logged = logs.lines.join('').toLowerCase();
    expect(EVERY_FORM.filter((v) => logged.includes(v.toLowerCase()))).toEqual([]);
  }, 120_000);
});
