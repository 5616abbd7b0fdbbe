import { sql, type Sql, type Tx } from '../database';
import { isExclusionViolation } from '../errors';
import type { AssignedBy, JobPlace } from './jobs-repository';

/** A job's driver and vehicle: the assignment, what it collides with, and what is near it for the travel rules. */
const assignStmt = sql(`
  update jobs set driver_id = $2, vehicle_id = $3, held_code = $4, status = 'driver_assigned', assigned_at = $5, updated_at = $5, version = version + 1, assigned_by = $6,
    released_reason = null, released_at = null, ride_state = null, en_route_at = null, arrived_at = null
  where job_id = $1`);
const conflictStmt = sql(`
  select j.job_id::text as "jobId", j.pickup_at as "pickupAt", j.dropoff_at as "dropoffAt" from jobs j, jobs me
  where me.job_id = $1 and j.job_id <> me.job_id and j.status = 'driver_assigned' and j.drive_slot && me.drive_slot
    and (($2 = 'driver' and j.driver_id = $3) or ($2 = 'vehicle' and j.vehicle_id = $3))
  limit 1`);

export type AssignOutcome =
  { ok: true } | { ok: false; resource: 'driver' | 'vehicle'; conflictingJob: { jobId: string; pickupAt: Date; dropoffAt: Date } | null };

/**
 * Assigns in a savepoint: the database refuses a driver or vehicle already assigned to an overlapping job
 * (exclusion constraints), and the outcome names which, and the job in the way.
 */
export async function assignJob(
  tx: Tx,
  jobId: string,
  driverId: string,
  vehicleId: string,
  heldCode: string,
  at: Date,
  by: AssignedBy,
): Promise<AssignOutcome> {
  try {
    await tx.savepoint((sp) => sp.query(assignStmt, [jobId, driverId, vehicleId, heldCode, at, by]));
    return { ok: true };
  } catch (e) {
    const resource = isExclusionViolation(e, 'jobs_driver_no_overlap') ? 'driver' : isExclusionViolation(e, 'jobs_vehicle_no_overlap') ? 'vehicle' : null;
    if (!resource) throw e;
    const [other] = await tx.query<{ jobId: string; pickupAt: Date; dropoffAt: Date }>(conflictStmt, [
      jobId,
      resource,
      resource === 'driver' ? driverId : vehicleId,
    ]);
    return { ok: false, resource, conflictingJob: other ?? null };
  }
}

/** An assigned job near another, as the travel rules read it. */
export interface NearbyJob {
  jobId: string;
  driverId: string;
  vehicleId: string;
  pickupAt: Date;
  dropoffAt: Date;
  pickup: JobPlace;
  dropoff: JobPlace;
}

const nearbyStmt = sql(`
  select j.job_id::text as "jobId", j.driver_id as "driverId", j.vehicle_id as "vehicleId", j.pickup_at as "pickupAt", j.dropoff_at as "dropoffAt",
         j.pickup, j.dropoff
  from jobs j
  where j.status = 'driver_assigned' and j.job_id <> $1 and (j.driver_id = $2 or j.vehicle_id = $3)
    and j.pickup_at > $4::timestamptz - interval '36 hours' and j.pickup_at < $4::timestamptz + interval '36 hours'
  order by j.pickup_at`);

/** The jobs the driver or the vehicle is assigned to within 36 hours of `around` (other than `jobId`). */
export async function nearbyAssigned(db: Sql, jobId: string, driverId: string, vehicleId: string, around: Date): Promise<NearbyJob[]> {
  return db.query<NearbyJob>(nearbyStmt, [jobId, driverId, vehicleId, around]);
}

const clearStmt = sql(`
  update jobs set driver_id = null, vehicle_id = null, status = 'confirmed', assigned_by = null
  where job_id = any($1::bigint[]) and status = 'driver_assigned'`);
/**
 * Lifts jobs' assignments inside the caller's transaction, so that a plan's moves can be assigned all together (they
 * are assigned again before it commits, or it rolls back).
 */
export async function clearAssignments(tx: Tx, jobIds: readonly string[]): Promise<void> {
  if (jobIds.length) await tx.query(clearStmt, [jobIds]);
}
