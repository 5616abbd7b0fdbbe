import { MatchersV3, PactV4 } from '@pact-foundation/pact';
import { AuthError, createPartnerClient, retrying } from '../../../simulators/partner/client';
import { PACT_PLACEHOLDER_KEY } from '../../../harness/pact/state-handlers/transfers';
import { PACT_DIR } from '../../support/pacts';

// Pact 16.3+ can report "expected but not received" for a request its mock server matched and answered, when the
// machine is busy (pact-foundation/pact-reference#535: the match is recorded after the verification reads it).
// A retry runs the whole interaction again; a real mismatch fails every time.
jest.retryTimes(2, { logErrorsBeforeRetry: true });

const { boolean, fromProviderState, integer, like, eachLike, number, regex } = MatchersV3;

const pact = new PactV4({
  consumer: 'PartnerSimulator',
  provider: 'TransfersApi',
  dir: PACT_DIR,
  logLevel: 'warn',
});

const ISO = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:\\d{2})$';
const HEX32 = '^[0-9a-f]{32}$';
const at = (example: string) => regex(ISO, example);
const hex = (example: string) => regex(HEX32, example);
const QUOTE_ID = '5f0c1e7a9b2d4c6e8f10a2b4c6d8e0f1';
const OFFER_ID = '9a8b7c6d5e4f30211203a4b5c6d7e8f9';
const PICKUP = '2026-12-01T09:30:00+05:30';

const keyHeader = { Authorization: regex('^Bearer svc_sk_test_[a-z0-9]{12}_[A-Za-z0-9]{40}$', `Bearer ${PACT_PLACEHOLDER_KEY}`) };
const jsonRequest = { ...keyHeader, 'Content-Type': 'application/json' };
const answered = (env = 'sandbox') => ({
  // Pact compares media types, so charset=utf-8 from the service still matches.
  'Content-Type': 'application/json',
  'X-Request-Id': regex('^\\S+$', 'req_6f1d0c2a9b8e4f7a'),
  'X-Service-Env': env,
});

const journey = (pickupExpression: string, example: string) => ({
  pickup: { iata: 'CMB' },
  dropoff: { name: 'Cinnamon Grand, 77 Galle Road, Colombo 03' },
  pickup_datetime: fromProviderState(`\${${pickupExpression}}`, example),
  passengers: { adults: 2, luggage: 2 },
});

const booking = (status: 'confirmed' | 'cancelled') => ({
  env: 'sandbox',
  booking_ref: like('NX7K4PQ2'),
  partner_reference: like('AGY-10023'),
  status,
  price: number(30.5),
  currency: regex('^(USD|EUR|LKR)$', 'USD'),
  meeting_instructions: like('Your driver waits in the arrivals hall holding a name board.'),
  emergency_phone: like('+94 11 234 5678'),
  quote_id: hex(QUOTE_ID),
  offer_id: hex(OFFER_ID),
  pickup_datetime: at(PICKUP),
  vehicle_code: like('standard_car'),
  passengers: like({ adults: 2, luggage: 2 }),
  created_at: at('2026-11-21T12:05:00.000Z'),
  cancelled_at: status === 'cancelled' ? at('2026-11-22T08:00:00.000Z') : null,
});

const errorBody = (code: string, details: unknown, env: string | null = 'sandbox') => ({
  env,
  error: { code, message: like(`A message about ${code}.`), details },
});

const passenger = { first_name: 'Ayesha', last_name: 'Perera', email: 'ayesha@example.com', phone: '+94771234567' };
// Sent as is in the replay and conflict interactions, and handed to the provider state that made the first booking.
const REPLAYED = { partner_reference: 'AGY-PACT-REPLAY', passenger, passengers: { adults: 2, luggage: 2 }, flight_number: 'UL504' };
const REPLAY_KEY = 'pact-replay-0001';

const bookingRequest = (reference: string) => ({
  quote_id: fromProviderState('${quote_id}', QUOTE_ID),
  offer_id: fromProviderState('${offer_id}', OFFER_ID),
  partner_reference: like(reference),
  passenger: like(passenger),
  passengers: like({ adults: 2, luggage: 2 }),
  flight_number: like('UL504'),
});
const concreteBooking = (reference: string) => ({
  quote_id: QUOTE_ID,
  offer_id: OFFER_ID,
  partner_reference: reference,
  passenger,
  passengers: { adults: 2, luggage: 2 },
  flight_number: 'UL504',
});

