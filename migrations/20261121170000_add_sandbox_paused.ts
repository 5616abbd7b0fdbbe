import type { Knex } from 'knex';

/** Sandbox-only pause, set by the partner's own test helper so an integration can exercise partner_paused. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('partners', (t) => {
    t.boolean('sandbox_paused').notNullable().defaultTo(false);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('partners', (t) => t.dropColumn('sandbox_paused'));
}
