import { ManualClock } from '../../../src/shared/clock';
import { quoteAndBook } from '../../support/bookings';
import { backend } from '../../support/test-app';
import { useTestApp } from '../../support/use-test-app';

const NOW = '2026-11-21T08:00:00Z';
const PICKUP_AT = Date.parse('2026-12-01T04:00:00Z');

/**
 * Free changes in place (PATCH /bookings/{booking_ref}): If-Match required and checked, one winner of concurrent
 * changes, the refusals (too late, luggage beyond the vehicle, a finished booking), Idempotency-Key, the job
 * following, and `booking.amended` with what changed.
 */
describe(`Amending a booking (${backend})`, () => {
  const clock = new ManualClock(NOW);
  const svc = useTestApp({ clock, partner: 'Amend Travel', resetClock: true });
  beforeAll(async () => {
    for (let i = 0; i < 6; i++) await svc.ops.vehicle('standard_car');
  });

  const patch = (ref: string, body: unknown, headers: Record<string, string> = {}, key = svc.partner.testKey) =>
    svc.call('PATCH', `/transfers/v1/bookings/${ref}`, { key, body, headers });
  const bookingRow = (ref: string) => svc.app.db('bookings').where({ bookingRef: ref }).first();

  it('when If-Match is missing, then 428 naming the current version, and nothing changes', async () => {
    const { booking } = await quoteAndBook(svc.call, svc.partner.testKey);
    const r = await patch(booking.booking_ref, { notes: 'Sign: Perera' });
    expect(r.status).toBe(428);
    expect(r.body.error).toMatchObject({ code: 'precondition_required', details: { booking_ref: booking.booking_ref, current_version: 1 } });
    expect((await bookingRow(booking.booking_ref)).notes).toBeNull();
  });

  it('when the amendment names the version read, then 200 at version 2 with its ETag, and booking.amended names what changed', async () => {
    const { booking, etag } = await quoteAndBook(svc.call, svc.partner.testKey);
    const r = await patch(
      booking.booking_ref,
      { passenger: { phone: '+94 77 765 4321' }, flight_number: 'ul 506', luggage: 3, notes: 'Sign: Perera family' },
      { 'If-Match': etag },
    );
    expect(r.status).toBe(200);
    expect(r.headers.get('etag')).toBe('"2"');
    expect(r.body).toMatchObject({
      version: 2,
      passenger: { first_name: 'Ayesha', last_name: 'Perera', email: 'ayesha@example.com', phone: '+94 77 765 4321' },
      flight_number: 'UL506',
      passengers: { adults: 2, children: 0, luggage: 3 },
      notes: 'Sign: Perera family',
      price: booking.price,
    });
    expect(r.body.meeting_instructions).toContain('UL506');
    const read = await svc.call('GET', `/transfers/v1/bookings/${booking.booking_ref}`, { key: svc.partner.testKey });
    expect(read.text).toBe(r.text);
    const events = await svc.app.db('webhook_events').where({ bookingRef: booking.booking_ref }).orderBy('sequence');
    expect(events.map((e: { type: string; sequence: number }) => [e.type, e.sequence])).toEqual([
      ['booking.confirmed', 1],
      ['booking.amended', 2],
    ]);
    expect(events[1].payload.data.changes).toEqual(['passenger', 'flight_number', 'luggage', 'notes']);
    expect(events[1].payload.data.booking).toEqual(r.body);
    const audit = await svc.app.db('audit_log').where({ requestId: r.headers.get('x-request-id')! });
    expect(audit).toHaveLength(1);
    expect(audit[0].method).toBe('PATCH');

    // The ETag read before is stale now: 412 with the current version, and nothing changes.
    const stale = await patch(booking.booking_ref, { notes: 'Sign: Mr Perera' }, { 'If-Match': etag });
    expect(stale.status).toBe(412);
    expect(stale.body.error).toMatchObject({ code: 'precondition_failed', details: { current_version: 2 } });
    expect((await bookingRow(booking.booking_ref)).notes).toBe('Sign: Perera family');
  });

  it('when a change changes nothing, then the booking comes back as it is, at the same version, with no event', async () => {
    const { booking, etag } = await quoteAndBook(svc.call, svc.partner.testKey);
    const r = await patch(booking.booking_ref, { luggage: 2 }, { 'If-Match': etag });
    expect(r.status).toBe(200);
    expect(r.body.version).toBe(1);
    expect(await svc.app.db('webhook_events').where({ bookingRef: booking.booking_ref, type: 'booking.amended' })).toHaveLength(0);
  });

  it('when two amendments race with the same If-Match, then exactly one wins and the other is 412', async () => {
    const { booking, etag } = await quoteAndBook(svc.call, svc.partner.testKey);
    const results = await Promise.all(['A', 'B', 'C', 'D'].map((n) => patch(booking.booking_ref, { notes: `Sign ${n}` }, { 'If-Match': etag })));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 412, 412, 412]);
    const winner = results.find((r) => r.status === 200)!;
    const row = await bookingRow(booking.booking_ref);
    expect(row.version).toBe(2);
    expect(row.notes).toBe(winner.body.notes);
    expect(await svc.app.db('webhook_events').where({ bookingRef: booking.booking_ref, type: 'booking.amended' })).toHaveLength(1);
  });

  it('when the same Idempotency-Key comes again, then the first answer replays (even though the ETag moved on); with another body, 409', async () => {
    const { booking, etag } = await quoteAndBook(svc.call, svc.partner.testKey);
    const headers = { 'If-Match': etag, 'Idempotency-Key': `amend-${booking.booking_ref}` };
    const first = await patch(booking.booking_ref, { notes: 'Sign: once' }, headers);
    const again = await patch(booking.booking_ref, { notes: 'Sign: once' }, headers);
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('original-request-id')).toBe(first.headers.get('x-request-id'));
    expect(again.text).toBe(first.text);
    expect((await bookingRow(booking.booking_ref)).version).toBe(2);
    const other = await patch(booking.booking_ref, { notes: 'Sign: twice' }, headers);
    expect(other.status).toBe(409);
    expect(other.body.error.details.reason).toBe('body_mismatch');
  });

  it('when the luggage outgrows the booked vehicle, then 409 vehicle_too_small pointing at a change quote', async () => {
    const { booking, etag } = await quoteAndBook(svc.call, svc.partner.testKey);
    const r = await patch(booking.booking_ref, { luggage: 4 }, { 'If-Match': etag });
    expect(r.status).toBe(409);
    expect(r.body.error.details).toMatchObject({ reason: 'vehicle_too_small', luggage: 4, max_luggage: 3 });
    expect(r.body.error.message).toContain('change_quotes');
  });

  it('when pickup is less than 2 hours away, then 409 too_late; when the booking is cancelled, then 409 not_amendable', async () => {
    const late = await quoteAndBook(svc.call, svc.partner.testKey);
    clock.set(new Date(PICKUP_AT - 119 * 60_000));
    const r = await patch(late.booking.booking_ref, { notes: 'x' }, { 'If-Match': late.etag });
    expect(r.status).toBe(409);
    expect(r.body.error.details).toMatchObject({ reason: 'too_late', emergency_phone: '+94 11 234 5678' });

    clock.set(NOW);
    const cancelled = await quoteAndBook(svc.call, svc.partner.testKey);
    await svc.call('POST', `/transfers/v1/bookings/${cancelled.booking.booking_ref}/cancel`, { key: svc.partner.testKey });
    const c = await patch(cancelled.booking.booking_ref, { notes: 'x' }, { 'If-Match': cancelled.etag });
    expect(c.status).toBe(409);
    expect(c.body.error.details).toMatchObject({ reason: 'not_amendable', status: 'cancelled' });
  });

  it('when a production booking is amended, then its job follows: passenger, flight, luggage and notes on the dispatch board', async () => {
    const { booking, etag } = await quoteAndBook(svc.call, svc.partner.liveKey, { pickupDatetime: '2026-12-03T09:30:00+05:30' });
    const r = await patch(
      booking.booking_ref,
      { passenger: { first_name: 'Nimali' }, luggage: 3, notes: 'Two surfboards' },
      { 'If-Match': etag },
      svc.partner.liveKey,
    );
    expect(r.status).toBe(200);
    const [job] = await svc.ops.jobs({ booking_ref: booking.booking_ref });
    expect(job).toMatchObject({
      passengers: { adults: 2, children: 0, luggage: 3 },
      passenger: { name: 'Nimali Perera' },
      notes: 'Two surfboards',
      released: null,
    });
    expect(job.meeting_instructions).toContain("'Nimali Perera'");
  });

  it('when the luggage no longer fits the vehicle assigned (a smaller class than booked), then the assignment is released with its reason, and the partner sees no driver', async () => {
    // An SUV (4 bags) booked for 3 bags, dispatched to a standard car (3 bags), then amended to 4 bags.
    await svc.ops.vehicle('suv');
    const car = await svc.ops.vehicle('standard_car');
    const driver = await svc.ops.driver('Sunil Fernando', '+94771112223');
    const { booking, etag } = await quoteAndBook(svc.call, svc.partner.liveKey, {
      pickupDatetime: '2026-12-05T09:30:00+05:30',
      vehicle: 'suv',
      passengers: { adults: 2, luggage: 3 },
    });
    const [job] = await svc.ops.jobs({ booking_ref: booking.booking_ref });
    expect((await svc.ops.call('POST', `/jobs/${job.job_id}/assign`, { body: { driver_id: driver.driver_id, vehicle_id: car.vehicle_id } })).status).toBe(200);
    const assigned = await svc.call('GET', `/transfers/v1/bookings/${booking.booking_ref}`, { key: svc.partner.liveKey });
    expect(assigned.body.status).toBe('driver_assigned');

    const r = await patch(booking.booking_ref, { luggage: 4 }, { 'If-Match': etag }, svc.partner.liveKey);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'confirmed', driver: null, version: 2 });
    const [released] = await svc.ops.jobs({ booking_ref: booking.booking_ref });
    expect(released).toMatchObject({ status: 'confirmed', driver: null, vehicle: null, released: { reason: 'vehicle_too_small' } });
    const amended = await svc.app.db('webhook_events').where({ bookingRef: booking.booking_ref, type: 'booking.amended' }).first();
    expect(amended.payload.data.changes).toEqual(['luggage', 'driver']);
  });
});
