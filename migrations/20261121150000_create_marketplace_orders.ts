import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // A price mark is an opaque token naming one locked quote: route, time, party, vehicle and price.
  await knex.schema.createTable('price_marks', (t) => {
    t.text('price_mark').primary();
    t.text('vehicle').notNullable();
    t.jsonb('search').notNullable();
    t.bigInteger('amount_minor').notNullable();
    t.text('currency').notNullable();
    t.decimal('distance_km', 8, 1).notNullable();
    t.integer('duration_min').notNullable();
    t.timestamp('pickup_at', { useTz: true }).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.index(['expires_at']);
  });

  await knex.schema.createTable('marketplace_orders', (t) => {
    // The marketplace's order id: a resent order can never become a second row (or a second job).
    t.text('order_id').primary();
    t.text('state').notNullable();
    t.text('vehicle').notNullable();
    t.text('price_mark');
    t.jsonb('order').notNullable();
    t.text('source').notNullable();
    t.timestamp('pickup_at', { useTz: true });
    t.bigInteger('amount_minor');
    t.text('currency').notNullable().defaultTo('EUR');
    t.text('supplier_order_id').notNullable().unique();
    t.text('decline_reason');
    t.text('data_hash').notNullable();
    t.integer('version').notNullable().defaultTo(1);
    t.timestamp('acknowledged_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.check(`state in ('confirmed','declined','cancelled','completed','no_show')`, [], 'marketplace_orders_state_check');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('marketplace_orders');
  await knex.schema.dropTable('price_marks');
}
