import createClient from 'openapi-fetch';
import type { VerifierOptions } from '@pact-foundation/pact';
import type { paths as OpsPaths } from '../../../src/generated/ops-v1';
import { createPartnerClient, type BookingRequest, type PartnerClient } from '../../../simulators/partner/client';
import { airportTransfer, bookingRequest, offerFor, pickupAt } from '../../../simulators/partner/flows/journeys';

type StateHandlers = NonNullable<VerifierOptions['stateHandlers']>;
type RequestFilter = NonNullable<VerifierOptions['requestFilter']>;
type JsonMap = { [key: string]: unknown };

/** The placeholder key consumer pacts send; the request filter swaps it for the key the state handler issued. */
export const PACT_PLACEHOLDER_KEY = 'svc_sk_test_pactplacehld_PactPlaceholderSecret0000000000000000000';
const WELL_FORMED_TEST_KEY = /^Bearer svc_sk_test_[a-z0-9]{12}_[A-Za-z0-9]{40}$/;

export interface TransfersStateOptions {
  /** The service under verification (its root URL). */
  baseUrl: string;
  operatorToken: string;
}

/**
 * Provider states of the TransfersApi pacts, seeded the way a partner and an operator would: the partner and its
 * sandbox key through the operator API, quotes through POST /quotes, expiry through the sandbox test helper,
 * consumption and bookings through POST /bookings. Each state starts a fresh partner, so states never share data.
 */
export function transfersStates(opts: TransfersStateOptions) {
  const ops = createClient<OpsPaths>({ baseUrl: `${opts.baseUrl.replace(/\/+$/, '')}/ops/v1`, headers: { Authorization: `Bearer ${opts.operatorToken}` } });
  let currentKey: string | undefined;
  let seq = 0;

  async function partnerWithSandboxKey(): Promise<{ client: PartnerClient; partnerId: string; serverNow: Date }> {
    seq += 1;
    const p = await ops.POST('/partners', { body: { name: `Pact Partner ${seq}` } });
    if (!p.data) throw new Error(`createPartner answered ${p.response.status}`);
    const k = await ops.POST('/partners/{partner_id}/keys', { params: { path: { partner_id: p.data.partner_id } }, body: { env: 'sandbox' } });
    if (!k.data) throw new Error(`createKey answered ${k.response.status}`);
    currentKey = k.data.key;
    const client = createPartnerClient({ baseUrl: opts.baseUrl, apiKey: k.data.key });
    const ping = await client.ping();
    if (!ping.data) throw new Error(`ping with the new key answered ${ping.status}`);
    return { client, partnerId: p.data.partner_id, serverNow: new Date(ping.data.time) };
  }

  async function validOffer() {
    const partner = await partnerWithSandboxKey();
    const q = await partner.client.createQuote(airportTransfer(partner));
    const offer = q.data && offerFor(q.data);
    if (!q.data || !offer) throw new Error(`quote answered ${q.status} without a bookable offer`);
    return { ...partner, quote: q.data, offer };
  }

  async function book(client: PartnerClient, body: BookingRequest, idempotencyKey: string) {
    const r = await client.createBooking(body, { idempotencyKey });
    if (r.status !== 201 || !r.data) throw new Error(`seeding a booking answered ${r.status} ${JSON.stringify(r.body)}`);
    return r.data;
  }

  const stateHandlers: StateHandlers = {
    'a partner with a sandbox key': async () => {
      const p = await partnerWithSandboxKey();
      return { pickup_datetime: pickupAt(p, 7 * 24), short_notice_pickup_datetime: pickupAt(p, 2) };
    },
    'a valid offer': async () => {
      const { quote, offer } = await validOffer();
      return { quote_id: quote.quote_id, offer_id: offer.offer_id };
    },
    'an expired offer': async () => {
      const { client, quote, offer } = await validOffer();
      const x = await client.expireOffer(offer.offer_id);
      if (x.status !== 200) throw new Error(`the expire test helper answered ${x.status}`);
      return { quote_id: quote.quote_id, offer_id: offer.offer_id };
    },
    'a consumed offer': async () => {
      const { client, quote, offer } = await validOffer();
      await book(client, bookingRequest({ runId: 'STATE' }, quote, offer, 'consumed'), 'state-consumed');
      return { quote_id: quote.quote_id, offer_id: offer.offer_id };
    },
    'an existing booking': async () => {
      const { client, quote, offer } = await validOffer();
      const booking = await book(client, bookingRequest({ runId: 'STATE' }, quote, offer, 'existing'), 'state-existing');
      return { booking_ref: booking.booking_ref, quote_id: quote.quote_id, offer_id: offer.offer_id };
    },
    // The consumer names the key and the booking details; only the ids come from here, so its replay is byte-equal.
    'a booking made with an Idempotency-Key': async (params?: unknown) => {
      const p = (params ?? {}) as JsonMap;
      if (typeof p.idempotency_key !== 'string') throw new Error('state needs params.idempotency_key');
      const { client, quote, offer } = await validOffer();
      const body = { ...(p.booking as Omit<BookingRequest, 'quote_id' | 'offer_id'>), quote_id: quote.quote_id, offer_id: offer.offer_id };
      await book(client, body, p.idempotency_key);
      return { quote_id: quote.quote_id, offer_id: offer.offer_id };
    },
  };

  // The one thing a pact cannot carry: a real key. Malformed keys (the 401 interactions) pass through untouched.
  const requestFilter: RequestFilter = (req, _res, next) => {
    const auth = req.headers.authorization;
    if (currentKey && typeof auth === 'string' && WELL_FORMED_TEST_KEY.test(auth)) req.headers.authorization = `Bearer ${currentKey}`;
    next();
  };

  return { stateHandlers, requestFilter, currentKey: () => currentKey };
}
