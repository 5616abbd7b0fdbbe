import type { Knex } from 'knex';

/**
 * Two costs every request paid for the personal-data work, for nothing:
 * - The index of `audit_log.subjects` now covers only the rows that hold someone's personal data. A GIN index
 *   enters a null too, so every audit row (a ping, a quote between an airport and a town) paid for an entry no query
 *   reads: the export and the erasure's receipt look for `subjects && $1`, which only a row with subjects can match,
 *   and PostgreSQL proves that from the index's predicate (test/integration/persistence/query-plans).
 * - `bookings.booked_quote_id` is written by the one statement that inserts a booking
 *   (src/data/repositories/bookings-repository.ts), not by a trigger run for each row.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('drop index audit_log_subjects_index');
  await knex.raw('create index audit_log_subjects_index on audit_log using gin (subjects) where subjects is not null');
  await knex.raw('drop trigger bookings_booked_quote on bookings');
  await knex.raw('drop function bookings_booked_quote()');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    create function bookings_booked_quote() returns trigger language plpgsql as $$
    begin
      new.booked_quote_id := coalesce(new.booked_quote_id, new.quote_id);
      return new;
    end $$`);
  await knex.raw('create trigger bookings_booked_quote before insert on bookings for each row execute function bookings_booked_quote()');
  await knex.raw('drop index audit_log_subjects_index');
  await knex.raw('create index audit_log_subjects_index on audit_log using gin (subjects)');
}
