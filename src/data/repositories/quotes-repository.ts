import { sql, type Sql } from '../database';
import type { Write } from '../write';

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
    ctes: [
      `quote_in as (insert into quotes (quote_id, partner_id, env, request, currency, journey_type, pickup, dropoff, distance_km, duration_min, pickup_at, declined_reason, declined, created_at, expires_at)
        values ($1::text, $2::text, $3::text, $4::jsonb, $5::text, $6::text, $7::jsonb, $8::jsonb, $9::numeric, $10::int, $11::timestamptz, $12::text, $13::jsonb, $14::timestamptz, $15::timestamptz)
        returning quote_id, partner_id, env, currency, expires_at)`,
      `offers_in as (insert into offers (offer_id, quote_id, partner_id, env, position, vehicle, vehicle_code, vehicle_name, vehicle_class, max_passengers, max_luggage, amount_minor, currency, expires_at)
        select o.offer_id, q.quote_id, q.partner_id, q.env, (o.n - 1)::smallint, o.vehicle, o.vehicle_code, o.vehicle_name, o.vehicle_class, o.max_passengers, o.max_luggage, o.amount_minor, q.currency, q.expires_at
        from quote_in q cross join unnest($16::text[], $17::text[], $18::text[], $19::text[], $20::text[], $21::int[], $22::int[], $23::bigint[])
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
