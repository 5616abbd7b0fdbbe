import type { Knex } from 'knex';

const CODES = `'small_car','standard_car','premium_car','suv','standard_van','premium_van','large_van','standard_bus'`;
const HOLDING = `('confirmed','driver_assigned')`;

/**
 * The fleet: vehicles and drivers, and jobs that hold them for a window of time.
 *
 * - A job's `slot` runs from pickup to `ends_at`. While a driver is assigned, no other job may hold the same
 *   driver or vehicle for an overlapping slot: exclusion constraints, so it holds with any number of operators and
 *   instances (btree_gist gives GiST the equality on text ids).
 * - A job takes capacity from `held_code`: the class of the vehicle assigned to it, else the class it was sold as.
 *   fleet_has_room(code, from, to) says whether one more job of that class fits (the most jobs of the class running
 *   at any instant of the window, against the active vehicles of the class). It takes a per-class advisory lock
 *   and reads with a fresh snapshot (a volatile PL/pgSQL function in READ COMMITTED), so concurrent bookings of the
 *   last vehicle serialise on it and only one fits. With no active vehicle registered at all, the fleet table alone
 *   decides (a fresh production database quotes and books as before).
 * - Sandbox bookings never occupy the fleet: they have no job.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('create extension if not exists btree_gist with schema public');

  await knex.raw(`
    create table vehicles (
      vehicle_id text primary key,
      fleet_code text not null check (fleet_code in (${CODES})),
      plate text not null,
      plate_key text generated always as (upper(regexp_replace(plate, '[^A-Za-z0-9]', '', 'g'))) stored,
      brand text not null,
      model text not null,
      colour text not null,
      active boolean not null default true,
      created_at timestamptz not null default now(),
      deactivated_at timestamptz,
      constraint vehicles_plate_unique unique (plate_key)
    )`);
  await knex.raw('create index vehicles_fleet_code_index on vehicles (fleet_code) where active');
  await knex.raw(`
    create table drivers (
      driver_id text primary key,
      name text not null,
      phone text not null,
      languages text[] not null default '{}',
      active boolean not null default true,
      created_at timestamptz not null default now(),
      deactivated_at timestamptz
    )`);

  // Sandbox bookings never had business on the schedule.
  await knex.raw(`delete from jobs where env <> 'production'`);
  await knex.raw('alter table jobs drop constraint jobs_status_check');
  await knex.raw(`update jobs set status = case status when 'scheduled' then 'confirmed' when 'assigned' then 'driver_assigned' else status end`);
  await knex.raw('alter table jobs rename column vehicle to fleet_code');
  await knex.raw(`
    alter table jobs
      add column ends_at timestamptz,
      add column held_code text,
      add column driver_id text references drivers (driver_id),
      add column vehicle_id text references vehicles (vehicle_id),
      add column assigned_at timestamptz,
      add column completed_at timestamptz,
      add column no_show_at timestamptz,
      add column no_show_note text,
      add column meeting_instructions text,
      add column last_lat double precision,
      add column last_lon double precision,
      add column last_located_at timestamptz,
      add column version integer not null default 1`);
  await knex.raw(`update jobs set ends_at = pickup_at + make_interval(mins => coalesce(duration_min, 120) + 105), held_code = fleet_code`);
  await knex.raw('alter table jobs alter column ends_at set not null, alter column held_code set not null');
  await knex.raw(`alter table jobs add column slot tstzrange generated always as (tstzrange(pickup_at, ends_at, '[)')) stored`);
  await knex.raw(`alter table jobs add constraint jobs_status_check check (status in ('confirmed','driver_assigned','completed','no_show','cancelled'))`);
  await knex.raw(`alter table jobs add constraint jobs_env_check check (env = 'production')`);
  await knex.raw(
    `alter table jobs add constraint jobs_assigned_check check ((status = 'driver_assigned') = (driver_id is not null and vehicle_id is not null) or status in ('completed','no_show','cancelled'))`,
  );
  await knex.raw(
    `alter table jobs add constraint jobs_driver_no_overlap exclude using gist (driver_id with =, slot with &&) where (status = 'driver_assigned')`,
  );
  await knex.raw(
    `alter table jobs add constraint jobs_vehicle_no_overlap exclude using gist (vehicle_id with =, slot with &&) where (status = 'driver_assigned')`,
  );
  await knex.raw(`create index jobs_capacity_index on jobs using gist (held_code, slot) where (status in ${HOLDING})`);

  await knex.raw(`
    create table job_locations (
      job_id bigint not null references jobs (job_id),
      at timestamptz not null,
      lat double precision not null,
      lon double precision not null
    )`);
  await knex.raw('create index job_locations_job_index on job_locations (job_id, at)');

  // Bookings show their dispatch: the driver (a snapshot taken at assignment) and every state.
  await knex.raw('alter table bookings drop constraint bookings_status_check');
  await knex.raw(
    `alter table bookings add constraint bookings_status_check check (status in ('confirmed','driver_assigned','completed','no_show','cancelled'))`,
  );
  await knex.raw('alter table bookings add column driver jsonb, add column completed_at timestamptz, add column no_show_at timestamptz');

  await knex.raw(`
    create function fleet_has_room(p_code text, p_from timestamptz, p_to timestamptz) returns boolean
    language plpgsql volatile as $fn$
    declare
      vehicles_active integer;
      busiest integer;
    begin
      if not exists (select 1 from vehicles where active) then
        return true;
      end if;
      perform pg_advisory_xact_lock(hashtext('fleet:' || p_code));
      select count(*) into vehicles_active from vehicles where active and fleet_code = p_code;
      if vehicles_active = 0 then
        return false;
      end if;
      select coalesce(max(running), 0) into busiest from (
        select (select count(*) from jobs j
                where j.held_code = p_code and j.status in ${HOLDING} and j.slot @> instants.t) as running
        from (
          select p_from as t
          union all
          select lower(j.slot) from jobs j
          where j.held_code = p_code and j.status in ${HOLDING} and j.slot && tstzrange(p_from, p_to, '[)') and lower(j.slot) > p_from
        ) instants
      ) counted;
      return busiest < vehicles_active;
    end $fn$`);

  await knex.raw(`
    create function fleet_availability(p_from timestamptz, p_to timestamptz)
    returns table (fleet_code text, vehicles integer, busiest integer)
    language sql stable as $fn$
      select v.fleet_code, v.n::int,
        coalesce((
          select max((select count(*) from jobs j2 where j2.held_code = v.fleet_code and j2.status in ${HOLDING} and j2.slot @> i.t))
          from (
            select p_from as t
            union all
            select lower(j.slot) from jobs j
            where j.held_code = v.fleet_code and j.status in ${HOLDING} and j.slot && tstzrange(p_from, p_to, '[)') and lower(j.slot) > p_from
          ) i
        ), 0)::int
      from (select fleet_code, count(*) as n from vehicles where active group by fleet_code) v
    $fn$`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop function fleet_availability(timestamptz, timestamptz)');
  await knex.raw('drop function fleet_has_room(text, timestamptz, timestamptz)');
  await knex.raw('alter table bookings drop column driver, drop column completed_at, drop column no_show_at');
  await knex.raw('drop table job_locations');
  await knex.raw(
    'alter table jobs drop constraint jobs_driver_no_overlap, drop constraint jobs_vehicle_no_overlap, drop constraint jobs_assigned_check, drop constraint jobs_env_check',
  );
  await knex.raw('drop index jobs_capacity_index');
  await knex.raw(
    'alter table jobs drop column slot, drop column ends_at, drop column held_code, drop column driver_id, drop column vehicle_id, drop column assigned_at, drop column completed_at, drop column no_show_at, drop column no_show_note, drop column meeting_instructions, drop column last_lat, drop column last_lon, drop column last_located_at, drop column version',
  );
  await knex.raw('alter table jobs rename column fleet_code to vehicle');
  await knex.raw('drop table drivers');
  await knex.raw('drop table vehicles');
}
