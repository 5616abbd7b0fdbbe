import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { ManualClock } from '../../../src/shared/clock';
import { privacyRetentionOnce, runPrivacyRetention } from '../../../src/domain/privacy/retention';
import { runRetention } from '../../../src/retention';
import { quote, quoteAndBook } from '../../support/bookings';
import { OPS_HEADERS } from '../../support/fixtures';
import { backend, testConfig } from '../../support/test-app';
import { useTestApp } from '../../support/use-test-app';

const HOUR = 3600_000;
const DAY = 24 * HOUR;
/**
 * The audit log's rows are dated by the database's own clock, the service's by the test clock: the story starts
 * no earlier than now, so that moving the test clock on moves the audit bodies' cutoff past every row written.
 */
const T0 = Math.max(Math.ceil(Date.now() / HOUR) * HOUR, Date.parse('2026-11-21T08:00:00Z'));
/** The ride's pickup, ten days on. */
const PICKUP = T0 + 10 * DAY;
/** A time as a Sri Lanka local time with its offset (as partners write pickup times). */
const local = (ms: number) => `${new Date(ms + 5.5 * HOUR).toISOString().slice(0, 19)}+05:30`;
const at = (minutesFromPickup: number) => new Date(PICKUP + minutesFromPickup * 60_000).toISOString();

/**
 * The privacy retention pass (domain/privacy/retention.ts), with the default settings: a traveller's data erased 90
 * days after the ride (or the cancellation), the ride's track after 30, the audit bodies after 30 (each row keeps its
 * digest), the financial lines after 10 years, AI agents' confirmation tokens an hour after they expire. One story
 * moves the service's clock on: a booking cancelled, a ride driven with the driver's positions, a marketplace order
 * cancelled.
 */
