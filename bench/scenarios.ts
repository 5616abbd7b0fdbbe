/**
 * The ceilings of the benchmark: for each operation under test, the statement the service commits for one request
 * (built by the same repository and domain code, so PostgreSQL does exactly the same writes: the same rows, indexes,
 * partitions and assertions), with an audit row of the same size. bench/ceiling.ts runs them from a plain driver
 * connection, one round trip per request, at the benchmark's concurrency: what the database alone allows.
 */
import { randomBytes } from 'node:crypto';
import { combine } from '../src/data/write';
import { type AuditEntry } from '../src/data/repositories/audit-repository';
import { auditedStatement } from '../src/data/repositories/audit-commit';
import { keyStillValid } from '../src/data/repositories/partners-repository';
import { newBookingWrite } from '../src/data/repositories/bookings-repository';
import { createQuote } from '../src/domain/quotes/create-quote';
import { DEFAULT_TERMS } from '../src/domain/terms/terms';
import { decideBooking } from '../src/domain/bookings/booking-decision';
import { newBookingEvent } from '../src/domain/bookings/booking-events';
import { bookingView } from '../src/domain/bookings/booking-view';
import { searchVehicles } from '../src/domain/marketplace/supplier';
import { searchAnswer } from '../src/http/marketplace/answers';
import type { Statement } from '../src/data/database';

export type ScenarioId = 'ping' | 'quote' | 'booking' | 'replay' | 'search';
export const SCENARIOS: ScenarioId[] = ['ping', 'quote', 'booking', 'replay', 'search'];

export const pickupInDays = (days: number) => `${new Date(Date.now() + days * 86400_000).toISOString().slice(0, 10)}T09:30:00+05:30`;
export const localInDays = (days: number) => new Date(Date.now() + days * 86400_000 + 5.5 * 3600_000).toISOString().replace('T', ' ').slice(0, 11) + '09:30:00';

export const QUOTE_BODY = () => ({
  pickup: { iata: 'CMB' },
  dropoff: { name: 'Kandy' },
  pickup_datetime: pickupInDays(3),
  passengers: { adults: 2, luggage: 2 },
});
export const SEARCH_BODY = () => ({ from: { iata: 'CMB' }, to: { name: 'Kandy' }, date: localInDays(3), adults: 2, luggage: 2 });
export const BOOKING_TEMPLATE = {
  passenger: { first_name: 'Ayesha', last_name: 'Perera', email: 'ayesha@example.com', phone: '+94771234567' },
  passengers: { adults: 2, luggage: 2 },
  flight_number: 'UL504',
};

const HEADERS = (path: string, body: boolean) =>
  JSON.stringify({
    host: '127.0.0.1:40000',
    authorization: 'Bearer svc_sk_live_abcdefghijkl_[REDACTED]',
    ...(body ? { 'content-type': 'application/json', 'content-length': '190' } : {}),
    'user-agent': 'autocannon',
    connection: 'keep-alive',
    'x-path': path,
  });
const RESPONSE_HEADERS = JSON.stringify({ 'x-request-id': 'req_0123456789abcdef01234567', 'x-service-env': 'production' });

function entry(path: string, method: string, status: number, request: unknown, response: string, partnerId: string | null): AuditEntry {
  return {
    surface: path.startsWith('/marketplace') ? 'marketplace' : 'transfers',
    direction: 'inbound',
    method,
    path,
    status,
    partnerId,
    env: partnerId ? 'production' : null,
    requestId: `req_${randomBytes(12).toString('hex')}`,
    requestHeaders: HEADERS(path, request !== undefined),
    requestBody: request === undefined ? null : JSON.stringify(request),
    responseHeaders: RESPONSE_HEADERS,
    responseBody: response,
    durationMs: 3,
  };
}

export interface CeilingContext {
  partnerId: string;
  keyId: string;
  authVersion: string;
  /** Offers to book, one per booking statement: [quote_id, offer_id]. */
  offers: Array<[string, string]>;
}

const TERMS = { version: 1, ...DEFAULT_TERMS, cancellation_fees: [...DEFAULT_TERMS.cancellation_fees] };
const PARTNER = (c: CeilingContext) => ({
  partnerId: c.partnerId,
  currency: 'USD' as const,
  paused: false,
  vocabulary: new Map<string, string>(),
  terms: TERMS,
});
const FX = { USD: '1', EUR: '0.92', LKR: '300' };

