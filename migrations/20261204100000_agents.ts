import type { Knex } from 'knex';

/**
 * AI agents booking through the MCP server (src/http/mcp, docs/partner-guide.md "AI agents"):
 * - `agent_policies`: what an operator allows a partner's agents (PUT /ops/v1/partners/{id}/agent-policy). A partner
 *   without a row has the defaults: agents on, sandbox only, no amount limits.
 * - `agent_confirmations`: the tokens `prepare_booking` and `preview_cancellation` hand out, by their SHA-256: bound
 *   to the key, the environment and what they confirm, valid 10 minutes, used once. `request` holds the booking's
 *   details (a traveller's name) only until the token is used or expires: cleared on use, the row deleted by the
 *   retention pass an hour after expiry.
 * - `agent_daily_amounts`: what a partner's agents booked per Sri Lanka day and environment, in the partner's
 *   currency. A confirm adds to it in the booking's transaction, only while the sum stays within the day's limit,
 *   so concurrent confirms on any instance never take it over.
 * - The partner's request log reads MCP requests too: its index covers both surfaces.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table agent_policies (
      partner_id text primary key references partners (partner_id),
      enabled boolean not null default true,
      live_bookings boolean not null default false,
      max_booking_amount numeric(12, 2) check (max_booking_amount > 0),
      max_daily_amount numeric(12, 2) check (max_daily_amount > 0),
      updated_at timestamptz not null default now(),
      updated_by text
    )`);
  await knex.raw(`
    create table agent_confirmations (
      token_hash text primary key,
      partner_id text not null references partners (partner_id),
      env text not null check (env in ('sandbox', 'production')),
      key_id text not null,
      kind text not null check (kind in ('book', 'cancel')),
      request jsonb,
      booking_ref text,
      amount numeric(12, 2),
      currency text,
      expires_at timestamptz not null,
      used_at timestamptz,
      used_with text,
      created_at timestamptz not null default now()
    )`);
  await knex.raw('create index agent_confirmations_expiry_index on agent_confirmations (expires_at)');
  await knex.raw(`
    create table agent_daily_amounts (
      partner_id text not null references partners (partner_id),
      env text not null check (env in ('sandbox', 'production')),
      day date not null,
      amount numeric(14, 2) not null check (amount >= 0),
      bookings integer not null default 0,
      primary key (partner_id, env, day)
    )`);
  await knex.raw('drop index audit_log_partner_requests_index');
  await knex.raw(
    `create index audit_log_partner_requests_index on audit_log (partner_id, env, id) where surface in ('transfers', 'mcp') and direction = 'inbound'`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index audit_log_partner_requests_index');
  await knex.raw(`create index audit_log_partner_requests_index on audit_log (partner_id, env, id) where surface = 'transfers' and direction = 'inbound'`);
  await knex.raw('drop table agent_daily_amounts');
  await knex.raw('drop table agent_confirmations');
  await knex.raw('drop table agent_policies');
}
