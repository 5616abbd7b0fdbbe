import type { Knex } from 'knex';

/**
 * Drivers get a place and hours, and a job holds its driver and vehicle only while they work on it.
 *
 * - `drivers.base` (a located place, as a job's places are: `{name, resolved_name, lat, lon}`), where the driver's
 *   day starts and ends; `drivers.usual_vehicle_id`, the vehicle the driver usually drives; `drivers.shifts`
 *   (`{weekly: [{weekday, starts, ends}], exceptions: [...]}`, Sri Lanka time; null: no hours set, never checked).
 * - `jobs.dropoff_at`: when the passengers are set down, as the database computes it from the job itself on every
 *   insert and update (a trigger, so an older release writing jobs during a rolling upgrade keeps it true too):
 *   the pickup, plus 45 minutes for an airport pickup (landing to kerb: immigration and bags), plus the drive
 *   (120 minutes when unknown).
 * - "One driver, one job at a time" (and one vehicle) is now over [pickup_at, dropoff_at): the exclusion
 *   constraints keep their names and move from the old window (which added a fixed way back) to this one. The time
 *   to travel between two jobs is checked by the assignment, under the driver's and the vehicle's row locks.
 * - `ends_at` stays what it was: how long a job takes its class's capacity from quoting.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table drivers
      add column base jsonb,
      add column usual_vehicle_id text references vehicles (vehicle_id),
      add column shifts jsonb,
      add column shifts_updated_at timestamptz`);
  await knex.raw('alter table jobs add column dropoff_at timestamptz');
  await knex.raw(`
    create function jobs_set_dropoff() returns trigger language plpgsql as $$
    begin
      new.dropoff_at := new.pickup_at
        + make_interval(mins => coalesce(new.duration_min, 120) + case when new.pickup ->> 'iata' is not null then 45 else 0 end);
      return new;
    end $$`);
  await knex.raw(`
    create trigger jobs_dropoff before insert or update of pickup_at, duration_min, pickup on jobs
      for each row execute function jobs_set_dropoff()`);
  await knex.raw(
    `update jobs set dropoff_at = pickup_at + make_interval(mins => coalesce(duration_min, 120) + case when pickup ->> 'iata' is not null then 45 else 0 end)`,
  );
  await knex.raw('alter table jobs alter column dropoff_at set not null');
  await knex.raw(`alter table jobs add column drive_slot tstzrange generated always as (tstzrange(pickup_at, dropoff_at, '[)')) stored`);
  await knex.raw('alter table jobs drop constraint jobs_driver_no_overlap, drop constraint jobs_vehicle_no_overlap');
  await knex.raw(
    `alter table jobs add constraint jobs_driver_no_overlap exclude using gist (driver_id with =, drive_slot with &&) where (status = 'driver_assigned')`,
  );
  await knex.raw(
    `alter table jobs add constraint jobs_vehicle_no_overlap exclude using gist (vehicle_id with =, drive_slot with &&) where (status = 'driver_assigned')`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table jobs drop constraint jobs_driver_no_overlap, drop constraint jobs_vehicle_no_overlap');
  await knex.raw(
    `alter table jobs add constraint jobs_driver_no_overlap exclude using gist (driver_id with =, slot with &&) where (status = 'driver_assigned')`,
  );
  await knex.raw(
    `alter table jobs add constraint jobs_vehicle_no_overlap exclude using gist (vehicle_id with =, slot with &&) where (status = 'driver_assigned')`,
  );
  await knex.raw('alter table jobs drop column drive_slot');
  await knex.raw('drop trigger jobs_dropoff on jobs');
  await knex.raw('drop function jobs_set_dropoff()');
  await knex.raw('alter table jobs drop column dropoff_at');
  await knex.raw('alter table drivers drop column base, drop column usual_vehicle_id, drop column shifts, drop column shifts_updated_at');
}
