import type { Knex } from 'knex';

/**
 * The marketplace's order calls (POST /booking/, /booking/cancel/, /booking/update/, /booking/confirm/) acted on,
 * one row per distinct call: the SHA-256 of (method, the URL as the marketplace addressed it, the raw body bytes).
 * Its signature carries no timestamp or nonce, so an identical call is a replay: the row is claimed by INSERT in
 * the call's own transaction before anything is done (a concurrent identical call waits on the primary key, then
 * finds the answer) and holds the first answer, which a replay gets back without anything being done again.
 * The retention pass deletes rows 30 days old once their order's pickup is more than 7 days past.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('marketplace_seen_calls', (t) => {
    t.text('digest').primary();
    t.text('operation').notNullable();
    t.text('order_id');
    t.text('request_id').notNullable();
    // Null only inside the first call's uncommitted transaction: no one else ever sees it so.
    t.integer('response_status');
    t.text('response_body');
    t.timestamp('seen_at', { useTz: true }).notNullable();
    t.index(['seen_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('marketplace_seen_calls');
}