/** One request's statement for a scenario. */
export async function ceilingStatement(id: ScenarioId, c: CeilingContext): Promise<{ statement: Statement; params: readonly unknown[] }> {
  const now = new Date();
  const still = keyStillValid(c.keyId, c.authVersion);
  switch (id) {
    case 'ping': {
      const body = JSON.stringify({ env: 'production', ok: true, partner: 'Bench Partner', time: now.toISOString() });
      return auditedStatement(combine(still), entry('/transfers/v1/ping', 'GET', 200, undefined, body, c.partnerId));
    }
    case 'quote': {
      const input = QUOTE_BODY();
      const { quote, write } = await createQuote(PARTNER(c), 'production', input, { now, fx: FX });
      return auditedStatement(
        combine(write, still),
        entry('/transfers/v1/quotes', 'POST', 200, input, JSON.stringify({ env: 'production', ...quote }), c.partnerId),
      );
    }
    case 'booking': {
      const [quoteId, offerId] = c.offers.pop()!;
      const ref = `CEIL-${randomBytes(5).toString('hex')}`;
      const input = { quote_id: quoteId, offer_id: offerId, partner_reference: ref, ...BOOKING_TEMPLATE };
      const offer = {
        offerId,
        quoteId,
        vehicle: 'standard_car',
        vehicleCode: 'standard_car',
        vehicleName: 'Standard Car or similar',
        maxPassengers: 3,
        maxLuggage: 3,
        amountMinor: 6380,
        currency: 'USD' as const,
        expiresAt: new Date(now.getTime() + 600_000),
        journeyType: 'arrival' as const,
        pickup: { name: 'Bandaranaike International Airport', iata: 'CMB', lat: 7.174016, lon: 79.887887 },
        dropoff: { name: 'Kandy', lat: 7.2906, lon: 80.6337 },
        pickupAt: new Date(now.getTime() + 3 * 86400_000),
        request: { pickup: { iata: 'CMB' } as { name?: string }, dropoff: { name: 'Kandy' }, pickup_datetime: pickupInDays(3) },
        durationMin: 150,
        terms: TERMS,
        extras: [],
      };
      const ctx = {
        now,
        paused: false,
        requestId: `req_${randomBytes(12).toString('hex')}`,
        emergencyPhone: '+94 11 234 5678',
        publicBaseUrl: 'http://localhost:3000',
      };
      const d = decideBooking({ offer, consumed: false }, { partnerId: c.partnerId, env: 'production' }, input, ctx);
      if (d.kind !== 'book') throw new Error(`ceiling booking: ${d.kind}`);
      const body = JSON.stringify(bookingView(d.booking));
      const key = {
        scope: { partnerId: c.partnerId, env: 'production' as const, operation: 'createBooking', key: ref },
        fingerprint: randomBytes(32).toString('hex'),
        completion: { status: 201, body, bookingRef: d.booking.bookingRef, expiresAt: new Date(now.getTime() + 7 * 86400_000) },
      };
      const write = newBookingWrite({ booking: d.booking, job: d.job, event: newBookingEvent(d.booking, now), requestId: ctx.requestId, now, key });
      return auditedStatement(combine(write, still), entry('/transfers/v1/bookings', 'POST', 201, input, body, c.partnerId));
    }
    case 'replay': {
      const body = JSON.stringify({
        env: 'production',
        booking_ref: 'ABCDEFGH',
        status: 'confirmed',
        meeting_instructions: 'x'.repeat(400),
        passenger: BOOKING_TEMPLATE.passenger,
      });
      return auditedStatement(
        combine(still),
        entry(
          '/transfers/v1/bookings',
          'POST',
          200,
          { quote_id: '0'.repeat(32), offer_id: '1'.repeat(32), partner_reference: 'R', ...BOOKING_TEMPLATE },
          body,
          c.partnerId,
        ),
      );
    }
    case 'search': {
      const search = SEARCH_BODY();
      const outcome = await searchVehicles(search, { now, fx: FX });
      const write = outcome.kind === 'priced' ? outcome.write : undefined;
      return auditedStatement(combine(write), entry('/marketplace/search/', 'POST', 200, search, JSON.stringify(searchAnswer(outcome)), null));
    }
  }
}
