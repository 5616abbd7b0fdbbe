/**
 * Every statement the service issues on a request path (and in its background passes), explained by PostgreSQL:
 * none may read a large table with a sequential scan. Used by the EXPLAIN test in CI (a seeded database) and by
 * `npm run bench` (the full growth seed).
 *
 *   1. capture(): every statement the service's Database runs while `exerciseEveryPath` drives each operation of
 *      each surface, the outbox worker and the retention pass;
 *   2. sequentialScans(): EXPLAIN (FORMAT JSON) of each, with the parameters it ran with, walked for Seq Scan nodes
 *      on tables holding at least `minRows` rows.
 */
import { randomBytes } from 'node:crypto';
import type { Database } from '../src/data/database';
import { signMarketplaceRequest } from '../src/shared/signing/marketplace-signature';

export interface Captured {
  text: string;
  params: readonly unknown[];
}

/** Records every distinct statement (with the first parameters it ran with) until stopped. */
export function capture(db: Database): { stop(): Captured[] } {
  const seen = new Map<string, Captured>();
  db.observer = (text, params) => {
    if (!seen.has(text)) seen.set(text, { text, params: [...params] });
  };
  return {
    stop() {
      db.observer = undefined;
      return [...seen.values()];
    },
  };
}

const NOT_PLANNABLE =
  /^\s*(begin|commit|rollback|savepoint|release|set |reset |select pg_advisory|select 1$|select version|show |create |drop |alter |analyze)/i;

/** knex writes `?` where the driver wants `$n` (outside quoted text). */
function native(text: string): string {
  let n = 0;
  return text.replace(/('(?:[^']|'')*')|\?/g, (m, quoted: string | undefined) => (quoted ? m : `$${++n}`));
}

export interface Violation {
  statement: string;
  table: string;
  rows: number;
}

/** Sequential scans of tables with at least `minRows` rows, per statement. */
export async function sequentialScans(db: Database, captured: Captured[], minRows: number): Promise<{ explained: number; violations: Violation[] }> {
  const sizes = new Map<string, number>(
    (
      await db.query<{ name: string; rows: string }>(
        `select c.relname as name, c.reltuples::bigint as rows from pg_class c where c.relnamespace = current_schema()::regnamespace and c.relkind in ('r', 'p')`,
      )
    ).map((r) => [r.name, Number(r.rows)]),
  );
  const violations: Violation[] = [];
  let explained = 0;
  for (const c of captured) {
    if (NOT_PLANNABLE.test(c.text)) continue;
    const text = c.text.includes('$1') || !c.text.includes('?') ? c.text : native(c.text);
    let plan: unknown;
    try {
      plan = (await db.query(`explain (format json) ${text}`, c.params))[0]['QUERY PLAN'];
    } catch (e) {
      throw new Error(`cannot explain: ${(e as Error).message}\n${text}`);
    }
    explained += 1;
    const walk = (node: Record<string, unknown>) => {
      if (node['Node Type'] === 'Seq Scan') {
        const table = String(node['Relation Name']);
        const rows = sizes.get(table) ?? 0;
        if (rows >= minRows) violations.push({ statement: text.replace(/\s+/g, ' ').slice(0, 300), table, rows });
      }
      for (const child of (node.Plans as Array<Record<string, unknown>>) ?? []) walk(child);
    };
    for (const p of plan as Array<{ Plan: Record<string, unknown> }>) walk(p.Plan);
  }
  return { explained, violations };
}

export interface Surfaces {
  serviceUrl: string;
  operatorToken: string;
  /** The service's MARKETPLACE_IN_URL, and its signing key and callback token. */
  marketplace: { inUrl: string; privateKey: string; callbackToken: string; mount: string };
  /** Seeds an order the marketplace will serve on re-fetch (the simulator's). */
  seedOrder(order: Record<string, unknown>): Promise<void>;
  /** One pass of the outbox worker, and one retention pass. */
  deliver(): Promise<unknown>;
  retention(): Promise<unknown>;
  /** One pass of the flight poller (any provider: the statements are the point). */
  pollFlights(): Promise<unknown>;
}

