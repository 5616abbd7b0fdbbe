import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('quotes', (t) => {
    t.text('quote_id').primary();
    t.text('partner_id').notNullable().references('partner_id').inTable('partners');
    t.text('env').notNullable();
    t.jsonb('request').notNullable();
    t.text('currency').notNullable();
    t.text('journey_type');
    t.jsonb('pickup');
    t.jsonb('dropoff');
    t.decimal('distance_km', 8, 1);
    t.integer('duration_min');
    t.timestamp('pickup_at', { useTz: true }).notNullable();
    t.text('declined_reason');
    t.jsonb('declined');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.index(['expires_at']);
    t.check(`env in ('sandbox','production')`, [], 'quotes_env_check');
  });

  await knex.schema.createTable('offers', (t) => {
    t.text('offer_id').primary();
    t.text('quote_id').notNullable().references('quote_id').inTable('quotes').onDelete('CASCADE');
    t.text('partner_id').notNullable();
    t.text('env').notNullable();
    t.smallint('position').notNullable();
    t.text('vehicle').notNullable();
    t.text('vehicle_code').notNullable();
    t.text('vehicle_name').notNullable();
    t.text('vehicle_class').notNullable();
    t.integer('max_passengers').notNullable();
    t.integer('max_luggage').notNullable();
    // The price billed: stored once, never recomputed.
    t.bigInteger('amount_minor').notNullable();
    t.text('currency').notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.index(['quote_id']);
    t.check('amount_minor > 0', [], 'offers_amount_positive');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('offers');
  await knex.schema.dropTable('quotes');
}
