import type { Knex } from 'knex';

/**
 * Plans for a day's dispatch (POST /ops/v1/dispatch/plans): what was proposed, kept whole as it was answered, with
 * each job's version when planned (applying skips a job that changed since), and when it was applied.
 * `jobs.assigned_by` says who assigned a job: an operator by hand (`operator`: a plan never moves it) or a plan.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table jobs add column assigned_by text check (assigned_by in ('operator', 'plan'))`);
  await knex.raw(`update jobs set assigned_by = 'operator' where driver_id is not null`);
  await knex.raw(`
    create table dispatch_plans (
      plan_id text primary key,
      day date not null,
      mode text not null check (mode in ('fill', 'replan')),
      created_at timestamptz not null,
      created_by text,
      result jsonb not null,
      job_versions jsonb not null,
      applied_at timestamptz,
      applied jsonb
    )`);
  await knex.raw('create index dispatch_plans_day on dispatch_plans (day, created_at desc)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table dispatch_plans');
  await knex.raw('alter table jobs drop column assigned_by');
}
