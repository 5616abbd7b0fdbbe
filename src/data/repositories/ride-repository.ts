import { sql, type Sql } from '../database';
import type { RideProgress } from './jobs-repository';

const stepStmt = sql(`
  update jobs set ride_state = $2, updated_at = $3, version = version + 1,
    en_route_at = case when $2 = 'en_route' then $3 else en_route_at end,
    arrived_at = case when $2 = 'arrived' then $3 else arrived_at end,
    on_board_at = case when $2 = 'on_board' then $3 else on_board_at end
  where job_id = $1 and status = 'driver_assigned'`);

/** The ride's next step, with its time, on a job whose driver is assigned. */
export async function setRideStep(tx: Sql, jobId: string, step: RideProgress, at: Date): Promise<void> {
  await tx.query(stepStmt, [jobId, step, at]);
}

const liveStmt = sql(`
  select job_id::text as "jobId" from jobs
  where driver_id = $1 and status = 'driver_assigned' and (ride_state is not null or pickup_at <= $2::timestamptz + $3::int * interval '1 millisecond')
  order by ride_state is null, pickup_at
  limit 1`);

/**
 * The driver's live job: the one under way, else the next assigned job whose pickup is within `aheadMs`.
 * (jobs_driver_index serves it.)
 */
export async function findLiveJob(db: Sql, driverId: string, now: Date, aheadMs: number): Promise<string | undefined> {
  return (await db.query<{ jobId: string }>(liveStmt, [driverId, now, aheadMs]))[0]?.jobId;
}