const partnerClient = (url: string) => retrying(createPartnerClient({ baseUrl: url, apiKey: PACT_PLACEHOLDER_KEY }));

describe('PartnerSimulator → TransfersApi', () => {
  it('when a sandbox key pings, then 200 names the partner and the sandbox', () =>
    pact
      .addInteraction()
      .given('a partner with a sandbox key')
      .uponReceiving('a ping with a sandbox key')
      .withRequest('GET', '/transfers/v1/ping', (b) => b.headers(keyHeader))
      .willRespondWith(200, (b) =>
        b.headers(answered()).jsonBody({ ok: boolean(true), env: 'sandbox', partner: like('Demo Travel'), time: at('2026-11-21T12:00:00.000Z') }),
      )
      .executeTest(async (mock) => {
        const r = await partnerClient(mock.url).ping();
        expect(r.status).toBe(200);
        expect(r.data).toMatchObject({ ok: true, env: 'sandbox' });
        expect(r.requestId).toBeTruthy();
      }));

  it('when a journey we serve is quoted, then 200 with priced offers and no decline', () =>
    pact
      .addInteraction()
      .given('a partner with a sandbox key')
      .uponReceiving('a quote for a journey at least 24 hours ahead')
      .withRequest('POST', '/transfers/v1/quotes', (b) => b.headers(jsonRequest).jsonBody(journey('pickup_datetime', PICKUP)))
      .willRespondWith(200, (b) =>
        b.headers(answered()).jsonBody({
          env: 'sandbox',
          quote_id: hex(QUOTE_ID),
          created_at: at('2026-11-21T12:00:00.000Z'),
          expires_at: at('2026-11-21T12:30:00.000Z'),
          currency: regex('^(USD|EUR|LKR)$', 'USD'),
          offers: eachLike({
            offer_id: hex(OFFER_ID),
            vehicle_code: like('standard_car'),
            vehicle: like('Standard Car or similar'),
            price: number(30.5),
            currency: regex('^(USD|EUR|LKR)$', 'USD'),
            max_passengers: integer(3),
            max_luggage: integer(3),
            expires_at: at('2026-11-21T12:30:00.000Z'),
          }),
          declined: null,
        }),
      )
      .executeTest(async (mock) => {
        const r = await partnerClient(mock.url).createQuote({
          pickup: { iata: 'CMB' },
          dropoff: { name: 'Cinnamon Grand, 77 Galle Road, Colombo 03' },
          pickup_datetime: PICKUP,
          passengers: { adults: 2, luggage: 2 },
        });
        expect(r.status).toBe(200);
        expect(r.data!.offers[0]).toMatchObject({ offer_id: OFFER_ID, price: 30.5 });
        expect(r.data!.declined).toBeNull();
      }));

  it('when the pickup is under 24 hours ahead, then the decline short_notice is a 200 with no offers', () =>
    pact
      .addInteraction()
      .given('a partner with a sandbox key')
      .uponReceiving('a quote for a pickup under 24 hours ahead')
      .withRequest('POST', '/transfers/v1/quotes', (b) => b.headers(jsonRequest).jsonBody(journey('short_notice_pickup_datetime', '2026-11-21T19:30:00+05:30')))
      .willRespondWith(200, (b) =>
        b.headers(answered()).jsonBody({
          env: 'sandbox',
          quote_id: hex(QUOTE_ID),
          offers: [],
          declined: { reason: 'short_notice', message: like('Pickups must be booked at least 24 hours ahead.') },
        }),
      )
      .executeTest(async (mock) => {
        const r = await partnerClient(mock.url).createQuote({
          pickup: { iata: 'CMB' },
          dropoff: { name: 'Cinnamon Grand, 77 Galle Road, Colombo 03' },
          pickup_datetime: '2026-11-21T19:30:00+05:30',
          passengers: { adults: 2, luggage: 2 },
        });
        expect(r.status).toBe(200);
        expect(r.data!.offers).toEqual([]);
        expect(r.data!.declined!.reason).toBe('short_notice');
      }));

  it('when a valid offer is booked, then 201 confirmed', () =>
    pact
      .addInteraction()
      .given('a valid offer')
      .uponReceiving('a booking of a valid offer')
      .withRequest('POST', '/transfers/v1/bookings', (b) =>
        b.headers({ ...jsonRequest, 'Idempotency-Key': regex('^[\\x21-\\x7E]{1,255}$', 'pact-book-0001') }).jsonBody(bookingRequest('AGY-PACT-BOOK')),
      )
      .willRespondWith(201, (b) => b.headers(answered()).jsonBody(booking('confirmed')))
      .executeTest(async (mock) => {
        const r = await partnerClient(mock.url).createBooking(concreteBooking('AGY-PACT-BOOK'), { idempotencyKey: 'pact-book-0001' });
        expect(r.status).toBe(201);
        expect(r.data).toMatchObject({ status: 'confirmed', price: 30.5 });
      }));

  it('when the same Idempotency-Key and body come again, then 200 with Idempotent-Replayed', () =>
    pact
      .addInteraction()
      .given('a booking made with an Idempotency-Key', { idempotency_key: REPLAY_KEY, booking: REPLAYED })
      .uponReceiving('a replay of a booking with the same Idempotency-Key and body')
      .withRequest('POST', '/transfers/v1/bookings', (b) =>
        b
          .headers({ ...jsonRequest, 'Idempotency-Key': REPLAY_KEY })
          .jsonBody({ ...REPLAYED, quote_id: fromProviderState('${quote_id}', QUOTE_ID), offer_id: fromProviderState('${offer_id}', OFFER_ID) }),
      )
      .willRespondWith(200, (b) => b.headers({ ...answered(), 'Idempotent-Replayed': 'true' }).jsonBody(booking('confirmed')))
      .executeTest(async (mock) => {
        const r = await partnerClient(mock.url).createBooking({ ...REPLAYED, quote_id: QUOTE_ID, offer_id: OFFER_ID }, { idempotencyKey: REPLAY_KEY });
        expect(r.status).toBe(200);
        expect(r.headers.get('idempotent-replayed')).toBe('true');
      }));

  it('when the same Idempotency-Key comes with another body, then 409 idempotency_conflict', () =>
    pact
      .addInteraction()
      .given('a booking made with an Idempotency-Key', { idempotency_key: REPLAY_KEY, booking: REPLAYED })
      .uponReceiving('a booking reusing an Idempotency-Key with a different body')
      .withRequest('POST', '/transfers/v1/bookings', (b) =>
        b.headers({ ...jsonRequest, 'Idempotency-Key': REPLAY_KEY }).jsonBody({
          ...REPLAYED,
          passenger: { ...passenger, first_name: 'Nimal' },
          quote_id: fromProviderState('${quote_id}', QUOTE_ID),
          offer_id: fromProviderState('${offer_id}', OFFER_ID),
        }),
      )
      .willRespondWith(409, (b) => b.headers(answered()).jsonBody(errorBody('idempotency_conflict', like({ reason: 'body_mismatch' }))))
      .executeTest(async (mock) => {
        const r = await partnerClient(mock.url).createBooking(
          { ...REPLAYED, passenger: { ...passenger, first_name: 'Nimal' }, quote_id: QUOTE_ID, offer_id: OFFER_ID },
          { idempotencyKey: REPLAY_KEY },
        );
        expect(r.status).toBe(409);
        expect(r.attempts).toBe(1);
        expect(r.error!.code).toBe('idempotency_conflict');
      }));

  it('when an expired offer is booked, then 410 offer_expired with the offer and when it expired', () =>
    pact
      .addInteraction()
      .given('an expired offer')
      .uponReceiving('a booking of an expired offer')
      .withRequest('POST', '/transfers/v1/bookings', (b) =>
        b.headers({ ...jsonRequest, 'Idempotency-Key': regex('^[\\x21-\\x7E]{1,255}$', 'pact-expired-0001') }).jsonBody(bookingRequest('AGY-PACT-EXPIRED')),
      )
      .willRespondWith(410, (b) =>
        b.headers(answered()).jsonBody(errorBody('offer_expired', { offer_id: hex(OFFER_ID), expired_at: at('2026-11-21T12:30:00.000Z') })),
      )
      .executeTest(async (mock) => {
        const r = await partnerClient(mock.url).createBooking(concreteBooking('AGY-PACT-EXPIRED'), { idempotencyKey: 'pact-expired-0001' });
        expect(r.status).toBe(410);
        expect(r.error).toMatchObject({ code: 'offer_expired', details: { offer_id: OFFER_ID, expired_at: '2026-11-21T12:30:00.000Z' } });
      }));

  it('when a consumed offer is booked again, then 409 booking_conflict', () =>
    pact
      .addInteraction()
      .given('a consumed offer')
      .uponReceiving('a booking of an offer already booked')
      .withRequest('POST', '/transfers/v1/bookings', (b) =>
        b.headers({ ...jsonRequest, 'Idempotency-Key': regex('^[\\x21-\\x7E]{1,255}$', 'pact-consumed-0001') }).jsonBody(bookingRequest('AGY-PACT-CONSUMED')),
      )
      .willRespondWith(409, (b) => b.headers(answered()).jsonBody(errorBody('booking_conflict', like({ reason: 'offer_consumed' }))))
      .executeTest(async (mock) => {
        const r = await partnerClient(mock.url).createBooking(concreteBooking('AGY-PACT-CONSUMED'), { idempotencyKey: 'pact-consumed-0001' });
        expect(r.status).toBe(409);
        expect(r.error!.code).toBe('booking_conflict');
      }));

  it('when the sandbox helper expires an offer, then 200 with when it now expires', () =>
    pact
      .addInteraction()
      .given('a valid offer')
      .uponReceiving('a request to expire an offer now (sandbox test helper)')
      .withRequest(
        'POST',
        fromProviderState('/transfers/v1/test_helpers/offers/${offer_id}/expire', `/transfers/v1/test_helpers/offers/${OFFER_ID}/expire`),
        (b) => b.headers(keyHeader),
      )
      .willRespondWith(200, (b) =>
        b.headers(answered()).jsonBody({ env: 'sandbox', offer_id: hex(OFFER_ID), quote_id: hex(QUOTE_ID), expires_at: at('2026-11-21T12:00:00.000Z') }),
      )
      .executeTest(async (mock) => {
        const r = await partnerClient(mock.url).expireOffer(OFFER_ID);
        expect(r.status).toBe(200);
        expect(r.data!.offer_id).toBe(OFFER_ID);
      }));

  it('when a booking is read, then 200 with the booking', () =>
    pact
      .addInteraction()
      .given('an existing booking')
      .uponReceiving('a request to read a booking')
      .withRequest('GET', fromProviderState('/transfers/v1/bookings/${booking_ref}', '/transfers/v1/bookings/NX7K4PQ2'), (b) => b.headers(keyHeader))
      .willRespondWith(200, (b) => b.headers(answered()).jsonBody(booking('confirmed')))
      .executeTest(async (mock) => {
        const r = await partnerClient(mock.url).getBooking('NX7K4PQ2');
        expect(r.status).toBe(200);
        expect(r.data!.booking_ref).toBe('NX7K4PQ2');
      }));

  it('when a booking is cancelled, then 200 with status cancelled', () =>
    pact
      .addInteraction()
      .given('an existing booking')
      .uponReceiving('a request to cancel a booking')
      .withRequest('POST', fromProviderState('/transfers/v1/bookings/${booking_ref}/cancel', '/transfers/v1/bookings/NX7K4PQ2/cancel'), (b) =>
        b.headers(keyHeader),
      )
      .willRespondWith(200, (b) => b.headers(answered()).jsonBody(booking('cancelled')))
      .executeTest(async (mock) => {
        const r = await partnerClient(mock.url).cancelBooking('NX7K4PQ2');
        expect(r.status).toBe(200);
        expect(r.data).toMatchObject({ booking_ref: 'NX7K4PQ2', status: 'cancelled' });
      }));

  it('when the key is malformed, then 401 unauthorized and the client raises AuthError', () =>
    pact
      .addInteraction()
      .uponReceiving('a ping with a malformed key')
      .withRequest('GET', '/transfers/v1/ping', (b) => b.headers({ Authorization: 'Bearer svc_sk_test_not-a-real-key' }))
      .willRespondWith(401, (b) => b.headers(answered('none')).jsonBody(errorBody('unauthorized', {}, null)))
      .executeTest(async (mock) => {
        const client = retrying(createPartnerClient({ baseUrl: mock.url, apiKey: 'svc_sk_test_not-a-real-key' }));
        const err = await client.ping().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(AuthError);
        expect((err as AuthError).result.error!.code).toBe('unauthorized');
      }));
});
