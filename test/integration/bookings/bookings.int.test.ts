import { ManualClock } from '../../../src/shared/clock';
import { itOnPostgres } from '../../support/skip';
import { useTestApp } from '../../support/use-test-app';

const NOW = '2026-11-21T08:00:00Z';
const PICKUP = '2026-12-01T09:30:00+05:30';
let seq = 0;

describe('Booking an offer', () => {
  const clock = new ManualClock(NOW);
  const svc = useTestApp({ clock, env: { IDEMPOTENCY_WAIT_MS: '1500' }, partner: 'Booking Partner', resetClock: true });

  async function freshOffer(opts: { key?: string; pickup?: object; dropoff?: object; passengers?: object } = {}) {
    const q = await svc.call('POST', '/transfers/v1/quotes', {
      key: opts.key ?? svc.partner.testKey,
      body: {
        pickup: opts.pickup ?? { iata: 'CMB' },
        dropoff: opts.dropoff ?? { name: 'Cinnamon Grand, 77 Galle Road, Colombo 03' },
        pickup_datetime: PICKUP,
        passengers: opts.passengers ?? { adults: 2, luggage: 2 },
      },
    });
    expect(q.status).toBe(200);
    const offer = q.body.offers.find((o: any) => o.vehicle_code === 'standard_car') ?? q.body.offers[0];
    return { quote: q.body, offer };
  }

  function bookingBody(quoteId: string, offerId: string, over: Record<string, unknown> = {}) {
    seq += 1;
    return {
      quote_id: quoteId,
      offer_id: offerId,
      partner_reference: `REF-${seq}`,
      passenger: { first_name: 'Ayesha', last_name: 'Perera', email: 'ayesha@example.com', phone: '+94771234567' },
      passengers: { adults: 2, luggage: 2 },
      flight_number: 'UL504',
      ...over,
    };
  }

  const book = (body: unknown, opts: { key?: string; idem?: string } = {}) =>
    svc.call('POST', '/transfers/v1/bookings', {
      key: opts.key ?? svc.partner.testKey,
      body,
      headers: opts.idem ? { 'Idempotency-Key': opts.idem } : {},
    });

  it('when a valid offer is booked, then 201 confirmed at exactly the quoted price, and its audit row; a sandbox booking has no job', async () => {
    const { quote, offer } = await freshOffer();
    const r = await book(bookingBody(quote.quote_id, offer.offer_id), { idem: 'first-booking' });
    expect(r.status).toBe(201);
    expect(r.headers.get('idempotent-replayed')).toBeNull();
    expect(r.body).toMatchObject({
      env: 'sandbox',
      booking_ref: expect.stringMatching(/^[23456789ABCDEFGHJKMNPQRSTVWXYZ]{8}$/),
      status: 'confirmed',
      price: offer.price,
      currency: quote.currency,
      emergency_phone: '+94 11 234 5678',
      journey_type: 'arrival',
      vehicle_code: 'standard_car',
      vehicle: 'Standard Car or similar',
      pickup_datetime: PICKUP,
      flight_number: 'UL504',
      cancelled_at: null,
    });
    expect(r.body.meeting_instructions).toMatch(/arrivals hall/);
    expect(r.body.meeting_instructions).toMatch(/name board reading 'Ayesha Perera'/);
    expect(r.body.meeting_instructions).toMatch(/UL504/);
    // A sandbox booking never occupies the real fleet.
    expect(await svc.app.db('jobs').where({ source: 'partner_booking', sourceRef: r.body.booking_ref })).toHaveLength(0);
    const audit = await svc.app.db('audit_log').where({ requestId: r.headers.get('x-request-id')! });
    expect(audit).toHaveLength(1);
    expect(audit[0].responseBody.booking_ref).toBe(r.body.booking_ref);
  });

  it('when the same key and body are sent again, then the original bytes come back with 200 and Idempotent-Replayed', async () => {
    const { quote, offer } = await freshOffer();
    const body = bookingBody(quote.quote_id, offer.offer_id);
    const first = await book(body, { idem: 'replay-me' });
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const again = await book(reordered, { idem: 'replay-me' });
    expect(first.status).toBe(201);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('original-request-id')).toBe(first.headers.get('x-request-id'));
    expect(again.text).toBe(first.text);
    expect(await svc.app.db('bookings').where({ offerId: offer.offer_id })).toHaveLength(1);
  });

  it('when the same key comes with a different body, then 409 idempotency_conflict and nothing changes', async () => {
    const { quote, offer } = await freshOffer();
    const body = bookingBody(quote.quote_id, offer.offer_id);
    await book(body, { idem: 'conflicting' });
    const other = await book({ ...body, passenger: { ...body.passenger, first_name: 'Nimal' } }, { idem: 'conflicting' });
    expect(other.status).toBe(409);
    expect(other.body.error).toMatchObject({ code: 'idempotency_conflict', details: { reason: 'body_mismatch' } });
    expect((await svc.app.db('bookings').where({ offerId: offer.offer_id }).first()).passenger.first_name).toBe('Ayesha');
  });

  it('when a partner_reference is reused, then the existing booking comes back with 200, and headers say it is not new', async () => {
    const a = await freshOffer();
    const b = await freshOffer();
    const first = await book(bookingBody(a.quote.quote_id, a.offer.offer_id, { partner_reference: 'AGY-REUSED' }));
    const second = await book(bookingBody(b.quote.quote_id, b.offer.offer_id, { partner_reference: 'AGY-REUSED' }));
    expect(first.status).toBe(201);
    expect(second.status).toBe(200);
    expect(second.body.booking_ref).toBe(first.body.booking_ref);
    expect(await svc.app.db('bookings').where({ offerId: b.offer.offer_id })).toHaveLength(0);
    // Said out loud: this 200 is the booking already made under the reference, and it is for another offer.
    expect(first.headers.get('partner-reference-reused')).toBeNull();
    expect(second.headers.get('partner-reference-reused')).toBe('true');
    expect(second.headers.get('partner-reference-mismatch')).toBe('offer_id');
    // The same offer again under the reference (another key): reused, nothing differs.
    const same = await book(bookingBody(a.quote.quote_id, a.offer.offer_id, { partner_reference: 'AGY-REUSED' }), { idem: 'reused-same-offer' });
    expect(same.status).toBe(200);
    expect(same.headers.get('partner-reference-reused')).toBe('true');
    expect(same.headers.get('partner-reference-mismatch')).toBeNull();
    // Once that booking is cancelled, reusing its reference says so.
    await svc.call('POST', `/transfers/v1/bookings/${first.body.booking_ref}/cancel`, { key: svc.partner.testKey });
    const onCancelled = await book(bookingBody(b.quote.quote_id, b.offer.offer_id, { partner_reference: 'AGY-REUSED' }), { idem: 'reused-cancelled' });
    expect(onCancelled.status).toBe(200);
    expect(onCancelled.body.status).toBe('cancelled');
    expect(onCancelled.headers.get('partner-reference-mismatch')).toBe('offer_id, cancelled');
    // The same reference in production is another booking: environments never mix.
    const live = await freshOffer({ key: svc.partner.liveKey });
    const inLive = await book(bookingBody(live.quote.quote_id, live.offer.offer_id, { partner_reference: 'AGY-REUSED' }), { key: svc.partner.liveKey });
    expect(inLive.status).toBe(201);
    expect(inLive.body.env).toBe('production');
  });

  it('when the offer is unknown, belongs to another quote, partner or environment, then 404', async () => {
    const { quote, offer } = await freshOffer();
    const other = await freshOffer();
    const cases = [bookingBody(quote.quote_id, 'f'.repeat(32)), bookingBody(other.quote.quote_id, offer.offer_id)];
    for (const body of cases) {
      const r = await book(body);
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe('not_found');
    }
    const stranger = await svc.ops.partnerWithKeys('Stranger');
    expect((await book(bookingBody(quote.quote_id, offer.offer_id), { key: stranger.testKey })).status).toBe(404);
    expect((await book(bookingBody(quote.quote_id, offer.offer_id), { key: svc.partner.liveKey })).status).toBe(404);
  });

  it('when the offer is older than 30 minutes, then 410 offer_expired with offer_id and expired_at', async () => {
    const { quote, offer } = await freshOffer();
    clock.advance(30 * 60 * 1000);
    const r = await book(bookingBody(quote.quote_id, offer.offer_id));
    expect(r.status).toBe(410);
    expect(r.body.error).toMatchObject({ code: 'offer_expired', details: { offer_id: offer.offer_id, expired_at: '2026-11-21T08:30:00.000Z' } });
  });

  it('when the sandbox test helper expires an offer, then booking it is 410; live keys cannot use the helper', async () => {
    const { quote, offer } = await freshOffer();
    const expired = await svc.call('POST', `/transfers/v1/test_helpers/offers/${offer.offer_id}/expire`, { key: svc.partner.testKey });
    expect(expired.status).toBe(200);
    expect(expired.body).toEqual({ env: 'sandbox', offer_id: offer.offer_id, quote_id: quote.quote_id, expires_at: '2026-11-21T08:00:00.000Z' });
    expect((await book(bookingBody(quote.quote_id, offer.offer_id))).status).toBe(410);
    const live = await freshOffer({ key: svc.partner.liveKey });
    expect((await svc.call('POST', `/transfers/v1/test_helpers/offers/${live.offer.offer_id}/expire`, { key: svc.partner.liveKey })).status).toBe(404);
    expect((await svc.call('POST', `/transfers/v1/test_helpers/offers/${'0'.repeat(32)}/expire`, { key: svc.partner.testKey })).status).toBe(404);
  });

  it('when the offer was already booked, then 409 booking_conflict and never a second booking', async () => {
    const { quote, offer } = await freshOffer();
    expect((await book(bookingBody(quote.quote_id, offer.offer_id))).status).toBe(201);
    const again = await book(bookingBody(quote.quote_id, offer.offer_id));
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'booking_conflict', details: { reason: 'offer_consumed' } });
    expect(await svc.app.db('bookings').where({ offerId: offer.offer_id })).toHaveLength(1);
  });

  it('when the party exceeds the vehicle, then 409 booking_conflict saying why', async () => {
    const { quote, offer } = await freshOffer({ passengers: { adults: 1, luggage: 1 } });
    const r = await book(bookingBody(quote.quote_id, offer.offer_id, { passengers: { adults: 4, luggage: 1 } }));
    expect(r.status).toBe(409);
    expect(r.body.error.details).toEqual({ reason: 'party_exceeds_vehicle', adults: 4, children: 0, luggage: 1, max_passengers: 3, max_luggage: 3 });
  });

  it('when an airport pickup has no or a malformed flight number, then 400; a retry with the same key then succeeds', async () => {
    const { quote, offer } = await freshOffer();
    const { flight_number: _omit, ...noFlight } = bookingBody(quote.quote_id, offer.offer_id);
    const missing = await book(noFlight, { idem: 'fix-and-retry' });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details.fields).toEqual([{ field: 'flight_number', message: 'is required when the pickup is an airport' }]);
    const malformed = await book({ ...noFlight, flight_number: 'not a flight' }, { idem: 'fix-and-retry' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.details.fields[0].field).toBe('flight_number');
    const fixed = await book({ ...noFlight, flight_number: 'ek 648' }, { idem: 'fix-and-retry' });
    expect(fixed.status).toBe(201);
    expect(fixed.body.flight_number).toBe('EK648');
  });

  it('when a hotel pickup is booked, then no flight is needed and the driver meets at the lobby', async () => {
    const { quote, offer } = await freshOffer({ pickup: { name: 'Jetwing Lighthouse, Galle' }, dropoff: { iata: 'CMB' } });
    const { flight_number: _f, ...body } = bookingBody(quote.quote_id, offer.offer_id);
    const r = await book(body);
    expect(r.status).toBe(201);
    expect(r.body.journey_type).toBe('departure');
    expect(r.body.meeting_instructions).toMatch(/lobby\) of Jetwing Lighthouse, Galle at 09:30/);
  });

  it('when a booking is read, then it has everything from creation plus the journey; others get 404', async () => {
    const { quote, offer } = await freshOffer();
    const created = await book(bookingBody(quote.quote_id, offer.offer_id));
    const read = await svc.call('GET', `/transfers/v1/bookings/${created.body.booking_ref}`, { key: svc.partner.testKey });
    expect(read.status).toBe(200);
    expect(read.text).toBe(created.text);
    expect(read.body).toMatchObject({
      pickup: { iata: 'CMB', name: expect.any(String) },
      dropoff: { name: 'Cinnamon Grand, 77 Galle Road, Colombo 03', resolved_name: 'Colombo' },
      passengers: { adults: 2, luggage: 2 },
      passenger: { first_name: 'Ayesha', last_name: 'Perera', email: 'ayesha@example.com', phone: '+94771234567' },
      created_at: '2026-11-21T08:00:00.000Z',
    });
    const stranger = await svc.ops.partnerWithKeys('Other Agency');
    expect((await svc.call('GET', `/transfers/v1/bookings/${created.body.booking_ref}`, { key: stranger.testKey })).status).toBe(404);
    expect((await svc.call('GET', `/transfers/v1/bookings/${created.body.booking_ref}`, { key: svc.partner.liveKey })).status).toBe(404);
    expect((await svc.call('GET', '/transfers/v1/bookings/NOSUCHRF', { key: svc.partner.testKey })).status).toBe(404);
  });

  it('when a booking is cancelled, then 200 cancelled; a repeat is the same 200; after pickup it is 409', async () => {
    const { quote, offer } = await freshOffer();
    const created = await book(bookingBody(quote.quote_id, offer.offer_id));
    const ref = created.body.booking_ref;
    clock.advance(60_000);
    const cancelled = await svc.call('POST', `/transfers/v1/bookings/${ref}/cancel`, { key: svc.partner.testKey });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', cancelled_at: '2026-11-21T08:01:00.000Z', booking_ref: ref });
    clock.advance(60_000);
    const again = await svc.call('POST', `/transfers/v1/bookings/${ref}/cancel`, { key: svc.partner.testKey });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(cancelled.body);
    expect((await svc.call('GET', `/transfers/v1/bookings/${ref}`, { key: svc.partner.testKey })).body.status).toBe('cancelled');
    expect((await svc.call('POST', `/transfers/v1/bookings/${ref}/cancel`, { key: svc.partner.liveKey })).status).toBe(404);

    const late = await freshOffer();
    const lateBooking = await book(bookingBody(late.quote.quote_id, late.offer.offer_id));
    clock.set('2026-12-01T04:00:00Z');
    const tooLate = await svc.call('POST', `/transfers/v1/bookings/${lateBooking.body.booking_ref}/cancel`, { key: svc.partner.testKey });
    expect(tooLate.status).toBe(409);
    expect(tooLate.body.error).toMatchObject({ code: 'booking_conflict', details: { reason: 'pickup_passed' } });
  });

  it('when the sandbox test helper advances a booking, then the partner reads each dispatch state with a fictitious driver', async () => {
    const { quote, offer } = await freshOffer();
    const ref = (await book(bookingBody(quote.quote_id, offer.offer_id))).body.booking_ref;
    const advance = (to: string, key = svc.partner.testKey, r = ref) =>
      svc.call('POST', `/transfers/v1/test_helpers/bookings/${r}/advance`, { key, body: { to } });
    expect((await svc.call('GET', `/transfers/v1/bookings/${ref}`, { key: svc.partner.testKey })).body).toMatchObject({ status: 'confirmed', driver: null });

    const assigned = await advance('driver_assigned');
    expect(assigned.status).toBe(200);
    expect(assigned.body).toMatchObject({
      booking_ref: ref,
      status: 'driver_assigned',
      driver: { name: 'Sandbox Driver (fictitious)', phone: expect.any(String), vehicle: expect.any(String), plate: 'SANDBOX-1' },
    });
    expect((await svc.call('GET', `/transfers/v1/bookings/${ref}`, { key: svc.partner.testKey })).body).toEqual(assigned.body);
    expect((await advance('driver_assigned')).body).toEqual(assigned.body);

    const completed = await advance('completed');
    expect(completed.body).toMatchObject({ status: 'completed', driver: { plate: 'SANDBOX-1' } });
    const back = await advance('no_show');
    expect(back.status).toBe(409);
    expect(back.body.error).toMatchObject({ code: 'booking_conflict', details: { reason: 'invalid_transition', status: 'completed', to: 'no_show' } });
    expect((await svc.call('POST', `/transfers/v1/bookings/${ref}/cancel`, { key: svc.partner.testKey })).body.error.details.reason).toBe('finished');

    const other = await freshOffer();
    const ref2 = (await book(bookingBody(other.quote.quote_id, other.offer.offer_id))).body.booking_ref;
    expect((await advance('no_show', svc.partner.testKey, ref2)).body).toMatchObject({ status: 'no_show', driver: null });
    const third = await freshOffer();
    const ref3 = (await book(bookingBody(third.quote.quote_id, third.offer.offer_id))).body.booking_ref;
    await svc.call('POST', `/transfers/v1/bookings/${ref3}/cancel`, { key: svc.partner.testKey });
    expect((await advance('driver_assigned', svc.partner.testKey, ref3)).body.error.details).toMatchObject({
      reason: 'invalid_transition',
      status: 'cancelled',
    });

    // Live keys: the helper does not exist for them; production moves only by dispatch.
    const live = await advance('driver_assigned', svc.partner.liveKey);
    expect(live.status).toBe(404);
    expect(live.body.error.code).toBe('not_found');
    expect((await advance('teleported')).status).toBe(400);
    expect((await advance('completed', svc.partner.testKey, 'NOSUCHRF')).status).toBe(404);
  });

  it('when an idempotency key is stored, then it is kept until at least 24 hours after the pickup', async () => {
    const { quote, offer } = await freshOffer();
    await book(bookingBody(quote.quote_id, offer.offer_id), { idem: 'kept-long' });
    const row = await svc.app.db('idempotency_keys').where({ idempotencyKey: 'kept-long' }).first();
    expect(new Date(row.expiresAt).toISOString()).toBe('2026-12-02T04:00:00.000Z');
  });

  it('when the audit row cannot be written, then 503, no booking, and the offer can still be booked', async () => {
    const { quote, offer } = await freshOffer();
    await svc.app.db.raw(`alter table audit_log add constraint reject_booking_audit check (path <> '/transfers/v1/bookings') not valid`);
    const body = bookingBody(quote.quote_id, offer.offer_id);
    try {
      const r = await book(body, { idem: 'audit-fails' });
      expect(r.status).toBe(503);
      expect(await svc.app.db('bookings').where({ offerId: offer.offer_id })).toHaveLength(0);
      expect(await svc.app.db('idempotency_keys').where({ idempotencyKey: 'audit-fails' })).toHaveLength(0);
    } finally {
      await svc.app.db.raw('alter table audit_log drop constraint reject_booking_audit');
    }
    expect((await book(body, { idem: 'audit-fails' })).status).toBe(201);
  });

  describe('under real concurrency', () => {
    it('when 20 requests race for one offer with different keys, then exactly one 201 and the rest 409, no 5xx', async () => {
      const { quote, offer } = await freshOffer({ key: svc.partner.liveKey });
      const replies = await Promise.all(
        Array.from({ length: 20 }, (_, i) => book(bookingBody(quote.quote_id, offer.offer_id), { key: svc.partner.liveKey, idem: `race-${i}` })),
      );
      const statuses = replies.map((r) => r.status).sort();
      expect(statuses.filter((s) => s === 201)).toHaveLength(1);
      expect(statuses.filter((s) => s === 409)).toHaveLength(19);
      for (const r of replies.filter((x) => x.status === 409)) expect(r.body.error.code).toBe('booking_conflict');
      expect(await svc.app.db('bookings').where({ offerId: offer.offer_id })).toHaveLength(1);
      expect(await svc.app.db('jobs').whereIn('sourceRef', svc.app.db('bookings').select('booking_ref').where({ offerId: offer.offer_id }))).toHaveLength(1);
    });

    it('when 20 requests race with one key and one body, then one booking; the others replay it', async () => {
      const { quote, offer } = await freshOffer();
      const body = bookingBody(quote.quote_id, offer.offer_id);
      const replies = await Promise.all(Array.from({ length: 20 }, () => book(body, { idem: 'one-key-many-calls' })));
      const created = replies.filter((r) => r.status === 201);
      const replayed = replies.filter((r) => r.status === 200);
      expect(created).toHaveLength(1);
      expect(replayed).toHaveLength(19);
      for (const r of replayed) {
        expect(r.headers.get('idempotent-replayed')).toBe('true');
        expect(r.text).toBe(created[0].text);
      }
      expect(await svc.app.db('bookings').where({ offerId: offer.offer_id })).toHaveLength(1);
    });

    itOnPostgres("another instance's uncommitted claim is held on a second connection")(
      'when the first request with a key is still running past the bounded wait, then 409 in_progress with Retry-After',
      async () => {
        const { quote, offer } = await freshOffer();
        const body = bookingBody(quote.quote_id, offer.offer_id);
        // Another instance holds the key: its claim is inserted but not committed.
        const holder = await svc.app.db.transaction();
        try {
          await holder('idempotency_keys').insert({
            partnerId: svc.partner.partner_id,
            env: 'sandbox',
            operation: 'createBooking',
            idempotencyKey: 'slow-first',
            fingerprint: 'x',
            requestId: 'req_other',
            createdAt: new Date(),
            expiresAt: new Date(Date.now() + 86400000),
          });
          const r = await book(body, { idem: 'slow-first' });
          expect(r.status).toBe(409);
          expect(r.headers.get('retry-after')).toBe('1');
          expect(r.body.error).toMatchObject({ code: 'idempotency_conflict', details: { reason: 'in_progress' } });
        } finally {
          await holder.rollback();
        }
        expect((await book(body, { idem: 'slow-first' })).status).toBe(201);
      },
    );
  });
});
