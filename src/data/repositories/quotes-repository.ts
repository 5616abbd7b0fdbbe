import { sql, type Sql } from '../database';
import type { Write } from '../write';

/** The partner's terms as a quote or booking keeps them (the sale's own copy: later terms never change it). */
export interface StoredTerms {
  version: number;
  cancellation_fees: Array<{ hours_before: number; percent: number }>;
  no_show_percent: number;
  price_adjustment_percent: number;
}

/** Seats as sold, for all of them in the sale's currency. */
export interface StoredExtra {
  code: 'infant_seat' | 'child_seat' | 'booster_seat';
  quantity: number;
  amount_minor: number;
}

export interface QuoteRecord {
  quoteId: string;
  partnerId: string;
  env: 'sandbox' | 'production';
  /** The request as the partner sent it. */
  request: unknown;
  currency: string;
  journeyType: string | null;
  pickup: unknown;
  dropoff: unknown;
  distanceKm: number | null;
  durationMin: number | null;
  pickupAt: Date;
  declinedReason: string | null;
  declined: unknown;
  /** The partner's terms that priced it. */
  terms: StoredTerms;
  /** The seats asked for, priced (the same for every offer; included in each offer's amount). */
  extras: StoredExtra[];
  /** Set for a change quote: the booking it prices a change of. */
  bookingRef: string | null;
  createdAt: Date;
  expiresAt: Date;
}

export interface OfferRecord {
  offerId: string;
  vehicle: string;
  vehicleCode: string;
  vehicleName: string;
  vehicleClass: 'Economy' | 'Standard' | 'Business';
  maxPassengers: number;
  maxLuggage: number;
  /** The price billed if booked: stored once, never recomputed. */
  amountMinor: number;
}

const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));

/**
 * A quote and its offers, as one write (committed with the request's audit row in one statement). The offers
 * travel as arrays (one prepared statement whatever their number), in the order given (their `position`).
 */
export function quoteWrite(q: QuoteRecord, offers: readonly OfferRecord[]): Write {
  return {
    shareable: true,
    ctes: [
      `quote_in as (insert into quotes (quote_id, partner_id, env, request, currency, journey_type, pickup, dropoff, distance_km, duration_min, pickup_at, declined_reason, declined, created_at, expires_at, terms, extras, booking_ref)
        values ($1::text, $2::text, $3::text, $4::jsonb, $5::text, $6::text, $7::jsonb, $8::jsonb, $9::numeric, $10::int, $11::timestamptz, $12::text, $13::jsonb, $14::timestamptz, $15::timestamptz, $16::jsonb, $17::jsonb, $18::text)
        returning quote_id, partner_id, env, currency, expires_at)`,
      `offers_in as (insert into offers (offer_id, quote_id, partner_id, env, position, vehicle, vehicle_code, vehicle_name, vehicle_class, max_passengers, max_luggage, amount_minor, currency, expires_at)
        select o.offer_id, q.quote_id, q.partner_id, q.env, (o.n - 1)::smallint, o.vehicle, o.vehicle_code, o.vehicle_name, o.vehicle_class, o.max_passengers, o.max_luggage, o.amount_minor, q.currency, q.expires_at
        from quote_in q cross join unnest($19::text[], $20::text[], $21::text[], $22::text[], $23::text[], $24::int[], $25::int[], $26::bigint[])
          with ordinality as o(offer_id, vehicle, vehicle_code, vehicle_name, vehicle_class, max_passengers, max_luggage, amount_minor, n)
        returning 1)`,
    ],
    params: [
      q.quoteId,
      q.partnerId,
      q.env,
      json(q.request),
      q.currency,
      q.journeyType,
      json(q.pickup),
      json(q.dropoff),
      q.distanceKm,
      q.durationMin,
      q.pickupAt,
      q.declinedReason,
      json(q.declined),
      q.createdAt,
      q.expiresAt,
      json(q.terms),
      json(q.extras),
      q.bookingRef,
      offers.map((o) => o.offerId),
      offers.map((o) => o.vehicle),
      offers.map((o) => o.vehicleCode),
      offers.map((o) => o.vehicleName),
      offers.map((o) => o.vehicleClass),
      offers.map((o) => o.maxPassengers),
      offers.map((o) => o.maxLuggage),
      offers.map((o) => o.amountMinor),
    ],
  };
}

/** A place as a quote request gave it. */
export interface RequestedPlace {
  name?: string;
  iata?: string;
  lat?: number;
  lon?: number;
}

/** The journey a quote was asked for (its request as stored: the contract's QuoteRequest). */
export interface StoredQuoteRequest {
  pickup: RequestedPlace;
  dropoff: RequestedPlace;
  pickup_datetime: string;
}

const requestOf = sql(`select request from quotes where quote_id = $1`);

/** The request a quote was made for (the journey a booking's current quote describes). */
export async function findQuoteRequest(db: Sql, quoteId: string): Promise<StoredQuoteRequest | undefined> {
  return (await db.query<{ request: StoredQuoteRequest }>(requestOf, [quoteId]))[0]?.request;
}

const applied = sql(`update quotes set applied_at = $2 where quote_id = $1 and applied_at is null returning 1`);

/** Marks a change quote applied; false when it already was (a change quote changes its booking once). */
export async function markChangeQuoteApplied(tx: Sql, quoteId: string, at: Date): Promise<boolean> {
  return (await tx.query(applied, [quoteId, at])).length > 0;
}

const expire = sql(`
  update offers set expires_at = least(expires_at, $4::timestamptz)
  where offer_id = $1 and partner_id = $2 and env = $3
  returning offer_id as "offerId", quote_id as "quoteId", expires_at as "expiresAt"`);

/** Moves an offer's expiry to `at` (never later). Undefined when the partner has no such offer in `env`. */
export async function expireOffer(db: Sql, offerId: string, partnerId: string, env: string, at: Date) {
  return (await db.query<{ offerId: string; quoteId: string; expiresAt: Date }>(expire, [offerId, partnerId, env, at]))[0];
}

const purge = sql(`
  with gone as (
    delete from quotes q
    where q.expires_at < $1 and not exists (select 1 from bookings b where b.quote_id = q.quote_id)
    returning 1)
  select count(*)::int as n from gone`);

/** Deletes quotes (with their offers) that expired before `cutoff` and were never booked. */
export async function purgeExpiredQuotes(db: Sql, cutoff: Date): Promise<number> {
  return (await db.query<{ n: number }>(purge, [cutoff]))[0].n;
}
