import type { Tx } from '../../data/database';
import { setJobStatus, type JobRow } from '../../data/repositories/jobs-repository';
import { setOrderState } from '../../data/repositories/marketplace-repository';
import { moveBooking } from '../bookings/advance-booking';
import { jobView, type JobView } from './job-view';
import { assertOpen, conflict, requireJob } from './jobs';
import { completionFrom } from '../kernel/ride-rules';
import { formatLocal } from '../kernel/sri-lanka-time';

/**
 * An operator marks the transfer done: only an open job, from its pickup time on, and not before half the route's
 * drive has passed since the passengers got in (or since the pickup): the driver app's rule
 * (kernel/ride-rules.ts). Repeating it changes nothing. (A driver completes a ride from the app:
 * src/domain/ride/move-ride.ts.)
 */
export async function completeJob(tx: Tx, jobId: string, now: Date): Promise<JobView> {
  const job = await requireJob(tx, jobId, true);
  if (job.status === 'completed') return jobView(job, now);
  assertOpen(job);
  if (now.getTime() < new Date(job.pickupAt).getTime()) throw conflict('before_pickup', `Job ${jobId} cannot be completed before its pickup time.`);
  // The job's pickup_at is the pickup as a flight moved it.
  const from = completionFrom({ pickupAt: new Date(job.pickupAt), pickupEstimatedAt: null, onBoardAt: job.onBoardAt, driveMin: job.durationMin });
  if (now < from) throw tooSoon(jobId, from, job.durationMin);
  return jobView(await finishJob(tx, job, now), now);
}

/** Completion that is not plausible yet: named with when it will be, and why. */
export const tooSoon = (jobId: string, from: Date, driveMin: number | null) =>
  conflict(
    'too_soon',
    `Job ${jobId} can be completed from ${formatLocal(from).slice(11, 16)} (Sri Lanka time): the drive takes about ${driveMin ?? 0} minutes, and a completed ride is final and billed.`,
    { completion_from: from.toISOString() },
  );

/** The transfer is done: the driver and vehicle are free, a partner's booking shows it (with its event), a marketplace order is completed. */
export async function finishJob(tx: Tx, job: JobRow, now: Date): Promise<JobRow> {
  await setJobStatus(tx, job.jobId, 'completed', now);
  if (job.source === 'partner_booking') await moveBooking(tx, job.sourceRef, 'completed', {}, now);
  else await setOrderState(tx, job.sourceRef, 'completed', now);
  return requireJob(tx, job.jobId);
}
