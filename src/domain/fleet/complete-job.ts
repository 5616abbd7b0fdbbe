import type { Tx } from '../../data/database';
import { setJobStatus, type JobRow } from '../../data/repositories/jobs-repository';
import { setOrderState } from '../../data/repositories/marketplace-repository';
import { moveBooking } from '../bookings/advance-booking';
import { jobView, type JobView } from './job-view';
import { assertOpen, conflict, requireJob } from './jobs';

/**
 * An operator marks the transfer done: only an open job, from its pickup time on; repeating it changes nothing.
 * (A driver completes a ride from the app: src/domain/ride/move-ride.ts.)
 */
export async function completeJob(tx: Tx, jobId: string, now: Date): Promise<JobView> {
  const job = await requireJob(tx, jobId, true);
  if (job.status === 'completed') return jobView(job, now);
  assertOpen(job);
  if (now.getTime() < new Date(job.pickupAt).getTime()) throw conflict('before_pickup', `Job ${jobId} cannot be completed before its pickup time.`);
  return jobView(await finishJob(tx, job, now), now);
}

/** The transfer is done: the driver and vehicle are free, a partner's booking shows it (with its event), a marketplace order is completed. */
export async function finishJob(tx: Tx, job: JobRow, now: Date): Promise<JobRow> {
  await setJobStatus(tx, job.jobId, 'completed', now);
  if (job.source === 'partner_booking') await moveBooking(tx, job.sourceRef, 'completed', {}, now);
  else await setOrderState(tx, job.sourceRef, 'completed', now);
  return requireJob(tx, job.jobId);
}
