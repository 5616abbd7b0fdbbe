/**
 * Seeds a database as steady traffic would leave it, in a few statements (generate_series), so that query plans
 * and latencies can be compared with an empty database: audit rows over the last weeks, quotes with their eight
 * offers from the last seven days (older unbooked ones are purged by retention), bookings with their jobs and
 * idempotency keys. Used by `npm run bench` (1,000,000 audit rows, 200,000
 * quotes, 100,000 bookings) and by the EXPLAIN checks in CI (smaller).
 */
import type { Knex } from 'knex';

export interface GrowthSize {
  audit: number;
  quotes: number;
  bookings: number;
}

export const FULL_GROWTH: GrowthSize = { audit: 1_000_000, quotes: 200_000, bookings: 100_000 };

const QUOTE_RESPONSE = JSON.stringify({
  env: 'production',
  quote_id: '0'.repeat(32),
  offers: Array.from({ length: 8 }, (_, i) => ({
    offer_id: String(i).repeat(32),
    vehicle: 'Standard Car or similar',
    price: 63.8,
    currency: 'USD',
    max_passengers: 3,
  })),
  declined: null,
});

/** Seeds `size` rows for `partnerId` (production), in chunks; `log` reports progress. */
/** `tag` keeps the ids of one seeding apart from another's in the same database. */
export async function seedGrowth(db: Knex, partnerId: string, size: GrowthSize, log: (line: string) => void = () => undefined, tag = 'seed'): Promise<void> {
  await db.transaction((trx) => seed(trx, partnerId, size, log, tag));
  await db.raw('analyze');
}

