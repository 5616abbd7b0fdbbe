import type { Tx } from '../../data/database';
import { setJobStatus } from '../../data/repositories/jobs-repository';
import { setOrderState } from '../../data/repositories/marketplace-repository';
import { moveBooking } from '../bookings/advance-booking';
import { jobView, type JobView } from './job-view';
import { assertOpen, conflict, requireJob } from './jobs';

/**
 * The transfer is done: the driver and vehicle are free, a partner's booking shows it (with its webhook event), a
 * marketplace order is completed. Only an open job, from its pickup time on; repeating it changes nothing.
 */
export async function completeJob(tx: Tx, jobId: string, now: Date): Promise<JobView> {
  const job = await requireJob(tx, jobId, true);
  if (job.status === 'completed') return jobView(job);
  assertOpen(job);
  if (now.getTime() < new Date(job.pickupAt).getTime()) throw conflict('before_pickup', `Job ${jobId} cannot be completed before its pickup time.`);

  await setJobStatus(tx, jobId, 'completed', now);
  if (job.source === 'partner_booking') await moveBooking(tx, job.sourceRef, 'completed', null, now);
  else await setOrderState(tx, job.sourceRef, 'completed', now);
  return jobView(await requireJob(tx, jobId));
}
