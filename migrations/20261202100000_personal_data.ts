import type { Knex } from 'knex';

/**
 * A traveller's personal data, erasable although the audit log is append-only (docs/architecture.md, "Personal
 * data"):
 * - `personal_data_keys`: a data key per subject (a booking, a marketplace order, a job, a quote, or the day for
 *   what names none). The audit log keeps personal values sealed with their subject's key (AES-256-GCM); erasing a
 *   subject destroys its key, and keeps the row (key null, `erased_at` set) so no later request can make a new key
 *   for it and seal anything readable again.
 * - `audit_log.subjects`: whose data a row holds, for the export and the erasure's receipt.
 * - `erased_at` on bookings, jobs and marketplace orders; the fields erasure sets to null may now be null.
 * - Body retention (AUDIT_BODY_RETENTION_DAYS): the append-only trigger lets exactly one change through, a body
 *   replaced by its own size and digest (`{"$expired": {"bytes", "sha256"}}`), every other column unchanged.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table personal_data_keys (
      subject text primary key,
      key bytea,
      created_at timestamptz not null default now(),
      erased_at timestamptz,
      constraint personal_data_keys_erased_check check ((key is null) = (erased_at is not null))
    )`);
  await knex.raw('alter table audit_log add column subjects text[]');
  await knex.raw('create index audit_log_subjects_index on audit_log using gin (subjects)');
  await knex.raw(`alter table bookings add column erased_at timestamptz,
    alter column passenger drop not null, alter column meeting_instructions drop not null`);
  await knex.raw('alter table jobs add column erased_at timestamptz, alter column passenger drop not null');
  // The quote a booking was booked from (its quote_id moves to each change quote applied): the traveller's places'
  // text is there too, and an erasure must find it. Set by the database on insert, so no writer can forget it.
  await knex.raw('alter table bookings add column booked_quote_id text');
  await knex.raw('update bookings set booked_quote_id = quote_id');
  await knex.raw(`
    create function bookings_booked_quote() returns trigger language plpgsql as $$
    begin
      new.booked_quote_id := coalesce(new.booked_quote_id, new.quote_id);
      return new;
    end $$`);
  await knex.raw('create trigger bookings_booked_quote before insert on bookings for each row execute function bookings_booked_quote()');
  await knex.raw('alter table marketplace_orders add column erased_at timestamptz');
  // A marketplace search's subject (its places' text is the traveller's): an order erased destroys its search's key.
  await knex.raw('alter table price_marks add column subject text');
  // The retention pass's lease (one instance at a time) and what it did last (the metric and the alert).
  await knex.raw(`
    create table privacy_passes (
      pass text primary key,
      holder text not null,
      leased_until timestamptz not null,
      finished_at timestamptz,
      failed_at timestamptz
    )`);
  await knex.raw(`
    create or replace function audit_log_refuse_change() returns trigger language plpgsql as $$
    begin
      if tg_op = 'UPDATE'
        and (new.id, new.at, new.surface, new.direction, new.method, new.path, new.status, new.partner_id, new.env,
             new.request_id, new.request_headers, new.response_headers, new.duration_ms, new.attempt, new.error,
             new.client, new.operator_id, new.trace_id, new.subjects)
          is not distinct from
            (old.id, old.at, old.surface, old.direction, old.method, old.path, old.status, old.partner_id, old.env,
             old.request_id, old.request_headers, old.response_headers, old.duration_ms, old.attempt, old.error,
             old.client, old.operator_id, old.trace_id, old.subjects)
        and audit_body_expired(old.request_body, new.request_body)
        and audit_body_expired(old.response_body, new.response_body)
      then
        return new;
      end if;
      raise exception 'audit_log is append-only: % refused', tg_op using errcode = '42501';
    end $$`);
  await knex.raw(`
    create or replace function audit_body_digest(body jsonb) returns jsonb language sql immutable as $$
      select jsonb_build_object('$expired', jsonb_build_object(
        'bytes', octet_length(body::text), 'sha256', encode(sha256(convert_to(body::text, 'UTF8')), 'hex')))
    $$`);
  // What the retention pass looks for, each served by an index (test/integration/persistence/query-plans): bookings
  // by when their ride ended (the expression of erasure-repository's BOOKING_ENDED), positions by age, the data keys
  // it may destroy, a search's price marks.
  await knex.raw(`create index bookings_ride_ended_index on bookings ((case status when 'cancelled' then cancelled_at
    when 'completed' then coalesce(completed_at, pickup_at) when 'no_show' then coalesce(no_show_at, pickup_at) else pickup_at end))
    where erased_at is null`);
  await knex.raw('create index job_locations_at_index on job_locations (at)');
  await knex.raw('create index jobs_last_located_index on jobs (last_located_at) where last_located_at is not null');
  await knex.raw('create index personal_data_keys_created_index on personal_data_keys (created_at) where key is not null');
  await knex.raw('create index price_marks_subject_index on price_marks (subject)');
  // A body may only become its own digest (or stay as it is).
  await knex.raw(`
    create or replace function audit_body_expired(old_body jsonb, new_body jsonb) returns boolean language sql immutable as $$
      select old_body is not distinct from new_body
        or (old_body is not null and (old_body -> '$expired') is null and new_body = audit_body_digest(old_body))
    $$`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    create or replace function audit_log_refuse_change() returns trigger language plpgsql as $$
    begin
      raise exception 'audit_log is append-only: % refused', tg_op using errcode = '42501';
    end $$`);
  await knex.raw('drop function audit_body_expired(jsonb, jsonb)');
  await knex.raw('drop function audit_body_digest(jsonb)');
  await knex.raw('drop table privacy_passes');
  for (const index of [
    'bookings_ride_ended_index',
    'job_locations_at_index',
    'jobs_last_located_index',
    'personal_data_keys_created_index',
    'price_marks_subject_index',
  ])
    await knex.raw(`drop index if exists ${index}`);
  await knex.raw('alter table marketplace_orders drop column erased_at');
  await knex.raw('alter table price_marks drop column subject');
  await knex.raw('alter table jobs drop column erased_at');
  await knex.raw('drop trigger bookings_booked_quote on bookings');
  await knex.raw('drop function bookings_booked_quote()');
  await knex.raw('alter table bookings drop column booked_quote_id');
  await knex.raw('alter table bookings drop column erased_at');
  await knex.raw('drop index audit_log_subjects_index');
  await knex.raw('alter table audit_log drop column subjects');
  await knex.raw('drop table personal_data_keys');
}
