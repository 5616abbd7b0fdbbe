import type { Knex } from 'knex';

/**
 * Webhook events are kept 30 days (then purged with their deliveries by the retention pass, unless a delivery is
 * still pending): the pass finds them by age through this index.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('create index webhook_events_created_at_index on webhook_events (created_at)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index webhook_events_created_at_index');
}
