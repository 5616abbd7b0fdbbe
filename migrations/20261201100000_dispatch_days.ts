import type { Knex } from 'knex';

/**
 * The automatic dispatch pass's lease on a day (DISPATCH_AUTO): one instance at a time plans a day, and a day is
 * planned again only when its open jobs changed (`open_signature`: the unassigned jobs and their versions left
 * after the last pass) or the last pass is old enough to try again (a driver's new hours, say).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table dispatch_days (
      day date primary key,
      holder text not null,
      leased_until timestamptz not null,
      planned_at timestamptz,
      open_signature text
    )`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table dispatch_days');
}