/** Drives every operation of every surface once or more, the way partners, operators and the marketplace do. */
export async function exerciseEveryPath(s: Surfaces): Promise<void> {
  const call = async (method: string, path: string, opts: { key?: string; op?: boolean; body?: unknown; headers?: Record<string, string> } = {}) => {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.key) headers.Authorization = `Bearer ${opts.key}`;
    if (opts.op) headers.Authorization = `Bearer ${s.operatorToken}`;
    if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
    const r = await fetch(`${s.serviceUrl}${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
    const text = await r.text();
    const json = (r.headers.get('content-type') ?? '').startsWith('application/json');
    return { status: r.status, body: text && json ? JSON.parse(text) : text || undefined };
  };
  const signed = (method: string, path: string, body?: unknown) => {
    const raw = body === undefined ? '' : JSON.stringify(body);
    return fetch(`${s.serviceUrl}${s.marketplace.mount}${path}`, {
      method,
      headers: {
        PrivateKey: signMarketplaceRequest(`${s.marketplace.inUrl}${path}`, raw, s.marketplace.privateKey),
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : raw,
    }).then(async (r) => ({ status: r.status, body: await r.json() }));
  };
  const must = (r: { status: number; body?: unknown }, ...ok: number[]) => {
    if (!ok.includes(r.status)) throw new Error(`unexpected ${r.status}: ${JSON.stringify(r.body).slice(0, 300)}`);
    return r.body as any;
  };

  // Operators: the token (a wrong one is counted, a right one clears the count), partners, keys, vocabulary.
  must(await call('GET', '/ops/v1/ping', { headers: { Authorization: 'Bearer op_wrong_plan_check_token' } }), 401);
  must(await call('GET', '/ops/v1/ping', { op: true }), 200);
  const partner = must(await call('POST', '/ops/v1/partners', { op: true, body: { name: 'Plan Check Travel', currency: 'EUR' } }), 201);
  const pid = partner.partner_id;
  const test = must(await call('POST', `/ops/v1/partners/${pid}/keys`, { op: true, body: { env: 'sandbox' } }), 201);
  const live = must(await call('POST', `/ops/v1/partners/${pid}/keys`, { op: true, body: { env: 'production' } }), 201);
  must(await call('GET', '/ops/v1/partners', { op: true }), 200);
  must(await call('GET', `/ops/v1/partners/${pid}`, { op: true }), 200);
  must(await call('GET', `/ops/v1/partners/${pid}/keys`, { op: true }), 200);
  must(await call('PUT', `/ops/v1/partners/${pid}/vehicle-codes/SEDAN`, { op: true, body: { vehicle: 'standard_car' } }), 200);
  must(await call('GET', `/ops/v1/partners/${pid}/vehicle-codes`, { op: true }), 200);
  must(await call('POST', `/ops/v1/partners/${pid}/pause`, { op: true }), 200);
  must(await call('POST', `/ops/v1/partners/${pid}/resume`, { op: true }), 200);

  // Webhooks: a sandbox endpoint (the service must allow private targets: WEBHOOKS_ALLOW_PRIVATE_TARGETS=true), so
  // that every sandbox change below enqueues a delivery; s.deliver() attempts them.
  const hook = must(await call('POST', '/transfers/v1/webhook_endpoints', { key: test.key, body: { url: 'http://127.0.0.1:9/hooks' } }), 201);
  must(await call('GET', '/transfers/v1/webhook_endpoints', { key: test.key }), 200);
  must(await call('POST', `/transfers/v1/webhook_endpoints/${hook.id}/test`, { key: test.key }), 202);
  must(await call('POST', `/transfers/v1/webhook_endpoints/${hook.id}/rotate_secret`, { key: test.key }), 200);

  // Partners: every operation, every booking outcome.
  const pickup = `${new Date(Date.now() + 10 * 86400_000).toISOString().slice(0, 10)}T09:30:00+05:30`;
  const journey = { pickup: { iata: 'CMB' }, dropoff: { name: 'Kandy' }, pickup_datetime: pickup, passengers: { adults: 2, luggage: 2 } };
  for (const key of [test.key, live.key]) {
    must(await call('GET', '/transfers/v1/ping', { key }), 200);
    must(await call('POST', '/transfers/v1/quotes', { key, body: { ...journey, vehicle_codes: ['SEDAN'] } }), 200);
    const q = must(await call('POST', '/transfers/v1/quotes', { key, body: journey }), 200);
    must(await call('POST', '/transfers/v1/quotes', { key, body: { ...journey, pickup_datetime: new Date(Date.now() + 3600_000).toISOString() } }), 200);
    const booking = (offer: string, ref: string) => ({
      quote_id: q.quote_id,
      offer_id: offer,
      partner_reference: ref,
      passenger: { first_name: 'Plan', last_name: 'Check' },
      passengers: { adults: 2, luggage: 2 },
      flight_number: 'UL504',
    });
    const ref = `PC-${randomBytes(3).toString('hex')}`;
    const b = must(
      await call('POST', '/transfers/v1/bookings', { key, body: booking(q.offers[0].offer_id, ref), headers: { 'Idempotency-Key': `${ref}-k` } }),
      201,
    );
    must(await call('POST', '/transfers/v1/bookings', { key, body: booking(q.offers[0].offer_id, ref), headers: { 'Idempotency-Key': `${ref}-k` } }), 200);
    must(await call('POST', '/transfers/v1/bookings', { key, body: booking(q.offers[0].offer_id, ref) }), 200);
    must(await call('POST', '/transfers/v1/bookings', { key, body: booking(q.offers[0].offer_id, `${ref}-2`) }), 409);
    must(await call('POST', '/transfers/v1/bookings', { key, body: booking('0'.repeat(32), `${ref}-3`) }), 404);
    // A race for one offer: the optimistic path loses, the careful one decides.
    await Promise.all(
      [1, 2, 3].map((i) =>
        call('POST', '/transfers/v1/bookings', { key, body: booking(q.offers[1].offer_id, `${ref}-r${i}`), headers: { 'Idempotency-Key': `${ref}-r${i}` } }),
      ),
    );
    must(await call('GET', `/transfers/v1/bookings/${b.booking_ref}`, { key }), 200);
    must(await call('POST', `/transfers/v1/bookings/${b.booking_ref}/cancel`, { key }), 200);
    if (key === test.key) {
      must(await call('POST', `/transfers/v1/test_helpers/offers/${q.offers[2].offer_id}/expire`, { key }), 200);
      must(await call('POST', '/transfers/v1/bookings', { key, body: booking(q.offers[2].offer_id, `${ref}-x`) }), 410);
      must(await call('POST', '/transfers/v1/test_helpers/account/pause', { key }), 200);
      must(await call('POST', '/transfers/v1/test_helpers/account/resume', { key }), 200);
    }
    // The list holds back events committed while an older transaction still runs anywhere on the server (another
    // test's, a seed's): wait for them as a partner would, for a few seconds at most.
    let events = must(await call('GET', '/transfers/v1/events?limit=2', { key }), 200);
    for (let i = 0; i < 100 && events.data.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      events = must(await call('GET', '/transfers/v1/events?limit=2', { key }), 200);
    }
    must(await call('GET', `/transfers/v1/events?type=booking.cancelled&after=${events.data[0].id}`, { key }), 200);
    must(await call('POST', `/transfers/v1/events/${events.data[0].id}/redeliver`, { key }), 202);
    // The workbench: the request log (filtered, paged), one exchange, a booking's timeline, the deliveries.
    const log = must(await call('GET', '/transfers/v1/requests?limit=5', { key }), 200);
    must(await call('GET', `/transfers/v1/requests?limit=5&before=${log.next}`, { key }), 200);
    must(await call('GET', '/transfers/v1/requests?status=4xx&path_prefix=/transfers/v1/bookings', { key }), 200);
    must(await call('GET', `/transfers/v1/requests/${log.data[0].request_id}`, { key }), 200);
    must(await call('GET', `/transfers/v1/bookings/${b.booking_ref}/timeline`, { key }), 200);
    must(await call('GET', `/transfers/v1/webhook_deliveries?limit=5${key === test.key ? `&endpoint_id=${hook.id}` : ''}`, { key }), 200);
    must(await call('GET', `/transfers/v1/webhook_deliveries?booking_ref=${b.booking_ref}&status=delivered`, { key }), 200);
  }

  // The marketplace: supplier calls, orders, callbacks.
  const date = new Date(Date.now() + 10 * 86400_000 + 5.5 * 3600_000).toISOString().replace('T', ' ').slice(0, 11) + '07:00:00';
  const search = { from: { name: 'Kandy' }, to: { iata: 'CMB' }, date, adults: 4, children: 1, luggage: 4 };
  const found = must(await signed('POST', '/search/', search), 200);
  const van = found.vehicles.find((v: { vehicle_id: string }) => v.vehicle_id === 'standard_van');
  must(await signed('GET', `/search/${van.vehicle_id}/${van.price_mark}/`), 200);
  must(await signed('POST', '/search/standard_van/', search), 200);
  const orderId = `PC-${randomBytes(4).toString('hex')}`;
  const order = {
    ...search,
    order_id: orderId,
    vehicle_id: 'standard_van',
    price_mark: van.price_mark,
    price: van.price,
    currency: 'EUR',
    customer: { name: 'Plan Check' },
  };
  must(await signed('POST', '/booking/', order), 200);
  must(await signed('POST', '/booking/update/', { order_id: orderId, flight_number: 'QR662' }), 200);
  must(await signed('POST', '/booking/confirm/', { order_id: orderId }), 200);
  must(await signed('POST', '/booking/cancel/', { order_id: orderId }), 200);
  must(await signed('GET', '/brandlist/'), 200);
  const cbOrder = { ...order, order_id: `${orderId}-cb`, state: 'new', price_mark: undefined, price: '400.00' };
  await s.seedOrder(cbOrder);
  must(await call('POST', `${s.marketplace.mount}/callback?token=${s.marketplace.callbackToken}`, { body: { type: 'new', order_id: cbOrder.order_id } }), 200);

  // The ride (last: a registered vehicle makes quoting count the fleet): a driver's token, the driver's reads and
  // moves, the tracking page, flights (polled and sandbox).
  const ride = must(await call('POST', '/transfers/v1/quotes', { key: live.key, body: journey }), 200);
  const rideRef = `PC-${randomBytes(3).toString('hex')}-ride`;
  const rideBooking = must(
    await call('POST', '/transfers/v1/bookings', {
      key: live.key,
      body: {
        quote_id: ride.quote_id,
        offer_id: ride.offers[0].offer_id,
        partner_reference: rideRef,
        passenger: { first_name: 'Plan', last_name: 'Check' },
        passengers: { adults: 2, luggage: 2 },
        flight_number: 'UL504',
      },
    }),
    201,
  );
  const [rideJob] = must(await call('GET', `/ops/v1/jobs?booking_ref=${rideBooking.booking_ref}`, { op: true }), 200).data;
  const car = must(
    await call('POST', '/ops/v1/vehicles', {
      op: true,
      body: { fleet_code: rideJob.fleet_code, plate: `PC-${randomBytes(2).toString('hex')}`, brand: 'Toyota', model: 'Axio', colour: 'White' },
    }),
    201,
  );
  const driver = must(await call('POST', '/ops/v1/drivers', { op: true, body: { name: 'Plan Check Driver', phone: '+94770000000' } }), 201);
  must(await call('POST', `/ops/v1/jobs/${rideJob.job_id}/assign`, { op: true, body: { driver_id: driver.driver_id, vehicle_id: car.vehicle_id } }), 200);
  const phone = must(await call('POST', `/ops/v1/drivers/${driver.driver_id}/tokens`, { op: true }), 201);
  must(await call('GET', '/driver/v1/me', { key: phone.token }), 200);
  must(await call('GET', `/driver/v1/jobs?date=${pickup.slice(0, 10)}`, { key: phone.token }), 200);
  must(await call('GET', `/driver/v1/jobs/${rideJob.job_id}`, { key: phone.token }), 200);
  must(await call('POST', `/driver/v1/jobs/${rideJob.job_id}/status`, { key: phone.token, body: { status: 'en_route' } }), 409);
  must(await call('POST', '/driver/v1/location', { key: phone.token, body: { lat: 7.2, lon: 79.9 } }), 202);
  must(await call('GET', new URL(rideBooking.tracking_url).pathname), 200);
  must(await call('GET', '/t/NoSuchTrackingToken00000'), 404);
  must(
    await call('POST', '/transfers/v1/test_helpers/flights', { key: test.key, body: { flight_number: 'UL504', date: pickup.slice(0, 10), delay_minutes: 30 } }),
    200,
  );
  await s.pollFlights();
  must(await call('POST', `/ops/v1/driver-tokens/${phone.token_id}/revoke`, { op: true }), 200);

  // Background passes, then the operator's reading of what happened.
  await s.deliver();
  // The partner's integration report: its requests and these webhook delivery attempts, read back from the audit log.
  must(await call('GET', '/transfers/v1/test_helpers/integration_report', { key: test.key }), 200);
  const outbox = must(await call('GET', '/ops/v1/outbox?status=pending&limit=10', { op: true }), 200);
  must(await call('GET', `/ops/v1/outbox?order_id=${orderId}`, { op: true }), 200);
  for (const q of ['status=attention&kind=webhook', `partner_id=${pid}`, `endpoint_id=${hook.id}&status=retrying`])
    must(await call('GET', `/ops/v1/outbox?${q}`, { op: true }), 200);
  must(await call('GET', `/ops/v1/webhook_endpoints?partner_id=${pid}`, { op: true }), 200);
  must(await call('GET', '/ops/v1/webhook_endpoints?status=disabled&env=sandbox', { op: true }), 200);
  must(await call('POST', `/ops/v1/webhook_endpoints/${hook.id}/disable`, { op: true, body: { reason: 'plan check' } }), 200);
  must(await call('POST', `/ops/v1/webhook_endpoints/${hook.id}/enable`, { op: true }), 200);
  must(await call('DELETE', `/transfers/v1/webhook_endpoints/${hook.id}`, { key: test.key }), 200);
  const any = must(await call('GET', '/ops/v1/outbox?limit=1', { op: true }), 200);
  // (The newest may be a delivery to the endpoint just deleted: its retry is refused, after the same reads.)
  if (any.data[0] && any.data[0].status !== 'delivered') must(await call('POST', `/ops/v1/outbox/${any.data[0].id}/retry`, { op: true }), 200, 409);
  void outbox;
  const since = new Date(Date.now() - 3600_000).toISOString();
  for (const q of [
    `request_id=req_x`,
    `partner_id=${pid}`,
    'path=/transfers/v1/bookings',
    'surface=marketplace',
    'direction=outbound',
    `from=${since}`,
    `from=${since}&to=${new Date().toISOString()}`,
    'before_id=1000',
    'limit=5',
  ]) {
    must(await call('GET', `/ops/v1/audit?${q}`, { op: true }), 200);
  }
  must(await call('POST', `/ops/v1/keys/${test.key_id}/revoke`, { op: true }), 200);
  must(await call('DELETE', `/ops/v1/partners/${pid}/vehicle-codes/SEDAN`, { op: true }), 200);
  await s.retention();
}
