import type { Knex } from 'knex';

const ENVS = `('sandbox','production')`;
const BOOKING_EVENTS = `'booking.confirmed','booking.driver_assigned','booking.cancelled','booking.completed','booking.no_show'`;
const KINDS = `'confirm_order','decline_order','driver_info','driver_location','change_confirmation','no_show','brand_list'`;

/**
 * Partner webhooks.
 *
 * - `webhook_endpoints`: where a partner wants events, per environment, with the signing secret (kept to sign; the
 *   previous one signs too until `previous_secret_expires_at`). An endpoint that fails for 3 days is `disabled`
 *   with the reason; a partner's DELETE makes it `deleted` (its deliveries stay on record).
 * - `webhook_events`: what happened, written in the transaction of the change that caused it: the exact JSON body
 *   delivered (`json` keeps its text), and `sequence` per booking (from bookings.event_seq, which the change's own
 *   UPDATE of the booking increments, so concurrent changes of one booking serialise on its row).
 *   `tx` is the writing transaction's id: the events list only shows events whose transaction is older than every
 *   transaction still running, in (tx, id) order, so a cursor never skips an event that commits late.
 * - Deliveries are outbox messages of kind `webhook` (one per event and endpoint), so the outbox's claim, lease,
 *   attempts and operator retry apply to them as they do to marketplace calls.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table webhook_endpoints (
      endpoint_id text primary key,
      partner_id text not null references partners (partner_id),
      env text not null check (env in ${ENVS}),
      url text not null,
      events text[] not null check (cardinality(events) > 0 and events <@ array[${BOOKING_EVENTS}]),
      secret text not null,
      previous_secret text,
      previous_secret_expires_at timestamptz,
      status text not null default 'enabled' check (status in ('enabled','disabled','deleted')),
      disabled_reason text,
      disabled_at timestamptz,
      failing_since timestamptz,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      constraint webhook_endpoints_previous_secret_check check ((previous_secret is null) = (previous_secret_expires_at is null)),
      constraint webhook_endpoints_disabled_check check ((status = 'disabled') = (disabled_at is not null))
    )`);
  await knex.raw('create index webhook_endpoints_partner_index on webhook_endpoints (partner_id, env)');

  await knex.raw(`
    create table webhook_events (
      id bigint generated always as identity,
      event_id text primary key,
      partner_id text not null references partners (partner_id),
      env text not null check (env in ${ENVS}),
      type text not null check (type in (${BOOKING_EVENTS},'ping')),
      booking_ref text references bookings (booking_ref),
      sequence integer,
      payload json not null,
      tx xid8 not null default pg_current_xact_id(),
      created_at timestamptz not null,
      constraint webhook_events_booking_check check ((type = 'ping') = (booking_ref is null) and (booking_ref is null) = (sequence is null)),
      constraint webhook_events_sequence_unique unique (booking_ref, sequence)
    )`);
  await knex.raw('create index webhook_events_stream_index on webhook_events (partner_id, env, tx, id)');

  await knex.raw('alter table bookings add column event_seq integer not null default 0');

  await knex.raw(`
    alter table outbox
      add column event_id text references webhook_events (event_id),
      add column endpoint_id text references webhook_endpoints (endpoint_id)`);
  await knex.raw('alter table outbox drop constraint outbox_kind_check');
  await knex.raw(`alter table outbox add constraint outbox_kind_check check (kind in (${KINDS},'webhook'))`);
  await knex.raw(`alter table outbox add constraint outbox_webhook_check check ((kind = 'webhook') = (event_id is not null and endpoint_id is not null))`);
  await knex.raw('create index outbox_endpoint_id_index on outbox (endpoint_id, status) where endpoint_id is not null');
  await knex.raw('create index outbox_event_id_index on outbox (event_id) where event_id is not null');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`delete from outbox where kind = 'webhook'`);
  await knex.raw('alter table outbox drop constraint outbox_webhook_check');
  await knex.raw('alter table outbox drop constraint outbox_kind_check');
  await knex.raw(`alter table outbox add constraint outbox_kind_check check (kind in (${KINDS}))`);
  await knex.raw('alter table outbox drop column event_id, drop column endpoint_id');
  await knex.raw('alter table bookings drop column event_seq');
  await knex.raw('drop table webhook_events');
  await knex.raw('drop table webhook_endpoints');
}
