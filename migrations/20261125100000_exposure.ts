import type { Knex } from 'knex';

/**
 * What exposing the service needs (see docs/operations.md):
 *
 * - named operators: each with a role and a token of its own (`op_…`, kept as its SHA-256), revocable;
 *   OPERATOR_TOKEN stays as the bootstrap admin and has no row;
 * - the audit log names who and where: the operator (`operator_id`), the client address (`client`, as TRUST_PROXY
 *   decides it) and the W3C trace id the caller sent (`trace_id`);
 * - per-partner rate limits (`partners.rate_limits`, one per environment; a change bumps the partner's auth_version,
 *   so every instance picks it up on the next request) held in the database by token buckets that every request's
 *   final statement takes from (take_rate_token): several instances hold one limit together, with no extra round trip.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table audit_log add column client text, add column operator_id text, add column trace_id text');
  await knex.raw('create index audit_log_operator_id_index on audit_log (operator_id, id) where operator_id is not null');

  await knex.schema.createTable('operators', (t) => {
    t.text('operator_id').primary();
    t.text('name').notNullable();
    t.text('role').notNullable();
    t.text('token_hash').notNullable().unique();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.text('created_by').notNullable();
    t.timestamp('revoked_at', { useTz: true });
    t.check(`role in ('admin', 'dispatcher', 'viewer')`, [], 'operators_role_check');
    t.check(`char_length(name) between 1 and 100`, [], 'operators_name_check');
  });

  // A named operator's request commits only while the operator is unrevoked (SQLSTATE LT001 otherwise, like
  // assert_key_fresh): a revoke takes effect on the very next request, on every instance.
  await knex.raw(`
    create function assert_operator_active(p_operator_id text) returns boolean language plpgsql as $fn$
    begin
      if not exists (select 1 from operators where operator_id = p_operator_id and revoked_at is null) then
        raise exception 'operator % revoked', p_operator_id using errcode = 'LT001';
      end if;
      return true;
    end
    $fn$`);

  await knex.raw(`alter table partners add column rate_limits jsonb not null default '{}'::jsonb`);
  // A limit is part of what a request authenticated against: changing it moves the partner's auth_version.
  await knex.raw(`
    create or replace function partners_bump_auth_version() returns trigger language plpgsql as $fn$
    begin
      if (new.name, new.currency, new.paused, new.sandbox_paused, new.rate_limits)
         is distinct from (old.name, old.currency, old.paused, old.sandbox_paused, old.rate_limits) then
        new.auth_version := old.auth_version + 1;
      end if;
      return new;
    end $fn$`);
  await knex.schema.createTable('rate_buckets', (t) => {
    t.text('scope').primary();
    t.double('tokens').notNullable();
    t.timestamp('at', { useTz: true }).notNullable();
  });
  // Takes one token from the bucket `scope` (refilled at p_rate a second, holding at most p_burst), or raises
  // LT429 with the seconds until a token is there (the statement then fails whole: a refused request takes nothing).
  await knex.raw(`
    create function take_rate_token(p_scope text, p_rate float8, p_burst float8, p_now timestamptz) returns boolean
    language plpgsql as $fn$
    declare
      remaining float8;
    begin
      insert into rate_buckets as b (scope, tokens, at) values (p_scope, p_burst - 1, p_now)
      on conflict (scope) do update set
        tokens = least(p_burst, b.tokens + greatest(0, extract(epoch from (p_now - b.at))) * p_rate) - 1,
        at = greatest(b.at, p_now)
      returning tokens into remaining;
      if remaining < 0 then
        raise exception 'rate limited' using errcode = 'LT429', detail = ceil(-remaining / p_rate)::text;
      end if;
      return true;
    end
    $fn$`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop function take_rate_token(text, float8, float8, timestamptz)');
  await knex.schema.dropTable('rate_buckets');
  await knex.raw(`
    create or replace function partners_bump_auth_version() returns trigger language plpgsql as $fn$
    begin
      if (new.name, new.currency, new.paused, new.sandbox_paused) is distinct from (old.name, old.currency, old.paused, old.sandbox_paused) then
        new.auth_version := old.auth_version + 1;
      end if;
      return new;
    end $fn$`);
  await knex.raw('alter table partners drop column rate_limits');
  await knex.raw('drop function assert_operator_active(text)');
  await knex.schema.dropTable('operators');
  await knex.raw('drop index audit_log_operator_id_index');
  await knex.raw('alter table audit_log drop column client, drop column operator_id, drop column trace_id');
}
