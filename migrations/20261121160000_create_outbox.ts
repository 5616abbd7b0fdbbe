import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Calls we owe the marketplace. All delivery state lives here (no in-process queue), so several workers and
  // restarts are safe: a claim is a lease (locked_until) that simply expires if its worker dies.
  await knex.schema.createTable('outbox', (t) => {
    t.bigIncrements('id').primary();
    t.text('kind').notNullable();
    t.text('order_id');
    t.jsonb('payload').notNullable();
    t.text('dedupe_key').unique({ indexName: 'outbox_dedupe_key_unique' });
    t.text('status').notNullable().defaultTo('pending');
    t.integer('attempts').notNullable().defaultTo(0);
    t.integer('max_attempts').notNullable().defaultTo(8);
    t.timestamp('next_attempt_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('locked_until', { useTz: true });
    t.integer('last_status');
    t.text('last_error');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('delivered_at', { useTz: true });
    t.index(['status', 'next_attempt_at'], 'outbox_status_next_attempt_at_index');
    t.index(['order_id'], 'outbox_order_id_index');
    t.check(`status in ('pending','delivered','failed')`, [], 'outbox_status_check');
    t.check(`kind in ('confirm_order','decline_order','driver_info','driver_location','change_confirmation','no_show','brand_list')`, [], 'outbox_kind_check');
    t.check(`(status = 'delivered') = (delivered_at is not null)`, [], 'outbox_delivered_at_check');
    t.check(`attempts >= 0 and max_attempts >= 1`, [], 'outbox_attempts_check');
  });

  // The marketplace's brand list (ids used in driver info), refreshed by a brand_list message.
  await knex.schema.createTable('marketplace_brands', (t) => {
    t.integer('id').primary();
    t.text('name').notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('marketplace_brands');
  await knex.schema.dropTableIfExists('outbox');
}