describe(`The privacy retention pass (${backend})`, () => {
  const clock = new ManualClock(new Date(T0));
  const svc = useTestApp({ clock, outboxWorker: false, partner: 'Retention Travel' });
  const metrics = () => svc.app.deps.metrics.privacyRetention;
  /** One pass as the schedule runs it, errors thrown. */
  async function pass(holder = 'test-instance') {
    const r = await runPrivacyRetention(svc.app.deps, holder, { rows: metrics().rows });
    if (r) metrics().passed(r);
    return r;
  }
  const rows = async <T = any>(text: string, params: readonly Knex.RawBinding[] = []) => (await svc.app.db.raw(text, params)).rows as T[];
  const count = async (text: string, params: readonly Knex.RawBinding[] = []) => Number((await rows<{ n: string }>(text, params))[0].n);
  const auditRows = () => count('select count(*) as n from audit_log');
  /** Audit rows written before `cutoff` with a body not yet replaced by its digest. */
  const unexpired = (cutoff: number) =>
    count(
      `select count(*) as n from audit_log where at < ? and ((request_body is not null and not jsonb_exists(request_body, '$expired'))
        or (response_body is not null and not jsonb_exists(response_body, '$expired')))`,
      [new Date(cutoff)],
    );
  const scrape = async () => (await svc.call('GET', '/metrics', { headers: OPS_HEADERS })).text;
  const booking = async (ref: string, key: string) => (await svc.call('GET', `/transfers/v1/bookings/${ref}`, { key })).body;

  let cancelled: string;
  let ride: { ref: string; jobId: string; quoteIds: string[] };
  let completedAt: number;

  it('when the ride is 30 days past, then its track is gone and every audit body is its digest, the rows kept; at 90 days the travellers are erased', async () => {
    const { testKey, liveKey } = svc.partner;
    // A quote never booked (its data key outlives it until the pass).
    const unbooked = (await quote(svc.call, testKey, { pickupDatetime: local(PICKUP) })).body.quote_id;
    // A quote between places named as we know them holds nothing personal: it gets no key at all.
    const townToTown = (await quote(svc.call, testKey, { dropoff: { name: 'Kandy' }, pickupDatetime: local(PICKUP) })).body.quote_id;
    expect(await count('select count(*) as n from personal_data_keys where subject = ?', [`quote:${townToTown}`])).toBe(0);
    expect(await count('select count(*) as n from personal_data_keys where subject = ?', [`quote:${unbooked}`])).toBe(1);
    // A booking cancelled at once.
    cancelled = (await quoteAndBook(svc.call, testKey, { reference: 'RET-CANCELLED', pickupDatetime: local(PICKUP) })).booking.booking_ref;
    expect((await svc.call('POST', `/transfers/v1/bookings/${cancelled}/cancel`, { key: testKey })).status).toBe(200);
    // A ride driven, with the driver's positions.
    const vehicle = await svc.ops.vehicle('standard_car');
    const driver = await svc.ops.driver('Retention Driver', '+94771110000');
    const { booking: b, quote: q } = await quoteAndBook(svc.call, liveKey, { reference: 'RET-RIDE', pickupDatetime: local(PICKUP) });
    const [job] = await svc.ops.jobs({ booking_ref: b.booking_ref });
    ride = { ref: b.booking_ref, jobId: job.job_id, quoteIds: [q.quote_id] };
    expect((await svc.ops.call('POST', `/jobs/${job.job_id}/assign`, { body: { driver_id: driver.driver_id, vehicle_id: vehicle.vehicle_id } })).status).toBe(
      200,
    );
    const token = (await svc.ops.driverToken(driver.driver_id)).token;
    const step = async (minutes: number, status: string) => {
      clock.set(at(minutes));
      const r = await svc.call('POST', `/driver/v1/jobs/${job.job_id}/status`, { key: token, body: { status } });
      expect({ status, answer: r.status }).toEqual({ status, answer: 200 });
    };
    await step(-40, 'en_route');
    for (const [minutes, lat] of [
      [-40, 7.11],
      [-20, 7.12],
    ]) {
      clock.set(at(minutes));
      expect((await svc.call('POST', '/driver/v1/location', { key: token, body: { lat, lon: 79.88, accuracy: 8 } })).status).toBe(202);
    }
    await step(-5, 'arrived');
    await step(5, 'on_board');
    await step(180, 'completed');
    completedAt = clock.now().getTime();
    expect(await count('select count(*) as n from job_locations where job_id = ?', [ride.jobId])).toBe(2);
    expect((await rows('select last_lat from jobs where job_id = ?', [ride.jobId]))[0].last_lat).toBe(7.12);
    expect((await rows('select driver_location from bookings where booking_ref = ?', [ride.ref]))[0].driver_location).toMatchObject({ lat: 7.12 });
    // A marketplace order cancelled (as the marketplace sent it).
    const order = {
      order_id: 'RET-ORDER-1',
      customer: { name: 'Octavia Retain', phone: '+49 170 555 0101', email: 'octavia@retain.example' },
      comment: 'Retain me',
    };
    await svc.app.db.raw(
      `insert into marketplace_orders (order_id, state, vehicle, "order", source, pickup_at, supplier_order_id, data_hash, created_at, updated_at)
       values ('RET-ORDER-1', 'cancelled', 'standard_car', ?::jsonb, 'callback', ?, 'SUP-RET-1', 'x', ?, ?)`,
      [JSON.stringify(order), new Date(PICKUP), clock.now(), clock.now()],
    );

    // The booking request as the audit log holds it, and its digest.
    const [request] = await rows<{ id: string; body: string }>(
      `select id::text as id, request_body::text as body from audit_log where method = 'POST' and path = '/transfers/v1/bookings' and response_body ->> 'booking_ref' = ?`,
      [cancelled],
    );
    expect(request.body).toMatch(/"passenger": "pd1:booking:/);

    // 29 days after the ride: its track is kept; the audit rows (written today, by the database's clock) are past
    // their 30 days: each body is its digest, and every row is kept.
    clock.set(new Date(completedAt + 29 * DAY));
    const before = await auditRows();
    let r = await pass();
    expect(r).toMatchObject({ caughtUp: true, rows: { positions: 0, last_positions: 0, bookings_erased: 0, orders_erased: 0 } });
    expect(r!.rows.audit_bodies).toBeGreaterThan(10);
    expect(await count('select count(*) as n from job_locations where job_id = ?', [ride.jobId])).toBe(2);
    expect(await auditRows()).toBe(before);
    expect(await unexpired(completedAt + DAY)).toBe(0);
    const [expired] = await rows<{ body: unknown }>(`select request_body as body from audit_log where id = ?`, [request.id]);
    expect(expired.body).toEqual({
      $expired: { bytes: Buffer.byteLength(request.body), sha256: createHash('sha256').update(request.body).digest('hex') },
    });
    // That is the only change the audit log lets through: not another body, not none.
    for (const body of [{ $expired: { bytes: 1, sha256: 'forged' } }, null]) {
      await expect(
        svc.app.db.raw('update audit_log set request_body = ? where id = ?', [body === null ? null : JSON.stringify(body), request.id]),
      ).rejects.toThrow(/append-only/);
    }
    // The day keys of what named no subject are destroyed with the bodies.
    const today = new Date(T0).toISOString().slice(0, 10);
    expect(await count(`select count(*) as n from personal_data_keys where subject like 'day:%' and key is not null and subject <= ?`, [`day:${today}`])).toBe(
      0,
    );

    // 31 days after: the track is gone, and the last known positions (the job's, and the booking's). The hourly
    // retention has purged the quote never booked: its data key goes too.
    clock.set(new Date(completedAt + 31 * DAY));
    await runRetention(svc.app.deps);
    expect(await count('select count(*) as n from personal_data_keys where subject = ?', [`quote:${unbooked}`])).toBe(1);
    r = await pass();
    expect(r).toMatchObject({ caughtUp: true, rows: { positions: 2, last_positions: 2, bookings_erased: 0, orders_erased: 0 } });
    expect(await count('select count(*) as n from job_locations where job_id = ?', [ride.jobId])).toBe(0);
    expect((await rows('select last_lat, last_lon, last_located_at from jobs where job_id = ?', [ride.jobId]))[0]).toEqual({
      last_lat: null,
      last_lon: null,
      last_located_at: null,
    });
    expect((await rows('select driver_location from bookings where booking_ref = ?', [ride.ref]))[0].driver_location).toBeNull();
    expect(await count('select count(*) as n from quotes where quote_id = ?', [unbooked])).toBe(0);
    expect(await count('select count(*) as n from personal_data_keys where subject = ?', [`quote:${unbooked}`])).toBe(0);
    expect(r!.rows.data_keys).toBeGreaterThanOrEqual(1);
    // The travellers are still there: 90 days have not passed.
    expect((await booking(cancelled, testKey)).passenger.first_name).toBe('Ayesha');

    // Rows written since (the reads above) are expired by the next pass; none twice.
    await booking(ride.ref, liveKey);
    const written = await auditRows();
    r = await pass();
    expect(r!.rows.audit_bodies).toBeGreaterThanOrEqual(1);
    expect(await unexpired(completedAt + DAY)).toBe(0);
    expect(await auditRows()).toBe(written);

    // 91 days after the cancellation: its traveller is erased; the ride (ended ten days later) is not yet.
    clock.set(new Date(T0 + 91 * DAY));
    r = await pass();
    expect(r).toMatchObject({ caughtUp: true, rows: { bookings_erased: 1, orders_erased: 0 } });
    const erased = await booking(cancelled, testKey);
    expect(erased).toMatchObject({ booking_ref: cancelled, status: 'cancelled', passenger: null, flight_number: null, erased_at: clock.now().toISOString() });
    expect((await booking(ride.ref, liveKey)).passenger.first_name).toBe('Ayesha');
    expect((await rows('select key from personal_data_keys where subject = ?', [`booking:${cancelled}`]))[0].key).toBeNull();

    // 91 days after the ride and the order's cancellation: both erased.
    clock.set(new Date(completedAt + 91 * DAY));
    r = await pass();
    expect(r).toMatchObject({ caughtUp: true, rows: { bookings_erased: 1, orders_erased: 1 } });
    expect(await booking(ride.ref, liveKey)).toMatchObject({ status: 'completed', passenger: null, erased_at: clock.now().toISOString() });
    const [stored] = await rows(`select "order", erased_at from marketplace_orders where order_id = 'RET-ORDER-1'`);
    expect(stored.erased_at).not.toBeNull();
    expect(JSON.stringify(stored.order)).not.toMatch(/Octavia|Retain|555 0101|octavia@/);
    // Nothing more: the next pass finds nothing due.
    r = await pass();
    expect(r).toMatchObject({ rows: { bookings_erased: 0, orders_erased: 0, positions: 0, last_positions: 0 } });

    // What it did is in the metrics, with the last pass that caught up (any instance's, from the database).
    const text = await scrape();
    expect(text).toMatch(/privacy_retention_rows_total\{kind="bookings_erased"\} 2\b/);
    expect(text).toMatch(/privacy_retention_rows_total\{kind="orders_erased"\} 1\b/);
    expect(text).toMatch(/privacy_retention_rows_total\{kind="positions"\} 2\b/);
    expect(text).toMatch(/privacy_retention_rows_total\{kind="audit_bodies"\} [1-9]/);
    expect(text).toMatch(/privacy_retention_duration_seconds_count [1-9]/);
    expect(text).toMatch(/privacy_retention_failures_total 0\b/);
    expect(text).toContain(`privacy_retention_last_success_timestamp_seconds ${clock.now().getTime() / 1000}`);
  });

  it('when another instance holds the lease, then a pass does nothing; two at once, then one runs', async () => {
    const held = new Date(clock.now().getTime() + 5 * 60_000);
    await svc.app.db.raw(
      `insert into privacy_passes (pass, holder, leased_until) values ('privacy', 'elsewhere', ?)
       on conflict (pass) do update set holder = excluded.holder, leased_until = excluded.leased_until`,
      [held],
    );
    expect(await pass('here')).toBeUndefined();
    expect((await rows(`select holder from privacy_passes where pass = 'privacy'`))[0].holder).toBe('elsewhere');

    clock.set(held);
    const both = await Promise.all([pass('first'), pass('second')]);
    expect(both.filter((p) => p !== undefined)).toHaveLength(1);
    // Given back: the next pass, on any instance, runs.
    expect(await pass('third')).toBeDefined();
  });

  it('when a pass fails, then its failed_at is recorded and the failure counted, and the next pass runs', async () => {
    const failures = async () => Number(/privacy_retention_failures_total (\d+)/.exec(await scrape())![1]);
    const was = await failures();
    const finished = (await rows(`select finished_at from privacy_passes where pass = 'privacy'`))[0].finished_at;
    clock.advance(60_000);
    await svc.app.db.raw('alter table job_locations rename to job_locations_away');
    try {
      expect(await privacyRetentionOnce(svc.app.deps, 'failing', metrics())).toBeUndefined();
    } finally {
      await svc.app.db.raw('alter table job_locations_away rename to job_locations');
    }
    const [row] = await rows(`select holder, leased_until, finished_at, failed_at from privacy_passes where pass = 'privacy'`);
    const time = (v: unknown) => (v === null ? null : new Date(v as string).getTime());
    expect({ holder: row.holder, leasedUntil: time(row.leased_until), finished: time(row.finished_at), failed: time(row.failed_at) }).toEqual({
      holder: 'failing',
      leasedUntil: clock.now().getTime(),
      finished: time(finished),
      failed: clock.now().getTime(),
    });
    expect(await failures()).toBe(was + 1);
    // The gauge still shows the last pass that caught up.
    expect(await scrape()).toContain(`privacy_retention_last_success_timestamp_seconds ${time(finished)! / 1000}`);

    clock.advance(60_000);
    expect(await privacyRetentionOnce(svc.app.deps, 'healthy', metrics())).toMatchObject({ caughtUp: true });
    expect(new Date((await rows(`select finished_at from privacy_passes where pass = 'privacy'`))[0].finished_at).getTime()).toBe(clock.now().getTime());
  });

  it('when FINANCIAL_RETENTION_YEARS have passed since the ride, then the erased bookings and order are deleted with what names them', async () => {
    const audit = await auditRows();
    const refs = [cancelled, ride.ref];
    // Not yet: ten years after the cancellation is not ten years after the ride.
    clock.set(new Date(Date.UTC(new Date(T0).getUTCFullYear() + 10, new Date(T0).getUTCMonth(), new Date(T0).getUTCDate() + 1)));
    let r = await pass();
    expect(r).toMatchObject({ rows: { bookings_deleted: 1, orders_deleted: 0 } });
    expect(await count('select count(*) as n from bookings where booking_ref = ?', [cancelled])).toBe(0);

    clock.set(new Date(completedAt + 10 * 366 * DAY));
    r = await pass();
    expect(r).toMatchObject({ caughtUp: true, rows: { bookings_deleted: 1, orders_deleted: 1 } });
    expect(await count('select count(*) as n from bookings where booking_ref = any(?)', [refs])).toBe(0);
    expect(await count('select count(*) as n from jobs where job_id = ?', [ride.jobId])).toBe(0);
    expect(await count('select count(*) as n from quotes where quote_id = any(?) or booking_ref = any(?)', [ride.quoteIds, refs])).toBe(0);
    expect(await count('select count(*) as n from webhook_events where booking_ref = any(?)', [refs])).toBe(0);
    expect(await count('select count(*) as n from idempotency_keys where booking_ref = any(?)', [refs])).toBe(0);
    expect(await count(`select count(*) as n from marketplace_orders where order_id = 'RET-ORDER-1'`)).toBe(0);
    expect(
      await count('select count(*) as n from personal_data_keys where subject = any(?)', [
        [...refs.map((ref) => `booking:${ref}`), `job:${ride.jobId}`, `order:RET-ORDER-1`, ...ride.quoteIds.map((q) => `quote:${q}`)],
      ]),
    ).toBe(0);
    // The audit log keeps every row (its months are dropped whole, AUDIT_RETENTION_MONTHS).
    expect(await auditRows()).toBe(audit);
  });

  it("when an AI agent's confirmation token expired over an hour ago, then the pass deletes it; one expired since, and one still valid, stay", async () => {
    const start = clock.now().getTime();
    const { partner_id, testKeyId } = svc.partner;
    const request = JSON.stringify({ passenger: { first_name: 'Agnes', last_name: 'Agent' } });
    for (const [hash, expiresAt] of [
      ['ret-old', start + 10 * 60_000],
      ['ret-recent', start + 2 * HOUR + 60_000],
      ['ret-live', start + 4 * HOUR],
    ] as const) {
      await svc.app.db.raw(
        `insert into agent_confirmations (token_hash, partner_id, env, key_id, kind, request, expires_at)
         values (?, ?, 'sandbox', ?, 'book', ?::jsonb, ?)`,
        [hash, partner_id, testKeyId, request, new Date(expiresAt)],
      );
    }
    // Three hours on: the first expired 2 h 50 min ago, the second 59 minutes ago; the third is valid an hour more.
    clock.set(new Date(start + 3 * HOUR));
    const r = await pass();
    expect(r).toMatchObject({ caughtUp: true, rows: { agent_confirmations: 1 } });
    const kept = await rows<{ token_hash: string }>(`select token_hash from agent_confirmations where token_hash like 'ret-%' order by token_hash`);
    expect(kept.map((k) => k.token_hash)).toEqual(['ret-live', 'ret-recent']);
    expect(await scrape()).toMatch(/privacy_retention_rows_total\{kind="agent_confirmations"\} 1\b/);
  });
});

describe('The privacy retention settings', () => {
  it('default to 90 days for travellers, 30 for tracks and audit bodies, 10 years for the financial lines; each is a positive whole number', () => {
    expect(testConfig().privacyRetention).toEqual({ travellerDataDays: 90, rideTrackDays: 30, auditBodyDays: 30, financialYears: 10 });
    expect(
      testConfig({ TRAVELLER_DATA_RETENTION_DAYS: '365', RIDE_TRACK_RETENTION_DAYS: '7', AUDIT_BODY_RETENTION_DAYS: '14', FINANCIAL_RETENTION_YEARS: '7' })
        .privacyRetention,
    ).toEqual({ travellerDataDays: 365, rideTrackDays: 7, auditBodyDays: 14, financialYears: 7 });
    for (const [name, value] of [
      ['TRAVELLER_DATA_RETENTION_DAYS', '0'],
      ['RIDE_TRACK_RETENTION_DAYS', '-1'],
      ['AUDIT_BODY_RETENTION_DAYS', '1.5'],
      ['FINANCIAL_RETENTION_YEARS', 'ten'],
    ]) {
      expect(() => testConfig({ [name]: value })).toThrow(new RegExp(`${name}:`));
    }
  });
});
