import * as jobs from '../../data/repositories/jobs-repository';
import type { FollowJob, ReleaseReason } from '../kernel/follow-job';
import { missingSeats } from '../kernel/seats';
import { storedFleetCode, vehicleOf } from '../kernel/fleet';

/**
 * A job follows a change of what it serves — a partner's booking (an amendment or a priced change) or a marketplace
 * order (its change): its window, places, party, seats, passenger, flight and notes. The change stands; the
 * dispatch is ours to fix: an assignment that no longer fits is released (the job is `confirmed` again, with the
 * reason, for an operator to assign anew):
 *
 * - `overlap`: the new window overlaps another job of its driver or vehicle (the database's exclusion constraints);
 * - `vehicle_too_small`: the assigned vehicle no longer carries the party;
 * - `vehicle_lacks_equipment`: it lacks a seat the job now needs.
 *
 * `changed` makes the job's new record from the job as it is. Nothing happens to a job that is not open (or to a
 * sandbox booking, which has none). Returns the reason of a release, or null. It is the FollowJob port the
 * surfaces hand to the use cases that change bookings and orders (src/domain/kernel/follow-job.ts).
 */
export const followChange: FollowJob = async (tx, of, changed, now) => {
  const job = await jobs.findJobBySource(tx, of.source, of.sourceRef, true);
  if (!job || (job.status !== 'confirmed' && job.status !== 'driver_assigned')) return null;
  const record = changed(job);
  if ((await jobs.rescheduleJob(tx, record, now)) === 'overlap') {
    await jobs.releaseJob(tx, record.source, record.sourceRef, 'overlap', now);
    // Unassigned, the job overlaps nothing: the change applies now.
    await jobs.rescheduleJob(tx, record, now);
    return 'overlap';
  }
  const reason = job.vehicle ? misfit(record, job.vehicle) : null;
  if (reason) await jobs.releaseJob(tx, record.source, record.sourceRef, reason, now);
  return reason;
};

/** Why the assigned vehicle no longer serves the changed job, if it does not. */
function misfit(record: jobs.JobRecord, vehicle: NonNullable<jobs.JobRow['vehicle']>): ReleaseReason | null {
  const capacity = vehicleOf(storedFleetCode(vehicle.fleetCode));
  if (record.adults + record.children > capacity.max_passengers || record.luggage > capacity.max_luggage) return 'vehicle_too_small';
  if (Object.keys(missingSeats(record.seats, vehicle.equipment)).length) return 'vehicle_lacks_equipment';
  return null;
}