async function seed(knex: Knex.Transaction, partnerId: string, size: GrowthSize, log: (line: string) => void, tag: string): Promise<void> {
  await knex.raw('set local statement_timeout = 0');
  const chunk = 100_000;
  const run = (text: string, from: number, to: number, extra: Record<string, unknown> = {}) =>
    knex.raw(text, { partner: partnerId, tag, from: from + 1, to, ...extra });
  for (let from = 0; from < size.audit; from += chunk) {
    const to = Math.min(size.audit, from + chunk);
    // Spread over the last 20 days (the current and previous month's partitions).
    await run(
      `insert into audit_log (at, surface, direction, method, path, status, partner_id, env, request_id, request_headers, request_body, response_headers, response_body, duration_ms)
       select now() - (g % 1728000) * interval '1 second', 'transfers', case when g % 10 = 0 then 'outbound' else 'inbound' end, 'POST',
              case when g % 3 = 0 then '/transfers/v1/bookings' else '/transfers/v1/quotes' end, 200, :partner, 'production', 'req_' || :tag || '_' || g,
              '{"content-type": "application/json"}'::jsonb, '{"pickup": {"iata": "CMB"}, "dropoff": {"name": "Kandy"}}'::jsonb, '{"x-request-id": "seed"}'::jsonb, :body::jsonb, 7
       from generate_series(:from::int, :to::int) g`,
      from,
      to,
      { body: QUOTE_RESPONSE },
    );
    log(`  audit_log: ${to.toLocaleString('en-US')} / ${size.audit.toLocaleString('en-US')}`);
  }
  for (let from = 0; from < size.quotes; from += chunk) {
    const to = Math.min(size.quotes, from + chunk);
    await run(
      `insert into quotes (quote_id, partner_id, env, request, currency, journey_type, pickup, dropoff, distance_km, duration_min, pickup_at, created_at, expires_at, terms)
       select md5(:tag || '-quote-' || g), :partner, 'production', '{"pickup": {"iata": "CMB"}, "dropoff": {"name": "Kandy"}, "pickup_datetime": "2026-12-01T09:30:00+05:30"}'::jsonb,
              'USD', 'arrival', '{"name": "Bandaranaike International Airport", "iata": "CMB", "lat": 7.17, "lon": 79.88}'::jsonb,
              '{"name": "Kandy", "lat": 7.29, "lon": 80.63}'::jsonb, 110.2, 150, now() + interval '10 days', now() - (g % 10080) * interval '1 minute', now() - (g % 10080) * interval '1 minute' + interval '30 minutes',
              '{"version": 1, "cancellation_fees": [{"hours_before": 12, "percent": 50}, {"hours_before": 2, "percent": 100}], "no_show_percent": 100, "price_adjustment_percent": 0}'::jsonb
       from generate_series(:from::int, :to::int) g`,
      from,
      to,
    );
    await run(
      `insert into offers (offer_id, quote_id, partner_id, env, position, vehicle, vehicle_code, vehicle_name, vehicle_class, max_passengers, max_luggage, amount_minor, currency, expires_at)
       select md5(:tag || '-offer-' || g || '-' || p), md5(:tag || '-quote-' || g), :partner, 'production', p, 'standard_car', 'standard_car', 'Standard Car or similar', 'Standard', 3, 3, 6380 + p * 100, 'USD',
              now() - (g % 10080) * interval '1 minute' + interval '30 minutes'
       from generate_series(:from::int, :to::int) g, generate_series(0, 7) p`,
      from,
      to,
    );
    log(`  quotes: ${to.toLocaleString('en-US')} / ${size.quotes.toLocaleString('en-US')} (and 8 offers each)`);
  }
  for (let from = 0; from < size.bookings; from += chunk) {
    const to = Math.min(size.bookings, from + chunk);
    await run(
      `insert into bookings (booking_ref, partner_id, env, partner_reference, quote_id, offer_id, status, vehicle, vehicle_code, vehicle_name, amount_minor, currency,
                             pickup, dropoff, pickup_datetime, pickup_at, journey_type, adults, luggage, passenger, flight_number, meeting_instructions, emergency_phone,
                             request_id, created_at, event_seq, terms, tracking_token, tracking_url)
       select upper(substr(md5(:tag || '-booking-' || g), 1, 10)), :partner, 'production', upper(:tag) || '-' || g, md5(:tag || '-quote-' || g), md5(:tag || '-offer-' || g || '-0'), 'confirmed',
              'standard_car', 'standard_car', 'Standard Car or similar', 6380, 'USD',
              '{"name": "Bandaranaike International Airport", "iata": "CMB", "lat": 7.17, "lon": 79.88}'::jsonb, '{"name": "Kandy", "lat": 7.29, "lon": 80.63}'::jsonb,
              '2026-12-01T09:30:00+05:30', now() + (g % 300) * interval '1 day', 'arrival', 2, 2, '{"first_name": "Seed", "last_name": "Passenger"}'::jsonb, 'UL504',
              'Meet at arrivals.', '+94 11 234 5678', 'req_' || :tag || '_' || g, now() - (g % 30) * interval '1 day', 1, '{"version": 1, "cancellation_fees": [{"hours_before": 12, "percent": 50}, {"hours_before": 2, "percent": 100}], "no_show_percent": 100, "price_adjustment_percent": 0}'::jsonb,
              md5(:tag || '-track-' || g), 'http://localhost:3000/t/' || md5(:tag || '-track-' || g)
       from generate_series(:from::int, :to::int) g`,
      from,
      to,
    );
    await run(
      `insert into jobs (source, source_ref, env, status, fleet_code, held_code, pickup_at, ends_at, duration_min, pickup, dropoff, adults, luggage, passenger, flight_number, created_at, updated_at)
       select 'partner_booking', b.booking_ref, 'production', 'confirmed', b.vehicle, b.vehicle, b.pickup_at, b.pickup_at + interval '5 hours', 150, b.pickup, b.dropoff, 2, 2,
              '{"name": "Seed Passenger"}'::jsonb, b.flight_number, b.created_at, b.created_at
       from bookings b where b.partner_reference in (select upper(:tag) || '-' || g from generate_series(:from::int, :to::int) g)`,
      from,
      to,
    );
    await run(
      `insert into idempotency_keys (partner_id, env, operation, idempotency_key, fingerprint, response_status, response_body, request_id, booking_ref, created_at, expires_at)
       select :partner, 'production', 'createBooking', :tag || '-key-' || g, md5(:tag || '-' || g), 201, '{}', 'req_' || :tag || '_' || g, upper(substr(md5(:tag || '-booking-' || g), 1, 10)), now(), now() + interval '30 days'
       from generate_series(:from::int, :to::int) g`,
      from,
      to,
    );
    await run(
      `insert into webhook_events (event_id, partner_id, env, type, booking_ref, sequence, payload, created_at)
       select 'evt_' || substr(md5(:tag || '-event-' || g), 1, 24), :partner, 'production', 'booking.confirmed', upper(substr(md5(:tag || '-booking-' || g), 1, 10)), 1,
              json_build_object('id', 'evt_' || substr(md5(:tag || '-event-' || g), 1, 24), 'type', 'booking.confirmed'), now() - (g % 30) * interval '1 day'
       from generate_series(:from::int, :to::int) g`,
      from,
      to,
    );
    log(`  bookings: ${to.toLocaleString('en-US')} / ${size.bookings.toLocaleString('en-US')} (with jobs, idempotency keys and webhook events)`);
  }
}
