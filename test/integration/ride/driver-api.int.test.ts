import { ManualClock } from '../../../src/shared/clock';
import { quoteAndBook } from '../../support/bookings';
import { useTestApp } from '../../support/use-test-app';
import { eventually } from '../../support/eventually';

const NOW = '2026-11-21T08:00:00Z';
/** 2026-12-01 09:30 in Sri Lanka: the pickup of the airport arrivals below. */
const PICKUP = Date.parse('2026-12-01T04:00:00Z');
const at = (minutesFromPickup: number) => new Date(PICKUP + minutesFromPickup * 60_000).toISOString();

/**
 * The driver API: a driver's phone, with its own token, sees only its driver's jobs and moves the ride through its
 * states; partners see each state (and its event) and the driver's position while the ride is under way.
 */
describe('Driver API: tokens, ride states and what partners see', () => {
  const clock = new ManualClock(NOW);
  const svc = useTestApp({ clock, outboxWorker: false, partner: 'Ride Travel' });
  afterEach(() => clock.set(NOW));

  /** A production booking CMB → Colombo at PICKUP, assigned to a new driver who holds a token. */
  async function assignedRide(pickupDatetime = '2026-12-01T09:30:00+05:30', dropoff?: object) {
    const vehicle = await svc.ops.vehicle('standard_car', { colour: 'Silver', plate: `CAB-${Math.floor(Math.random() * 9000) + 1000}` });
    const driver = await svc.ops.driver('Nimal Perera', '+94771112233');
    const { booking } = await quoteAndBook(svc.call, svc.partner.liveKey, { pickupDatetime, ...(dropoff ? { dropoff } : {}) });
    const [job] = await svc.ops.jobs({ booking_ref: booking.booking_ref });
    const assigned = await svc.ops.call('POST', `/jobs/${job.job_id}/assign`, { body: { driver_id: driver.driver_id, vehicle_id: vehicle.vehicle_id } });
    expect(assigned.status).toBe(200);
    const token = await svc.ops.driverToken(driver.driver_id);
    expect(token.token).toMatch(/^drv_[A-Za-z0-9]{40}$/);
    return { booking, job, driver, vehicle, token: token.token, tokenId: token.token_id };
  }
  const step = (token: string, jobId: string, status: string, note?: string) =>
    svc.call('POST', `/driver/v1/jobs/${jobId}/status`, { key: token, body: note ? { status, note } : { status } });
  const booking = async (ref: string) => (await svc.call('GET', `/transfers/v1/bookings/${ref}`, { key: svc.partner.liveKey })).body;

  it('when a driver signs in, then the token names the driver and reaches only that driver’s jobs; revoked, it is 401 at once', async () => {
    const mine = await assignedRide();
    const other = await assignedRide();

    const me = await svc.call('GET', '/driver/v1/me', { key: mine.token });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ driver_id: mine.driver.driver_id, name: 'Nimal Perera', token_id: mine.tokenId, today: '2026-11-21' });

    const list = await svc.call('GET', '/driver/v1/jobs?date=2026-12-01', { key: mine.token });
    expect(list.status).toBe(200);
    expect(list.body.data.map((j: any) => j.job_id)).toEqual([mine.job.job_id]);
    expect(list.body.data[0]).toMatchObject({
      status: 'driver_assigned',
      next: [],
      passenger: { name: 'Ayesha Perera', phone: '+94771234567' },
      flight: { number: 'UL504', status: 'unknown' },
      vehicle: { plate: mine.vehicle.plate, colour: 'Silver' },
      waiting: { free_minutes: 60, arrived_at: null, no_show_from: null },
    });

    // Another driver's job does not exist for this token, to read or to move.
    expect((await svc.call('GET', `/driver/v1/jobs/${other.job.job_id}`, { key: mine.token })).status).toBe(404);
    clock.set(at(-60));
    const foreign = await step(mine.token, other.job.job_id, 'en_route');
    expect(foreign.status).toBe(404);
    expect((await svc.ops.jobs({ booking_ref: other.booking.booking_ref }))[0].status).toBe('driver_assigned');

    // Operator tokens and partner keys are not driver tokens.
    expect((await svc.call('GET', '/driver/v1/me', { key: svc.partner.liveKey })).status).toBe(401);

    const revoked = await svc.ops.call('POST', `/driver-tokens/${mine.tokenId}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).toBe(at(-60));
    const after = await svc.call('GET', '/driver/v1/me', { key: mine.token });
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('unauthorized');

    // The token never reaches the audit log.
    const rows = await svc.ops.audit({ surface: 'driver', limit: '50' });
    expect(rows.length).toBeGreaterThan(0);
    expect(JSON.stringify(rows)).not.toContain(mine.token.slice(4));
  });

  it('when "completed" comes seconds after "on board" on a three-hour ride, or before the pickup, then it is refused until half the drive has passed, for the driver and the operator alike', async () => {
    const r = await assignedRide('2026-12-01T09:30:00+05:30', { name: 'Kandy' });
    expect(r.job.duration_min ?? (Date.parse(r.job.dropoff_at) - Date.parse(r.job.pickup_at)) / 60_000).toBeGreaterThan(120);
    const operatorEarly = await svc.ops.call('POST', `/jobs/${r.job.job_id}/complete`);
    expect(operatorEarly.body.error.details).toMatchObject({ reason: 'before_pickup' });
    clock.set(at(-30));
    await step(r.token, r.job.job_id, 'en_route');
    clock.set(at(-1));
    await step(r.token, r.job.job_id, 'arrived');
    expect((await step(r.token, r.job.job_id, 'on_board')).body.status).toBe('on_board');
    // The finding: a tap on "Ride completed" 8 seconds later, 146 km from the drop-off.
    clock.set(new Date(PICKUP + 8_000).toISOString());
    const tooSoon = await step(r.token, r.job.job_id, 'completed');
    expect(tooSoon.status).toBe(409);
    expect(tooSoon.body.error).toMatchObject({ code: 'job_conflict', details: { reason: 'too_soon', completion_from: expect.any(String) } });
    const from = Date.parse(tooSoon.body.error.details.completion_from);
    expect(from).toBeGreaterThan(PICKUP + 60 * 60_000);
    expect((await step(r.token, r.job.job_id, 'on_board')).body).toMatchObject({ status: 'on_board', next: [] });
    const operator = await svc.ops.call('POST', `/jobs/${r.job.job_id}/complete`);
    expect(operator.body.error.details).toMatchObject({ reason: 'too_soon', completion_from: tooSoon.body.error.details.completion_from });
    expect((await booking(r.booking.booking_ref)).status).toBe('passenger_on_board');
    clock.set(new Date(from).toISOString());
    expect((await step(r.token, r.job.job_id, 'completed')).body.status).toBe('completed');
  });

  it('when the driver drives the ride, then each step is refused out of order or too early, and partners see each state with its event and position', async () => {
    const r = await assignedRide();
    const ref = r.booking.booking_ref;

    // More than 3 hours before pickup: too early to set off.
    clock.set(at(-181));
    const early = await step(r.token, r.job.job_id, 'en_route');
    expect(early.status).toBe(409);
    expect(early.body.error).toMatchObject({ code: 'job_conflict', details: { reason: 'too_early', en_route_from: at(-180) } });
    // Out of order.
    const skip = await step(r.token, r.job.job_id, 'arrived');
    expect(skip.status).toBe(409);
    expect(skip.body.error.details).toMatchObject({ reason: 'invalid_transition', status: 'driver_assigned', allowed: ['en_route'] });

    clock.set(at(-90));
    const enRoute = await step(r.token, r.job.job_id, 'en_route');
    expect(enRoute.status).toBe(200);
    expect(enRoute.body).toMatchObject({ status: 'en_route', next: ['arrived'] });
    // A repeated tap changes nothing.
    expect((await step(r.token, r.job.job_id, 'en_route')).body.status).toBe('en_route');

    const pos = await svc.call('POST', '/driver/v1/location', { key: r.token, body: { lat: 7.2, lon: 79.9, accuracy: 8 } });
    expect(pos.status).toBe(202);
    expect(pos.body).toEqual({ job_id: r.job.job_id, at: at(-90) });
    let b = await booking(ref);
    expect(b.status).toBe('driver_en_route');
    expect(b.driver.location).toEqual({ lat: 7.2, lon: 79.9, at: at(-90) });
    expect(b.waiting_policy).toEqual({ free_minutes: 60 });
    expect(b.tracking_url).toMatch(/\/t\/[A-Za-z0-9]{24}$/);

    clock.set(at(-5));
    expect((await step(r.token, r.job.job_id, 'arrived')).body).toMatchObject({ status: 'arrived', waiting: { arrived_at: at(-5), no_show_from: at(60) } });
    clock.set(at(10));
    expect((await step(r.token, r.job.job_id, 'on_board')).body.status).toBe('on_board');
    expect((await booking(ref)).status).toBe('passenger_on_board');
    clock.set(at(55));
    const done = await step(r.token, r.job.job_id, 'completed');
    expect(done.body).toMatchObject({ status: 'completed', next: [] });
    b = await booking(ref);
    expect(b.status).toBe('completed');
    expect(b.driver.location).toBeNull();
    const closed = await step(r.token, r.job.job_id, 'on_board');
    expect(closed.body.error.details).toMatchObject({ reason: 'job_closed', status: 'completed' });

    // The operator sees the ride's times; the partner, one event per state, in sequence.
    const [job] = await svc.ops.jobs({ booking_ref: ref });
    expect(job).toMatchObject({ status: 'completed', ride: { en_route_at: at(-90), arrived_at: at(-5), on_board_at: at(10) } });
    const mine = await eventually('the ride’s six events', async () => {
      const listed = (await svc.call('GET', '/transfers/v1/events?limit=100', { key: svc.partner.liveKey })).body.data;
      const found = listed.filter((e: any) => e.data.booking?.booking_ref === ref);
      return found.length >= 6 ? found : undefined;
    });
    const seen = mine.map((e: any) => [e.sequence, e.type]);
    expect(seen).toEqual([
      [1, 'booking.confirmed'],
      [2, 'booking.driver_assigned'],
      [3, 'booking.driver_en_route'],
      [4, 'booking.driver_arrived'],
      [5, 'booking.passenger_on_board'],
      [6, 'booking.completed'],
    ]);
    const enRouteEvent = mine.find((e: any) => e.type === 'booking.driver_en_route');
    expect(enRouteEvent.data.booking.status).toBe('driver_en_route');
  });

  it('when the passenger does not come, then a no-show is refused until the free waiting time has passed, counted from the later of arrival and pickup', async () => {
    const r = await assignedRide();
    clock.set(at(-30));
    await step(r.token, r.job.job_id, 'en_route');
    clock.set(at(-20));
    await step(r.token, r.job.job_id, 'arrived');
    // Arrived before pickup: the hour of free waiting runs from the pickup time.
    clock.set(at(59));
    const soon = await step(r.token, r.job.job_id, 'no_show');
    expect(soon.status).toBe(409);
    expect(soon.body.error.details).toMatchObject({ reason: 'waiting_time', no_show_from: at(60) });
    expect((await booking(r.booking.booking_ref)).status).toBe('driver_arrived');

    clock.set(at(60));
    const gone = await step(r.token, r.job.job_id, 'no_show', 'Waited at the arrivals exit; phone unanswered.');
    expect(gone.status).toBe(200);
    expect(gone.body.status).toBe('no_show');
    expect((await booking(r.booking.booking_ref)).status).toBe('no_show');
  });

  it('when the driver is not on the way 30 minutes before pickup, then the board flags the job late until they set off', async () => {
    const r = await assignedRide();
    clock.set(at(-31));
    expect((await svc.ops.jobs({ booking_ref: r.booking.booking_ref }))[0].alerts).toEqual([]);
    clock.set(at(-30));
    expect((await svc.ops.jobs({ booking_ref: r.booking.booking_ref }))[0].alerts).toEqual(['late']);
    await step(r.token, r.job.job_id, 'en_route');
    expect((await svc.ops.jobs({ booking_ref: r.booking.booking_ref }))[0]).toMatchObject({ status: 'en_route', alerts: [] });
  });

  it('when a sandbox booking is advanced through the ride, then each state has its event and the fictitious driver’s position while under way', async () => {
    const { booking } = await quoteAndBook(svc.call, svc.partner.testKey);
    const advance = (to: string) =>
      svc.call('POST', `/transfers/v1/test_helpers/bookings/${booking.booking_ref}/advance`, { key: svc.partner.testKey, body: { to } });
    const enRoute = await advance('driver_en_route');
    expect(enRoute.status).toBe(200);
    expect(enRoute.body).toMatchObject({ status: 'driver_en_route', driver: { name: 'Sandbox Driver (fictitious)', location: { lon: booking.pickup.lon } } });
    expect((await advance('driver_arrived')).body.driver.location).toMatchObject({ lat: booking.pickup.lat, lon: booking.pickup.lon });
    expect((await advance('passenger_on_board')).body.status).toBe('passenger_on_board');
    const back = await advance('driver_arrived');
    expect(back.status).toBe(409);
    expect(back.body.error.details).toMatchObject({ reason: 'invalid_transition', status: 'passenger_on_board' });
    const done = await advance('completed');
    expect(done.body).toMatchObject({ status: 'completed', driver: { location: null } });
    const listed = await eventually('the sandbox ride’s five events', async () => {
      const all = (await svc.call('GET', '/transfers/v1/events?limit=100', { key: svc.partner.testKey })).body.data;
      const found = all.filter((e: any) => e.data.booking?.booking_ref === booking.booking_ref);
      return found.length >= 5 ? found : undefined;
    });
    expect(listed.map((e: any) => e.type)).toEqual([
      'booking.confirmed',
      'booking.driver_en_route',
      'booking.driver_arrived',
      'booking.passenger_on_board',
      'booking.completed',
    ]);
  });

  it('when the same tap arrives twice at once (a weak signal, a retry), then the ride moves once and the partner gets one event', async () => {
    const r = await assignedRide();
    clock.set(at(-60));
    const [one, two] = await Promise.all([step(r.token, r.job.job_id, 'en_route'), step(r.token, r.job.job_id, 'en_route')]);
    expect([one.status, two.status]).toEqual([200, 200]);
    // Its events are all written by now; the listing shows them once earlier transactions elsewhere have ended.
    const mine = await eventually('the en-route event', async () => {
      const listed = (await svc.call('GET', '/transfers/v1/events?type=booking.driver_en_route&limit=100', { key: svc.partner.liveKey })).body.data;
      const found = listed.filter((e: any) => e.data.booking?.booking_ref === r.booking.booking_ref);
      return found.length ? found : undefined;
    });
    expect(mine).toHaveLength(1);
  });

  it("when a phone's clock is a day behind, then its position is kept at the time the service received it, not 'from 1387 min ago'", async () => {
    const r = await assignedRide();
    clock.set(at(-30));
    const wrong = new Date(PICKUP - 30 * 60_000 - 1387 * 60_000).toISOString();
    const pos = await svc.call('POST', '/driver/v1/location', { key: r.token, body: { lat: 7.15, lon: 79.88, at: wrong } });
    expect(pos.status).toBe(202);
    expect(pos.body).toEqual({ job_id: r.job.job_id, at: at(-30) });
    expect((await svc.ops.jobs({ booking_ref: r.booking.booking_ref }))[0].last_location).toEqual({ lat: 7.15, lon: 79.88, at: at(-30) });
    // A position queued offline during the live window keeps its own time.
    clock.set(at(-10));
    const queued = await svc.call('POST', '/driver/v1/location', { key: r.token, body: { lat: 7.16, lon: 79.88, at: at(-20) } });
    expect(queued.body.at).toBe(at(-20));
  });

  it('when positions arrive with no live job (queued offline, after the ride), then they are accepted and kept nowhere; one dated ahead is refused', async () => {
    const r = await assignedRide();
    clock.set(at(-200));
    const pos = await svc.call('POST', '/driver/v1/location', { key: r.token, body: { lat: 7.1, lon: 79.9, at: at(-201) } });
    expect(pos.status).toBe(202);
    expect(pos.body.job_id).toBeNull();
    expect((await svc.ops.jobs({ booking_ref: r.booking.booking_ref }))[0].last_location).toBeNull();
    // A position dated more than a minute ahead (a phone's clock far off) is refused, and kept nowhere.
    clock.set(at(-30));
    const ahead = await svc.call('POST', '/driver/v1/location', { key: r.token, body: { lat: 7.1, lon: 79.9, at: at(-20) } });
    expect(ahead.status).toBe(409);
    expect(ahead.body.error).toMatchObject({ code: 'job_conflict', details: { reason: 'future_position' } });
    expect((await svc.ops.jobs({ booking_ref: r.booking.booking_ref }))[0].last_location).toBeNull();
  });
});
