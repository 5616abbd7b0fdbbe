import type { Knex } from 'knex';

const OLD_EVENTS = `'booking.confirmed','booking.driver_assigned','booking.cancelled','booking.completed','booking.no_show','booking.amended'`;
const RIDE_EVENTS = `'booking.driver_en_route','booking.driver_arrived','booking.passenger_on_board','booking.flight_updated'`;
const OLD_STATUSES = `'confirmed','driver_assigned','completed','no_show','cancelled'`;

/**
 * The ride itself.
 *
 * - **Driver tokens.** A driver signs in to the driver app with a token of its own (`drv_…`, kept as its SHA-256),
 *   which operators issue and revoke.
 * - **Ride states on jobs.** A job's `status` says what it holds of the fleet (a driver assigned holds driver and
 *   vehicle, and the exclusion constraints and capacity functions read it); `ride_state` says how far the ride has
 *   gone while it holds them (`en_route`, `arrived`, `on_board`), so the fleet's constraints are unchanged. Each
 *   step keeps its time.
 * - **Flights.** An airport arrival's job keeps what the flight-status provider last said (`flight`: number,
 *   status, scheduled and estimated arrival, when it was checked) and when to ask next (`flight_check_at`, a
 *   lease while a poller asks; `flight_failures` for the backoff). `pickup_shift_min` is how far the estimated
 *   arrival moved the job's window from the booked pickup; `flight_alert` flags a cancelled or diverted flight,
 *   and a moved window that lost its driver, for the dispatcher.
 * - **Bookings** gain the ride's states, what partners see of the flight (`flight`, `pickup_estimated_at`), the
 *   driver's live position, and the token of their tracking link (at least 128 random bits).
 * - **Sandbox flights**: what the sandbox's simulated flight-status provider answers, per partner.
 * - **Webhooks** gain the ride's events; an endpoint subscribed to every event gets them too.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table driver_tokens (
      token_id text primary key,
      driver_id text not null references drivers (driver_id),
      token_hash text not null constraint driver_tokens_hash_unique unique,
      created_at timestamptz not null,
      created_by text not null,
      revoked_at timestamptz,
      last_used_at timestamptz
    )`);
  await knex.raw('create index driver_tokens_driver_index on driver_tokens (driver_id)');

  await knex.raw(`
    alter table jobs
      add column ride_state text constraint jobs_ride_state_check check (ride_state in ('en_route','arrived','on_board')),
      add column en_route_at timestamptz,
      add column arrived_at timestamptz,
      add column on_board_at timestamptz,
      add column flight jsonb,
      add column flight_check_at timestamptz,
      add column flight_failures integer not null default 0,
      add column pickup_shift_min integer not null default 0,
      add column flight_alert text`);
  // A ride goes on only with a driver: a job back to `confirmed` (released) starts again.
  await knex.raw(`alter table jobs add constraint jobs_ride_check check (ride_state is null or status <> 'confirmed')`);
  // What the flight poller scans: open airport arrivals with a flight number.
  await knex.raw(`
    create index jobs_flight_poll_index on jobs (pickup_at)
    where flight_number is not null and (pickup ->> 'iata') is not null and status in ('confirmed','driver_assigned')`);
  await knex.raw('create index jobs_driver_index on jobs (driver_id, pickup_at) where driver_id is not null');

  await knex.raw('alter table bookings drop constraint bookings_status_check');
  await knex.raw(`
    alter table bookings add constraint bookings_status_check
      check (status in (${OLD_STATUSES},'driver_en_route','driver_arrived','passenger_on_board'))`);
  await knex.raw(`
    alter table bookings
      add column tracking_token text,
      add column tracking_url text,
      add column flight jsonb,
      add column pickup_estimated_at timestamptz,
      add column driver_location jsonb`);
  // Bookings made before tracking links: two random UUIDs (244 random bits) each, under the service's address as
  // configured when the migration runs (a link is issued once and kept, as the booking's answers showed it).
  const base = (process.env.PUBLIC_BASE_URL ?? `http://localhost:${process.env.PORT ?? 3000}`).replace(/\/$/, '');
  await knex.raw(`update bookings set tracking_token = replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', '')`);
  await knex.raw(`update bookings set tracking_url = ? || '/t/' || tracking_token`, [base]);
  await knex.raw('alter table bookings alter column tracking_token set not null, alter column tracking_url set not null');
  await knex.raw('create unique index bookings_tracking_token_unique on bookings (tracking_token)');

  await knex.raw(`
    create table sandbox_flights (
      partner_id text not null references partners (partner_id),
      flight_number text not null,
      date date not null,
      delay_minutes integer not null,
      status text not null check (status in ('scheduled','delayed','landed','diverted','cancelled')),
      updated_at timestamptz not null,
      primary key (partner_id, flight_number, date)
    )`);

  await knex.raw(`
    alter table webhook_endpoints drop constraint webhook_endpoints_events_check,
      add constraint webhook_endpoints_events_check check (cardinality(events) > 0 and events <@ array[${OLD_EVENTS},${RIDE_EVENTS}])`);
  await knex.raw(`
    alter table webhook_events drop constraint webhook_events_type_check,
      add constraint webhook_events_type_check check (type in (${OLD_EVENTS},${RIDE_EVENTS},'ping'))`);
  await knex.raw(`update webhook_endpoints set events = events || array[${RIDE_EVENTS}] where events @> array[${OLD_EVENTS}]`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`delete from webhook_events where type in (${RIDE_EVENTS})`);
  await knex.raw(`update webhook_endpoints set events = array(select e from unnest(events) e where e not in (${RIDE_EVENTS}))`);
  await knex.raw(`
    alter table webhook_endpoints drop constraint webhook_endpoints_events_check,
      add constraint webhook_endpoints_events_check check (cardinality(events) > 0 and events <@ array[${OLD_EVENTS}])`);
  await knex.raw(
    `alter table webhook_events drop constraint webhook_events_type_check, add constraint webhook_events_type_check check (type in (${OLD_EVENTS},'ping'))`,
  );
  await knex.raw('drop table sandbox_flights');
  await knex.raw(`update bookings set status = 'driver_assigned' where status in ('driver_en_route','driver_arrived','passenger_on_board')`);
  await knex.raw('alter table bookings drop constraint bookings_status_check');
  await knex.raw(`alter table bookings add constraint bookings_status_check check (status in (${OLD_STATUSES}))`);
  await knex.raw(
    'alter table bookings drop column tracking_token, drop column tracking_url, drop column flight, drop column pickup_estimated_at, drop column driver_location',
  );
  await knex.raw('drop index jobs_driver_index');
  await knex.raw('drop index jobs_flight_poll_index');
  await knex.raw(`
    alter table jobs drop constraint jobs_ride_check, drop column ride_state, drop column en_route_at, drop column arrived_at, drop column on_board_at,
      drop column flight, drop column flight_check_at, drop column flight_failures, drop column pickup_shift_min, drop column flight_alert`);
  await knex.raw('drop table driver_tokens');
}
