import { ManualClock } from '../../../src/shared/clock';
import { quote, quoteAndBook } from '../../support/bookings';
import { backend } from '../../support/test-app';
import { useTestApp } from '../../support/use-test-app';

const NOW = '2026-11-21T08:00:00Z';
// 2026-12-01T09:30:00+05:30: the tiers of the default terms start 12 and 2 hours before it.
const PICKUP_AT = Date.parse('2026-12-01T04:00:00Z');
const hoursBefore = (h: number) => new Date(PICKUP_AT - h * 3600_000).toISOString();

/**
 * The terms of sale: every partner's terms (versioned, the defaults from creation), the cancellation policy on every
 * offer and booking in absolute instants and exact money, the fee charged at the first cancel (and the same fee on a
 * repeat), its preview, and a booking that keeps the terms it was sold under.
 */
describe(`Terms of sale and cancellation fees (${backend})`, () => {
  const clock = new ManualClock(NOW);
  const svc = useTestApp({ clock, partner: 'Terms Travel', resetClock: true });
  const terms = (partnerId: string) => svc.ops.call('GET', `/partners/${partnerId}/terms`);
  const putTerms = (partnerId: string, body: unknown, headers?: Record<string, string>) =>
    headers ? svc.call('PUT', `/ops/v1/partners/${partnerId}/terms`, { body, headers }) : svc.ops.call('PUT', `/partners/${partnerId}/terms`, { body });

  it('when a partner is created, then its terms are version 1, the documented defaults, in force from its creation', async () => {
    const r = await terms(svc.partner.partner_id);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      partner_id: svc.partner.partner_id,
      version: 1,
      effective_from: expect.any(String),
      cancellation_fees: [
        { hours_before: 12, percent: 50 },
        { hours_before: 2, percent: 100 },
      ],
      no_show_percent: 100,
      price_adjustment_percent: 0,
    });
  });

  it('when a quote is made, then every offer carries its cancellation policy in UTC instants and exact fees, and the booking the same', async () => {
    const { offer, booking, etag } = await quoteAndBook(svc.call, svc.partner.testKey);
    expect(offer.price).toBe(35.3);
    expect(offer.cancellation_policy).toEqual({
      free_until: hoursBefore(12),
      fees: [
        { from: hoursBefore(12), percent: 50, fee: 17.65 },
        { from: hoursBefore(2), percent: 100, fee: 35.3 },
      ],
      no_show_fee: 35.3,
    });
    expect(booking.cancellation_policy).toEqual(offer.cancellation_policy);
    expect(booking).toMatchObject({ version: 1, cancellation_fee: null, notes: null, extras: [], passengers: { adults: 2, children: 0, luggage: 2 } });
    expect(etag).toBe('"1"');
    const read = await svc.call('GET', `/transfers/v1/bookings/${booking.booking_ref}`, { key: svc.partner.testKey });
    expect(read.headers.get('etag')).toBe('"1"');
  });

  describe('cancellation fees', () => {
    const cancelAt = async (at: string) => {
      const { booking } = await quoteAndBook(svc.call, svc.partner.testKey);
      clock.set(at);
      const preview = await svc.call('GET', `/transfers/v1/bookings/${booking.booking_ref}/cancellation`, { key: svc.partner.testKey });
      const cancelled = await svc.call('POST', `/transfers/v1/bookings/${booking.booking_ref}/cancel`, { key: svc.partner.testKey });
      return { booking, preview, cancelled };
    };

    // The tiers' edges and every moment between are the unit tests' (test/unit/terms/cancellation-tiers): here, one
    // free and one charged cancellation show the preview, the cancel and the stored fee agree.
    it.each([
      ['a day before pickup, before free_until', hoursBefore(24), 0],
      ['exactly at free_until (the 50 % tier starts)', hoursBefore(12), 17.65],
    ])('when cancelled %s, then the fee is the tier in force then, as the preview said', async (_when, at, fee) => {
      const { booking, preview, cancelled } = await cancelAt(at);
      expect(preview.status).toBe(200);
      expect(preview.body).toEqual({
        env: 'sandbox',
        booking_ref: booking.booking_ref,
        cancellable: true,
        fee,
        currency: 'USD',
        free_until: hoursBefore(12),
        as_of: at,
      });
      expect(cancelled.status).toBe(200);
      expect(cancelled.body).toMatchObject({ status: 'cancelled', cancellation_fee: fee, cancelled_at: at });
      const stored = await svc.app.db('bookings').where({ bookingRef: booking.booking_ref }).first();
      expect(Number(stored.cancellationFeeMinor)).toBe(Math.round(fee * 100));
    });

    it('when a cancel is repeated later, in a dearer tier, then it returns the same fee, and the preview says what it cost', async () => {
      const { booking, cancelled } = await cancelAt(hoursBefore(20));
      expect(cancelled.body.cancellation_fee).toBe(0);
      clock.set(hoursBefore(1));
      const again = await svc.call('POST', `/transfers/v1/bookings/${booking.booking_ref}/cancel`, { key: svc.partner.testKey });
      expect(again.status).toBe(200);
      expect(again.text).toBe(cancelled.text);
      const preview = await svc.call('GET', `/transfers/v1/bookings/${booking.booking_ref}/cancellation`, { key: svc.partner.testKey });
      expect(preview.body).toMatchObject({ cancellable: false, reason: 'cancelled', fee: 0, as_of: hoursBefore(20) });
      const events = await svc.app.db('webhook_events').where({ bookingRef: booking.booking_ref, type: 'booking.cancelled' });
      expect(events).toHaveLength(1);
      expect(events[0].payload.data.booking.cancellation_fee).toBe(0);
    });

    it('when the pickup time has passed, then the preview says it can no longer be cancelled, and cancel is refused', async () => {
      const { preview, cancelled } = await cancelAt(hoursBefore(-1));
      expect(preview.body).toMatchObject({ cancellable: false, reason: 'pickup_passed', fee: 0 });
      expect(cancelled.status).toBe(409);
      expect(cancelled.body.error.details.reason).toBe('pickup_passed');
    });
  });

  describe('new terms', () => {
    it('when a viewer or dispatcher sends new terms, then 403 and the terms stay; when they are not coherent, then 400 naming the field', async () => {
      const p = await svc.ops.partner('Refused Terms');
      for (const role of ['viewer', 'dispatcher']) {
        const op = await svc.ops.call('POST', '/operators', { body: { name: `T ${role}`, role } });
        const r = await putTerms(
          p.partner_id,
          { cancellation_fees: [], no_show_percent: 0, price_adjustment_percent: 0 },
          { Authorization: `Bearer ${op.body.token}` },
        );
        expect(r.status).toBe(403);
      }
      const falling = await putTerms(p.partner_id, {
        cancellation_fees: [
          { hours_before: 24, percent: 100 },
          { hours_before: 2, percent: 50 },
        ],
        no_show_percent: 100,
        price_adjustment_percent: 0,
      });
      expect(falling.status).toBe(400);
      expect(falling.body.error.details.fields[0].field).toBe('cancellation_fees');
      const twice = await putTerms(p.partner_id, {
        cancellation_fees: [
          { hours_before: 6, percent: 50 },
          { hours_before: 6, percent: 60 },
        ],
        no_show_percent: 100,
        price_adjustment_percent: 0,
      });
      expect(twice.status).toBe(400);
      const odd = await putTerms(p.partner_id, { cancellation_fees: [], no_show_percent: 100, price_adjustment_percent: 1.005 });
      expect(odd.status).toBe(400);
      expect((await terms(p.partner_id)).body.version).toBe(1);
    });

    it('when new terms are put, then the next quote is priced and its policy set by them, while a booking of an earlier offer keeps the terms it was sold under', async () => {
      const p = await svc.ops.partnerWithKeys('Contract Rate Travel');
      const before = await quote(svc.call, p.testKey);
      const earlierOffer = before.body.offers.find((o: { vehicle_code: string }) => o.vehicle_code === 'standard_car');

      const put = await putTerms(p.partner_id, {
        cancellation_fees: [
          { hours_before: 6, percent: 100 },
          { hours_before: 48, percent: 25 },
        ],
        no_show_percent: 80,
        price_adjustment_percent: -10,
      });
      expect(put.status).toBe(200);
      expect(put.body).toEqual({
        partner_id: p.partner_id,
        version: 2,
        effective_from: NOW.replace('Z', '.000Z'),
        cancellation_fees: [
          { hours_before: 48, percent: 25 },
          { hours_before: 6, percent: 100 },
        ],
        no_show_percent: 80,
        price_adjustment_percent: -10,
      });
      expect((await terms(p.partner_id)).body).toEqual(put.body);

      // The same journey, 10 % below the rate card (35.30 → 31.77), with the new tiers.
      const after = await quote(svc.call, p.testKey);
      const offer = after.body.offers.find((o: { vehicle_code: string }) => o.vehicle_code === 'standard_car');
      expect(offer.price).toBe(31.77);
      expect(offer.cancellation_policy).toEqual({
        free_until: hoursBefore(48),
        fees: [
          { from: hoursBefore(48), percent: 25, fee: 7.94 },
          { from: hoursBefore(6), percent: 100, fee: 31.77 },
        ],
        no_show_fee: 25.42,
      });
      const stored = await svc.app.db('quotes').whereIn('quoteId', [before.body.quote_id, after.body.quote_id]).orderBy('createdAt');
      expect(stored.map((q: { terms: { version: number } }) => q.terms.version)).toEqual([1, 2]);

      // The offer quoted before the change books at its own price and terms.
      const b = await svc.call('POST', '/transfers/v1/bookings', {
        key: p.testKey,
        body: {
          quote_id: before.body.quote_id,
          offer_id: earlierOffer.offer_id,
          partner_reference: 'KEEPS-V1',
          passenger: { first_name: 'Nimal', last_name: 'Silva' },
          passengers: { adults: 2, luggage: 2 },
          flight_number: 'UL504',
        },
      });
      expect(b.status).toBe(201);
      expect(b.body.price).toBe(35.3);
      expect(b.body.cancellation_policy).toEqual(earlierOffer.cancellation_policy);
      clock.set(hoursBefore(10));
      const cancelled = await svc.call('POST', `/transfers/v1/bookings/${b.body.booking_ref}/cancel`, { key: p.testKey });
      expect(cancelled.body.cancellation_fee).toBe(17.65);
    });

    it('when terms change, then production uses them as sandbox does, from the very next request of a key this instance knows', async () => {
      const p = await svc.ops.partnerWithKeys('Both Envs Travel');
      await quote(svc.call, p.liveKey); // the key is now known to this instance
      await putTerms(p.partner_id, { cancellation_fees: [{ hours_before: 24, percent: 30 }], no_show_percent: 50, price_adjustment_percent: 5 });
      for (const key of [p.testKey, p.liveKey]) {
        const q = await quote(svc.call, key);
        const offer = q.body.offers.find((o: { vehicle_code: string }) => o.vehicle_code === 'standard_car');
        expect(offer.price).toBe(37.07);
        expect(offer.cancellation_policy.fees).toEqual([{ from: hoursBefore(24), percent: 30, fee: 11.12 }]);
      }
    });
  });
});
