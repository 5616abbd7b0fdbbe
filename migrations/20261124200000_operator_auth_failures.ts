import type { Knex } from 'knex';

/**
 * Wrong operator tokens, counted per client address (an IPv6 address by its /64) in the database, so every instance
 * sees the same count: the operator API slows the answers down and then refuses the address for a while (see
 * domain/operators/operator-auth.ts). A right token from the address deletes its row; the retention pass deletes
 * rows nobody has touched for a day.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('operator_auth_failures', (t) => {
    t.text('client').primary();
    t.integer('failures').notNullable();
    t.timestamp('first_failure_at', { useTz: true }).notNullable();
    t.timestamp('last_failure_at', { useTz: true }).notNullable();
    t.timestamp('refused_until', { useTz: true });
    t.check('failures > 0', [], 'operator_auth_failures_positive');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('operator_auth_failures');
}
