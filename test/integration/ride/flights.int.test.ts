import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ManualClock } from '../../../src/shared/clock';
import { auditedFlightStatus } from '../../../src/server';
import type { FlightStatus } from '../../../src/domain/flights/flight-status';
import { pollFlightsOnce } from '../../../src/domain/flights/poll-flights';
import { createFlightSimulator } from '../../../simulators/flights/app';
import { quoteAndBook } from '../../support/bookings';
import { useTestApp } from '../../support/use-test-app';
import { eventually } from '../../support/eventually';

const NOW = '2026-11-21T08:00:00Z';
let day = 0;

/**
 * Flight-aware pickups: airport arrivals are polled from 6 hours before pickup (here against the flight simulator,
 * through the HTTP adapter); a delay of 10 minutes or more moves the job's window and the booking's
 * pickup_estimated_at (never its booked pickup), with booking.flight_updated; the poller stops at landing; a failing
 * provider backs off without touching requests. In sandbox a test helper scripts the flight and applies it at once.
 */
describe('Flight-aware pickups', () => {
  const clock = new ManualClock(NOW);
  const svc = useTestApp({ clock, outboxWorker: false, partner: 'Flight Travel' });
  const sim = createFlightSimulator({ now: () => clock.now(), key: 'flight-provider-key-0123' });
  let server: http.Server;
  let provider: FlightStatus;
  const poll = () => pollFlightsOnce(svc.app.deps, provider);

  beforeAll(async () => {
    server = http.createServer(sim.app).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    provider = auditedFlightStatus(svc.app.deps, `http://127.0.0.1:${(server.address() as AddressInfo).port}`, 'flight-provider-key-0123');
  });
  afterAll(() => new Promise((r) => server.close(r)));
  afterEach(() => {
    clock.set(NOW);
    sim.reset();
  });

  /** A production arrival on a day of its own (so polls of other tests' jobs never interfere), its pickup in UTC. */
  async function arrival(flight: string, onDate?: string, time = '09:30') {
    if (!onDate) day += 1;
    const date = onDate ?? `2026-12-${String(day).padStart(2, '0')}`;
    const pickup = new Date(`${date}T${time}:00+05:30`);
    const { booking } = await quoteAndBook(svc.call, svc.partner.liveKey, { pickupDatetime: `${date}T${time}:00+05:30` });
    const [job] = await svc.ops.jobs({ booking_ref: booking.booking_ref });
    await svc.app.db.raw('update jobs set flight_number = ? where job_id = ?', [flight, job.job_id]);
    return { booking, job, date, pickup, minutes: (m: number) => new Date(pickup.getTime() + m * 60_000) };
  }
  /** The booking's events, once at least `n` are listed (see support/eventually.ts). */
  const events = (ref: string, n: number, key = svc.partner.liveKey) =>
    eventually(`${n} events of ${ref}`, async () => {
      const listed = (await svc.call('GET', '/transfers/v1/events?limit=100', { key })).body.data;
      const found = listed.filter((e: any) => e.data.booking?.booking_ref === ref);
      return found.length >= n ? found : undefined;
    });

  it('when the flight is 95 minutes late, then the window and pickup_estimated_at move, the booked pickup stays, the partner is told, and polling stops at landing', async () => {
    const a = await arrival('UL504');
    sim.script({ flight_number: 'UL504', date: a.date, scheduled_arrival: a.pickup.toISOString(), scenario: 'delayed', minutes: 95 });

    clock.set(a.minutes(-7 * 60));
    expect(await poll()).toEqual({ checked: 0, failed: 0 });
    clock.set(a.minutes(-5 * 60));
    expect(await poll()).toEqual({ checked: 1, failed: 0 });

    const b = (await svc.call('GET', `/transfers/v1/bookings/${a.booking.booking_ref}`, { key: svc.partner.liveKey })).body;
    expect(b.pickup_datetime).toBe(a.booking.pickup_datetime);
    expect(b.pickup_estimated_at).toBe(a.minutes(95).toISOString());
    expect(b.flight).toEqual({ number: 'UL504', status: 'delayed', scheduled_arrival: a.pickup.toISOString(), estimated_arrival: a.minutes(95).toISOString() });
    const [job] = await svc.ops.jobs({ booking_ref: a.booking.booking_ref });
    expect(job.pickup_at).toBe(a.pickup.toISOString());
    expect(job.pickup_estimated_at).toBe(a.minutes(95).toISOString());
    expect(Date.parse(job.ends_at) - Date.parse(a.job.ends_at)).toBe(95 * 60_000);
    expect((await events(a.booking.booking_ref, 2)).map((e: any) => e.type)).toEqual(['booking.confirmed', 'booking.flight_updated']);

    // Not due again for 15 minutes; the same news changes nothing and tells nobody again.
    expect(await poll()).toEqual({ checked: 0, failed: 0 });
    clock.set(a.minutes(-5 * 60 + 15));
    expect(await poll()).toEqual({ checked: 1, failed: 0 });
    expect(await events(a.booking.booking_ref, 2)).toHaveLength(2);

    // Landed: checked once more, then never again.
    clock.set(a.minutes(96));
    expect(await poll()).toEqual({ checked: 1, failed: 0 });
    expect((await svc.ops.jobs({ booking_ref: a.booking.booking_ref }))[0].flight.status).toBe('landed');
    const asked = sim.requests().length;
    clock.set(a.minutes(200));
    expect(await poll()).toEqual({ checked: 0, failed: 0 });
    expect(sim.requests()).toHaveLength(asked);

    // Every lookup is in the audit log, the provider's key redacted.
    const lookups = await svc.ops.audit({ surface: 'flights', direction: 'outbound', limit: '50' });
    expect(lookups.filter((r) => r.path.startsWith('/flights/UL504?'))).toHaveLength(asked);
    expect(lookups[0]).toMatchObject({ method: 'GET', status: 200, request_headers: { authorization: 'Bearer [REDACTED]' } });
    expect(JSON.stringify(lookups)).not.toContain('flight-provider-key-0123');
  });

  it('when the provider fails, then the flight backs off and retries, and partners’ requests never wait on it', async () => {
    const a = await arrival('UL306');
    sim.script({ flight_number: 'UL306', date: a.date, scheduled_arrival: a.pickup.toISOString(), scenario: 'failing' });
    clock.set(a.minutes(-60));
    expect(await poll()).toEqual({ checked: 0, failed: 1 });
    expect((await svc.call('GET', `/transfers/v1/bookings/${a.booking.booking_ref}`, { key: svc.partner.liveKey })).status).toBe(200);
    // Backing off: not due again within the minute, due after it.
    clock.set(a.minutes(-59.5));
    expect(await poll()).toEqual({ checked: 0, failed: 0 });
    sim.script({ flight_number: 'UL306', date: a.date, scheduled_arrival: a.pickup.toISOString(), scenario: 'delayed', minutes: 30 });
    clock.set(a.minutes(-58));
    expect(await poll()).toEqual({ checked: 1, failed: 0 });
    expect((await svc.ops.jobs({ booking_ref: a.booking.booking_ref }))[0].pickup_estimated_at).toBe(a.minutes(30).toISOString());
  });

  it('when the flight is cancelled, then the job is flagged for the dispatcher and the partner told, with flight.status cancelled', async () => {
    const a = await arrival('UL122');
    sim.script({ flight_number: 'UL122', date: a.date, scheduled_arrival: a.pickup.toISOString(), scenario: 'cancelled' });
    clock.set(a.minutes(-120));
    expect(await poll()).toEqual({ checked: 1, failed: 0 });
    const [job] = await svc.ops.jobs({ booking_ref: a.booking.booking_ref });
    expect(job.alerts).toEqual(expect.arrayContaining(['flight_cancelled']));
    expect(job.pickup_estimated_at).toBeNull();
    const [, updated] = await events(a.booking.booking_ref, 2);
    expect(updated.type).toBe('booking.flight_updated');
    expect(updated.data.booking.flight.status).toBe('cancelled');
    expect(updated.data.booking.pickup_estimated_at).toBeNull();
  });

  it('when a delay moves the window onto the driver’s next job, then the driver is released and the board flags it', async () => {
    const a = await arrival('UL225');
    const next = await quoteAndBook(svc.call, svc.partner.liveKey, { pickupDatetime: `${a.date}T13:30:00+05:30` });
    const [nextJob] = await svc.ops.jobs({ booking_ref: next.booking.booking_ref });
    const driver = await svc.ops.driver('Kamal Silva');
    const car = await svc.ops.vehicle('standard_car');
    const other = await svc.ops.vehicle('standard_car');
    expect((await svc.ops.call('POST', `/jobs/${a.job.job_id}/assign`, { body: { driver_id: driver.driver_id, vehicle_id: car.vehicle_id } })).status).toBe(
      200,
    );
    const kept = await svc.ops.call('POST', `/jobs/${nextJob.job_id}/assign`, { body: { driver_id: driver.driver_id, vehicle_id: other.vehicle_id } });
    expect(kept.status).toBe(200);

    sim.script({ flight_number: 'UL225', date: a.date, scheduled_arrival: a.pickup.toISOString(), scenario: 'delayed', minutes: 180 });
    clock.set(a.minutes(-60));
    // Both are airport arrivals: the next one's flight (UL504, unknown to the provider) is checked too, and stays.
    expect(await poll()).toEqual({ checked: 2, failed: 0 });
    const [job] = await svc.ops.jobs({ booking_ref: a.booking.booking_ref });
    expect(job).toMatchObject({ status: 'confirmed', driver: null, released: { reason: 'flight_moved' }, pickup_estimated_at: a.minutes(180).toISOString() });
    expect(job.alerts).toEqual(expect.arrayContaining(['flight_moved_released']));
    expect((await svc.ops.jobs({ booking_ref: next.booking.booking_ref }))[0].driver.driver_id).toBe(driver.driver_id);
    // The partner's booking no longer shows a driver it will not get: confirmed again, with the moved pickup.
    const b = (await svc.call('GET', `/transfers/v1/bookings/${a.booking.booking_ref}`, { key: svc.partner.liveKey })).body;
    expect(b).toMatchObject({ status: 'confirmed', driver: null, pickup_estimated_at: a.minutes(180).toISOString() });
    const [, assignedEvent, updated] = await events(a.booking.booking_ref, 3);
    expect(assignedEvent.type).toBe('booking.driver_assigned');
    expect(updated).toMatchObject({ type: 'booking.flight_updated', data: { booking: { status: 'confirmed', driver: null } } });
  });

  it('when two pollers (two instances) run at once, then each due flight is asked about once', async () => {
    const a = await arrival('UL401');
    const b = await arrival('UL402', a.date, '10:30');
    sim.script({ flight_number: 'UL401', date: a.date, scheduled_arrival: a.pickup.toISOString(), scenario: 'on_time' });
    sim.script({ flight_number: 'UL402', date: b.date, scheduled_arrival: b.pickup.toISOString(), scenario: 'on_time' });
    clock.set(a.minutes(-120));
    const passes = await Promise.all([poll(), poll()]);
    expect(passes.reduce((n, p) => n + p.checked, 0)).toBe(2);
    expect(
      sim
        .requests()
        .map((r) => r.number)
        .sort(),
    ).toEqual(['UL401', 'UL402']);
  });

  it('when a sandbox partner scripts a flight, then its sandbox bookings follow at once with booking.flight_updated; a live key gets 404', async () => {
    const { booking } = await quoteAndBook(svc.call, svc.partner.testKey, { pickupDatetime: '2026-12-20T09:30:00+05:30' });
    const r = await svc.call('POST', '/transfers/v1/test_helpers/flights', {
      key: svc.partner.testKey,
      body: { flight_number: 'ul 504', date: '2026-12-20', delay_minutes: 45 },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ flight_number: 'UL504', date: '2026-12-20', delay_minutes: 45, status: 'delayed' });
    expect(r.body.bookings.map((b: any) => [b.booking_ref, b.pickup_estimated_at])).toEqual([[booking.booking_ref, '2026-12-20T04:45:00.000Z']]);
    expect((await events(booking.booking_ref, 2, svc.partner.testKey)).map((e: any) => e.type)).toEqual(['booking.confirmed', 'booking.flight_updated']);

    const live = await svc.call('POST', '/transfers/v1/test_helpers/flights', {
      key: svc.partner.liveKey,
      body: { flight_number: 'UL504', date: '2026-12-20', delay_minutes: 45 },
    });
    expect(live.status).toBe(404);
  });
});
