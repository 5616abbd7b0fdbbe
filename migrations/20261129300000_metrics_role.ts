import type { Knex } from 'knex';

/**
 * The `metrics` operator role: a token that reads GET /metrics and nothing else (the Prometheus scraper's), so the
 * scraper no longer holds a viewer's token, which reads the board (see contracts/ops-v1.yaml, roles).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table operators drop constraint operators_role_check');
  await knex.raw(`alter table operators add constraint operators_role_check check (role in ('admin', 'dispatcher', 'viewer', 'metrics'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`delete from operators where role = 'metrics'`);
  await knex.raw('alter table operators drop constraint operators_role_check');
  await knex.raw(`alter table operators add constraint operators_role_check check (role in ('admin', 'dispatcher', 'viewer'))`);
}
