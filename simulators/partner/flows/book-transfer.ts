import { retrying, type Booking, type BookingRequest, type Offer, type QuoteResponse } from '../client';
import { flowRecorder, sameJson, type Check, type Flow } from './flow';
import { bookingRequest } from './journeys';
import { freshOffer } from './shared';

/** Booking an offer, and every answer a retrying or careless partner can get back from POST /bookings. */
export const bookTransferFlow: Flow = async (client, ctx) => {
  const flow = flowRecorder('book-transfer', ctx);
  const api = retrying(client, ctx.retryPolicy);
  const key = `${ctx.runId}-book`;

  const first = await flow.check('booking.create', "POST /bookings with a fresh offer answers 201 confirmed at exactly the offer's price", async (c: Check) => {
    const { quote, offer } = await freshOffer(api, c, ctx);
    const body = bookingRequest(ctx, quote, offer, 'book');
    const r = c.record(await api.createBooking(body, { idempotencyKey: key }));
    c.equal(r.status, 201, 'status');
    c.expect(r.headers.get('idempotent-replayed') === null, 'a fresh booking carries no Idempotent-Replayed header');
    const b = r.data!;
    c.equal(b.status, 'confirmed', 'status field');
    c.equal(b.price, offer.price, 'price (the price quoted is the price billed)');
    c.equal(b.currency, offer.currency, 'currency');
    c.equal(b.partner_reference, body.partner_reference, 'partner_reference echo');
    c.expect(typeof b.booking_ref === 'string' && b.booking_ref.length > 0, 'booking_ref is set');
    c.detail(`booking ${b.booking_ref} confirmed at ${b.currency} ${b.price.toFixed(2)} (the offer's price)`);
    return { quote, offer, body, booking: b } as { quote: QuoteResponse; offer: Offer; body: BookingRequest; booking: Booking };
  });

  await flow.check(
    'booking.idempotent_replay',
    'the same Idempotency-Key and body answers 200, Idempotent-Replayed: true and the identical booking',
    async (c: Check) => {
      if (!first) c.blockedBy('booking.create');
      const r = c.record(await api.createBooking(first.body, { idempotencyKey: key }));
      c.equal(r.status, 200, 'status');
      c.equal(r.headers.get('idempotent-replayed'), 'true', 'Idempotent-Replayed header');
      c.expect(sameJson(r.body, first.booking), 'the replayed body differs from the original booking');
      c.detail(`replayed ${first.booking.booking_ref}; Original-Request-Id ${r.headers.get('original-request-id') ?? 'absent'}`);
    },
  );

  await flow.check('booking.idempotency_conflict', 'the same Idempotency-Key with a different body answers 409 idempotency_conflict', async (c: Check) => {
    if (!first) c.blockedBy('booking.create');
    const changed = { ...first.body, passenger: { ...first.body.passenger, first_name: 'Nimal' } };
    const r = c.record(await api.createBooking(changed, { idempotencyKey: key }));
    c.equal(r.status, 409, 'status');
    c.equal(r.error?.code, 'idempotency_conflict', 'error.code');
    c.detail(`409 ${r.error!.code} (${String(r.error!.details?.reason ?? 'no reason')})`);
  });

  await flow.check('booking.offer_consumed', 'booking an already booked offer again answers 409 booking_conflict, never a second vehicle', async (c: Check) => {
    if (!first) c.blockedBy('booking.create');
    const again = bookingRequest(ctx, first.quote, first.offer, 'book-again');
    const r = c.record(await api.createBooking(again, { idempotencyKey: `${ctx.runId}-book-again` }));
    c.equal(r.status, 409, 'status');
    c.equal(r.error?.code, 'booking_conflict', 'error.code');
    c.detail(`409 ${r.error!.code} (${String(r.error!.details?.reason ?? 'no reason')})`);
  });

  await flow.check('booking.partner_reference_reuse', 'a partner_reference already used answers 200 with the existing booking_ref', async (c: Check) => {
    if (!first) c.blockedBy('booking.create');
    const { quote, offer } = await freshOffer(api, c, ctx);
    const reuse = { ...bookingRequest(ctx, quote, offer, 'book'), partner_reference: first.body.partner_reference };
    const r = c.record(await api.createBooking(reuse, { idempotencyKey: `${ctx.runId}-reuse` }));
    c.equal(r.status, 200, 'status');
    c.equal(r.data?.booking_ref, first.booking.booking_ref, 'booking_ref');
    c.detail(`returned the existing booking ${first.booking.booking_ref}; the second offer was not booked`);
  });

  return flow.result();
};
