import { ManualClock } from '../../../src/shared/clock';
import { HOTEL, quoteAndBook } from '../../support/bookings';
import { backend } from '../../support/test-app';
import { useTestApp } from '../../support/use-test-app';

const NOW = '2026-11-21T08:00:00Z';

/**
 * Priced changes: a change quote prices the booking as changed (the quote's engine, declines and 30-minute lock;
 * the difference against the booking's price), and applying one of its offers changes the booking once — under
 * races, after expiry, with a stale If-Match — and its job follows (an assignment that no longer fits released).
 */
describe(`Changing a booking at a price (${backend})`, () => {
  const clock = new ManualClock(NOW);
  const svc = useTestApp({ clock, partner: 'Change Travel', resetClock: true });
  beforeAll(async () => {
    for (let i = 0; i < 4; i++) await svc.ops.vehicle('standard_car');
    await svc.ops.vehicle('standard_van');
  });

  const changeQuote = (ref: string, body: unknown, key = svc.partner.testKey) => svc.call('POST', `/transfers/v1/bookings/${ref}/change_quotes`, { key, body });
  const apply = (ref: string, body: unknown, headers: Record<string, string>, key = svc.partner.testKey) =>
    svc.call('POST', `/transfers/v1/bookings/${ref}/changes`, { key, body, headers });
  const offerOf = (cq: { offers: Array<{ vehicle_code: string }> }, code: string) => cq.offers.find((o) => o.vehicle_code === code) as any;

  it('when a later pickup and a third passenger with a child seat are quoted, then each offer says its new price and the difference', async () => {
    const { booking } = await quoteAndBook(svc.call, svc.partner.testKey);
    const r = await changeQuote(booking.booking_ref, {
      pickup_datetime: '2026-12-01T11:30:00+05:30',
      passengers: { adults: 2, children: 1, luggage: 3 },
      extras: [{ code: 'child_seat', quantity: 1 }],
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      env: 'sandbox',
      change_quote_id: expect.stringMatching(/^[0-9a-f]{32}$/),
      booking_ref: booking.booking_ref,
      expires_at: '2026-11-21T08:30:00.000Z',
      currency: 'USD',
      declined: null,
    });
    const car = offerOf(r.body, 'standard_car');
    // The same journey for the same car, plus a child seat (USD 6.00).
    expect(car).toMatchObject({ price: 41.3, price_difference: 6, extras: [{ code: 'child_seat', quantity: 1, price: 6 }], max_passengers: 3 });
    expect(car.cancellation_policy.free_until).toBe('2026-11-30T18:00:00.000Z');
    // Nothing changed yet.
    expect((await svc.call('GET', `/transfers/v1/bookings/${booking.booking_ref}`, { key: svc.partner.testKey })).body.version).toBe(1);
  });

  it('when the new pickup is inside 24 hours, then the change quote declines short_notice; a cancelled booking is 409 not_amendable', async () => {
    const { booking } = await quoteAndBook(svc.call, svc.partner.testKey);
    const soon = await changeQuote(booking.booking_ref, { pickup_datetime: '2026-11-22T10:00:00+05:30' });
    expect(soon.status).toBe(200);
    expect(soon.body.offers).toEqual([]);
    expect(soon.body.declined.reason).toBe('short_notice');
    await svc.call('POST', `/transfers/v1/bookings/${booking.booking_ref}/cancel`, { key: svc.partner.testKey });
    const refused = await changeQuote(booking.booking_ref, { pickup_datetime: '2026-12-02T10:00:00+05:30' });
    expect(refused.status).toBe(409);
    expect(refused.body.error.details.reason).toBe('not_amendable');
  });

  it('when an offer is applied with the current ETag, then the booking takes its time, party, seats and price at version 2, and booking.amended says so', async () => {
    const { booking, etag } = await quoteAndBook(svc.call, svc.partner.testKey);
    const cq = await changeQuote(booking.booking_ref, {
      pickup_datetime: '2026-12-01T11:30:00+05:30',
      dropoff: { name: 'Kandy' },
      passengers: { adults: 3, children: 1, luggage: 3 },
      extras: [{ code: 'booster_seat', quantity: 1 }],
    });
    const van = offerOf(cq.body, 'standard_van');
    const r = await apply(booking.booking_ref, { change_quote_id: cq.body.change_quote_id, offer_id: van.offer_id }, { 'If-Match': etag });
    expect(r.status).toBe(200);
    expect(r.headers.get('etag')).toBe('"2"');
    expect(r.body).toMatchObject({
      version: 2,
      status: 'confirmed',
      pickup_datetime: '2026-12-01T11:30:00+05:30',
      dropoff: { name: 'Kandy' },
      passengers: { adults: 3, children: 1, luggage: 3 },
      extras: [{ code: 'booster_seat', quantity: 1, price: 4 }],
      vehicle_code: 'standard_van',
      price: van.price,
      quote_id: cq.body.change_quote_id,
      offer_id: van.offer_id,
      cancellation_policy: van.cancellation_policy,
      partner_reference: booking.partner_reference,
    });
    expect(r.body.meeting_instructions).toContain('a booster seat');
    const amended = await svc.app.db('webhook_events').where({ bookingRef: booking.booking_ref, type: 'booking.amended' });
    expect(amended).toHaveLength(1);
    expect(amended[0].payload.data.changes).toEqual(['luggage', 'pickup_datetime', 'dropoff', 'passengers', 'extras', 'vehicle_code', 'price']);
    // The same offer again (a retry without a key): the booking as it is, nothing more.
    const again = await apply(booking.booking_ref, { change_quote_id: cq.body.change_quote_id, offer_id: van.offer_id }, { 'If-Match': etag });
    expect(again.status).toBe(200);
    expect(again.body.version).toBe(2);
    // Another offer of the same change quote: it was used.
    const car = offerOf(cq.body, 'large_van');
    const used = await apply(booking.booking_ref, { change_quote_id: cq.body.change_quote_id, offer_id: car.offer_id }, { 'If-Match': '"2"' });
    expect(used.status).toBe(409);
    expect(used.body.error.details.reason).toBe('change_quote_used');
  });

  it('when offers of one change quote are applied at once, then exactly one wins; the others are refused and the booking changed once', async () => {
    const { booking, etag } = await quoteAndBook(svc.call, svc.partner.testKey);
    const cq = await changeQuote(booking.booking_ref, { pickup_datetime: '2026-12-01T12:30:00+05:30' });
    const offers = cq.body.offers.slice(0, 4);
    const results = await Promise.all(
      offers.map((o: { offer_id: string }) =>
        apply(booking.booking_ref, { change_quote_id: cq.body.change_quote_id, offer_id: o.offer_id }, { 'If-Match': etag }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 412, 412, 412]);
    const row = await svc.app.db('bookings').where({ bookingRef: booking.booking_ref }).first();
    expect(row.version).toBe(2);
    expect(row.offerId).toBe(results.find((r) => r.status === 200)!.body.offer_id);
    expect(await svc.app.db('webhook_events').where({ bookingRef: booking.booking_ref, type: 'booking.amended' })).toHaveLength(1);
  });

  it('when a change quote has expired, then 410 offer_expired; a stale If-Match is 412; none is 428; a change offer is no new booking', async () => {
    const { booking, etag } = await quoteAndBook(svc.call, svc.partner.testKey);
    const cq = await changeQuote(booking.booking_ref, { pickup_datetime: '2026-12-02T09:30:00+05:30' });
    const offer = cq.body.offers[0];
    const body = { change_quote_id: cq.body.change_quote_id, offer_id: offer.offer_id };
    expect((await apply(booking.booking_ref, body, {})).status).toBe(428);
    expect((await apply(booking.booking_ref, body, { 'If-Match': '"7"' })).status).toBe(412);
    // POST /bookings does not take a change quote's offer.
    const asNew = await svc.call('POST', '/transfers/v1/bookings', {
      key: svc.partner.testKey,
      body: {
        quote_id: cq.body.change_quote_id,
        offer_id: offer.offer_id,
        partner_reference: 'CHANGE-AS-NEW',
        passenger: { first_name: 'A', last_name: 'B' },
        passengers: { adults: 2, luggage: 2 },
        flight_number: 'UL504',
      },
    });
    expect(asNew.status).toBe(404);
    clock.set('2026-11-21T08:31:00Z');
    const late = await apply(booking.booking_ref, body, { 'If-Match': etag });
    expect(late.status).toBe(410);
    expect(late.body.error).toMatchObject({ code: 'offer_expired', details: { offer_id: offer.offer_id, expired_at: '2026-11-21T08:30:00.000Z' } });
  });

  it('when the same Idempotency-Key is sent again, then the first answer replays byte for byte', async () => {
    const { booking, etag } = await quoteAndBook(svc.call, svc.partner.testKey);
    const cq = await changeQuote(booking.booking_ref, { pickup_datetime: '2026-12-01T10:30:00+05:30' });
    const body = { change_quote_id: cq.body.change_quote_id, offer_id: cq.body.offers[0].offer_id };
    const headers = { 'If-Match': etag, 'Idempotency-Key': `change-${booking.booking_ref}` };
    const first = await apply(booking.booking_ref, body, headers);
    const again = await apply(booking.booking_ref, body, headers);
    expect(first.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
  });

  describe('in production', () => {
    it("when a change moves a dispatched booking onto its driver's next job, then the job follows and the assignment is released as overlapping", async () => {
      const car = await svc.ops.vehicle('standard_car');
      const driver = await svc.ops.driver('Kamal Perera', '+94772223334');
      const first = await quoteAndBook(svc.call, svc.partner.liveKey, { pickupDatetime: '2026-12-10T09:30:00+05:30' });
      const second = await quoteAndBook(svc.call, svc.partner.liveKey, {
        pickupDatetime: '2026-12-10T16:00:00+05:30',
        pickup: { name: HOTEL },
        dropoff: { iata: 'CMB' },
      });
      for (const b of [first, second]) {
        const [job] = await svc.ops.jobs({ booking_ref: b.booking.booking_ref });
        const a = await svc.ops.call('POST', `/jobs/${job.job_id}/assign`, { body: { driver_id: driver.driver_id, vehicle_id: car.vehicle_id } });
        expect(a.status).toBe(200);
      }
      // The first pickup moves to 15:00: its window now overlaps the second job of the same driver and car.
      const cq = await changeQuote(first.booking.booking_ref, { pickup_datetime: '2026-12-10T15:00:00+05:30' }, svc.partner.liveKey);
      const offer = offerOf(cq.body, 'standard_car');
      const r = await apply(
        first.booking.booking_ref,
        { change_quote_id: cq.body.change_quote_id, offer_id: offer.offer_id },
        { 'If-Match': first.etag },
        svc.partner.liveKey,
      );
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ status: 'confirmed', driver: null, pickup_datetime: '2026-12-10T15:00:00+05:30' });
      const [moved] = await svc.ops.jobs({ booking_ref: first.booking.booking_ref });
      expect(moved).toMatchObject({ status: 'confirmed', pickup_at: '2026-12-10T09:30:00.000Z', driver: null, released: { reason: 'overlap' } });
      const [kept] = await svc.ops.jobs({ booking_ref: second.booking.booking_ref });
      expect(kept).toMatchObject({ status: 'driver_assigned', driver: { driver_id: driver.driver_id } });
    });

    it('when the class is full for the new time, then the offer is not made; when it fills after the change quote, then 409 fleet_full', async () => {
      // The one standard van: one booking holds it at 09:30; another booking asks to move into a van at the same time.
      const holder = await quoteAndBook(svc.call, svc.partner.liveKey, { pickupDatetime: '2026-12-12T09:30:00+05:30', vehicle: 'standard_van' });
      const mover = await quoteAndBook(svc.call, svc.partner.liveKey, { pickupDatetime: '2026-12-13T09:30:00+05:30' });
      const full = await changeQuote(
        mover.booking.booking_ref,
        { pickup_datetime: '2026-12-12T09:30:00+05:30', passengers: { adults: 5, luggage: 2 } },
        svc.partner.liveKey,
      );
      expect(offerOf(full.body, 'standard_van')).toBeUndefined();
      // Freed, quoted, then taken again before the change is applied.
      await svc.call('POST', `/transfers/v1/bookings/${holder.booking.booking_ref}/cancel`, { key: svc.partner.liveKey });
      const cq = await changeQuote(
        mover.booking.booking_ref,
        { pickup_datetime: '2026-12-12T09:30:00+05:30', passengers: { adults: 5, luggage: 2 } },
        svc.partner.liveKey,
      );
      const van = offerOf(cq.body, 'standard_van');
      expect(van).toBeDefined();
      await quoteAndBook(svc.call, svc.partner.liveKey, { pickupDatetime: '2026-12-12T09:30:00+05:30', vehicle: 'standard_van' });
      const r = await apply(
        mover.booking.booking_ref,
        { change_quote_id: cq.body.change_quote_id, offer_id: van.offer_id },
        { 'If-Match': mover.etag },
        svc.partner.liveKey,
      );
      expect(r.status).toBe(409);
      expect(r.body.error.details.reason).toBe('fleet_full');
      const [job] = await svc.ops.jobs({ booking_ref: mover.booking.booking_ref });
      expect(job).toMatchObject({ fleet_code: 'standard_car', pickup_at: '2026-12-13T04:00:00.000Z' });
    });
  });
});
