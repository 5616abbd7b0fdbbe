import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('partners', (t) => {
    t.text('partner_id').primary();
    t.text('name').notNullable();
    t.text('currency').notNullable().defaultTo('USD');
    t.boolean('paused').notNullable().defaultTo(false);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.check(`currency in ('USD','EUR','LKR')`, [], 'partners_currency_check');
  });

  await knex.schema.createTable('api_keys', (t) => {
    t.text('key_id').primary();
    t.text('partner_id').notNullable().references('partner_id').inTable('partners');
    t.text('env').notNullable();
    t.text('secret_hash').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('revoked_at', { useTz: true });
    t.timestamp('last_used_at', { useTz: true });
    t.index(['partner_id']);
    t.check(`env in ('sandbox','production')`, [], 'api_keys_env_check');
  });

  await knex.schema.createTable('partner_vehicle_codes', (t) => {
    t.text('partner_id').notNullable().references('partner_id').inTable('partners');
    t.text('code').notNullable();
    t.text('vehicle').notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['partner_id', 'code']);
  });

  await knex.schema.createTable('audit_log', (t) => {
    t.bigIncrements('id').primary();
    t.timestamp('at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.text('surface').notNullable();
    t.text('direction').notNullable();
    t.text('method').notNullable();
    t.text('path').notNullable();
    t.integer('status');
    t.text('partner_id');
    t.text('env');
    t.text('request_id').notNullable();
    t.jsonb('request_headers').notNullable();
    t.jsonb('request_body');
    t.jsonb('response_headers').notNullable();
    t.jsonb('response_body');
    t.integer('duration_ms').notNullable();
    t.integer('attempt');
    t.text('error');
    t.index(['request_id']);
    t.index(['partner_id', 'id']);
    t.check(`direction in ('inbound','outbound')`, [], 'audit_log_direction_check');
  });

  // Append-only, enforced by the database whoever connects: no UPDATE, DELETE or TRUNCATE.
  await knex.raw(`
    create function audit_log_refuse_change() returns trigger language plpgsql as $$
    begin
      raise exception 'audit_log is append-only: % refused', tg_op using errcode = '42501';
    end $$;
  `);
  await knex.raw(`create trigger audit_log_no_update_delete before update or delete on audit_log
    for each row execute function audit_log_refuse_change()`);
  await knex.raw(`create trigger audit_log_no_truncate before truncate on audit_log
    for each statement execute function audit_log_refuse_change()`);
}

export async function down(): Promise<void> {
  throw new Error('The audit log is append-only; this migration is not reversible.');
}
