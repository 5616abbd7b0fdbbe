import type { Knex } from 'knex';

/**
 * Webhook deliveries that one partner cannot hold hostage (issue 28).
 *
 * - **One attempt in flight per endpoint.** `busy_until` is the lease of the delivery being tried at the endpoint
 *   now (null when idle): the claim sets it on the endpoint's own row, under that row's lock, so two workers (of one
 *   instance or several) never both start an attempt at one endpoint; recording the outcome clears it, and a worker
 *   that dies leaves a lease that expires.
 * - **Round robin.** `claimed_at` is when the endpoint's last attempt started: the claim serves the endpoints served
 *   least recently first (per partner, then across partners).
 * - The claim walks an endpoint's waiting deliveries oldest first: `outbox_webhook_due_index`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table webhook_endpoints add column busy_until timestamptz, add column claimed_at timestamptz');
  await knex.raw(`create index outbox_webhook_due_index on outbox (endpoint_id, id) where status = 'pending' and endpoint_id is not null`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index outbox_webhook_due_index');
  await knex.raw('alter table webhook_endpoints drop column busy_until, drop column claimed_at');
}
