import type { Knex } from 'knex';

/**
 * The audit log becomes a table partitioned by month on `at`, so it stays flat as it grows: each month's rows and
 * indexes live in their own partition, queries by time touch only the months asked for, and retention drops whole
 * months (DROP of a partition) instead of deleting rows, which the append-only trigger refuses anyway.
 *
 * audit_log_ensure_partitions(from, months) creates the monthly partitions that do not exist yet; the service calls
 * it at start and with every retention pass (three months ahead). A default partition catches anything outside
 * them, so an insert never fails for want of a partition.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table audit_log rename to audit_log_legacy');
  // Index names are schema-wide: the old table's give way to the new table's.
  await knex.raw('alter table audit_log_legacy rename constraint audit_log_pkey to audit_log_legacy_pkey');
  await knex.raw('drop index audit_log_request_id_index');
  await knex.raw('drop index audit_log_partner_id_id_index');
  await knex.raw('alter sequence audit_log_id_seq owned by none');
  await knex.raw(`
    create table audit_log (
      id bigint not null default nextval('audit_log_id_seq'),
      at timestamptz not null default now(),
      surface text not null,
      direction text not null,
      method text not null,
      path text not null,
      status integer,
      partner_id text,
      env text,
      request_id text not null,
      request_headers jsonb not null,
      request_body jsonb,
      response_headers jsonb not null,
      response_body jsonb,
      duration_ms integer not null,
      attempt integer,
      error text,
      primary key (id, at),
      constraint audit_log_direction_check check (direction in ('inbound', 'outbound'))
    ) partition by range (at)`);
  await knex.raw('alter sequence audit_log_id_seq owned by audit_log.id');
  // Every search the operator console offers is served by one of these (see the EXPLAIN checks in test/).
  await knex.raw('create index audit_log_request_id_index on audit_log (request_id)');
  await knex.raw('create index audit_log_partner_id_index on audit_log (partner_id, id)');
  await knex.raw('create index audit_log_surface_index on audit_log (surface, direction, id)');
  await knex.raw('create index audit_log_path_index on audit_log (path text_pattern_ops)');
  await knex.raw('create index audit_log_at_index on audit_log (at)');
  await knex.raw('create table audit_log_default partition of audit_log default');

  // Append-only, whoever connects: row triggers on the parent apply to every partition; TRUNCATE is refused on
  // the parent and on each partition (statement triggers are not inherited, so each partition gets its own).
  await knex.raw(`create trigger audit_log_no_update_delete before update or delete on audit_log
    for each row execute function audit_log_refuse_change()`);
  await knex.raw(`create trigger audit_log_no_truncate before truncate on audit_log
    for each statement execute function audit_log_refuse_change()`);
  await knex.raw(`create trigger audit_log_no_truncate before truncate on audit_log_default
    for each statement execute function audit_log_refuse_change()`);

  await knex.raw(`
    create or replace function audit_log_ensure_partitions(start_at timestamptz, months integer) returns integer
    language plpgsql as $fn$
    declare
      m integer;
      lo timestamptz;
      hi timestamptz;
      part text;
      made integer := 0;
    begin
      perform pg_advisory_xact_lock(4242002);
      for m in 0 .. months - 1 loop
        lo := (date_trunc('month', start_at at time zone 'UTC') + make_interval(months => m)) at time zone 'UTC';
        hi := (date_trunc('month', start_at at time zone 'UTC') + make_interval(months => m + 1)) at time zone 'UTC';
        part := 'audit_log_' || to_char(lo at time zone 'UTC', 'YYYY_MM');
        if not exists (
          select 1 from pg_class c join pg_namespace n on n.oid = c.relnamespace
          where c.relname = part and n.nspname = current_schema()
        ) then
          execute format('create table %I partition of audit_log for values from (%L) to (%L)', part, lo, hi);
          execute format('create trigger audit_log_no_truncate before truncate on %I for each statement execute function audit_log_refuse_change()', part);
          made := made + 1;
        end if;
      end loop;
      return made;
    end $fn$`);
  await knex.raw(`select audit_log_ensure_partitions(now() - interval '1 month', 5)`);

  await knex.raw('insert into audit_log select * from audit_log_legacy');
  await knex.raw('drop table audit_log_legacy');
}

export async function down(): Promise<void> {
  throw new Error('The audit log is append-only; this migration is not reversible.');
}
