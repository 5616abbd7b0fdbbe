import type { Tx } from '../../data/database';
import * as jobs from '../../data/repositories/jobs-repository';
import { setOrderState } from '../../data/repositories/marketplace-repository';
import { moveBooking } from '../bookings/advance-booking';
import { notify, type NoticeBody } from '../marketplace/notices';
import { LIVE_BEFORE_PICKUP_MS, NO_SHOW_WITHIN_MS } from './job-window';
import { jobView, type JobView } from './job-view';
import { assertOpen, conflict, requireJob } from './jobs';

/**
 * The passenger did not show: only for an open job, after the pickup time and within 24 hours of it. The job keeps
 * the operator's note; a partner's booking shows the no-show (with its webhook event); a marketplace order's report
 * carries the driver's track around the pickup as evidence, and the note.
 */
export async function reportNoShow(tx: Tx, jobId: string, note: string, now: Date, noticeBody: NoticeBody): Promise<JobView> {
  const job = await requireJob(tx, jobId, true);
  assertOpen(job);
  const pickupAt = new Date(job.pickupAt);
  if (now.getTime() < pickupAt.getTime()) {
    throw conflict('too_early', `A no-show can be reported only after the pickup time (${pickupAt.toISOString()}).`, { pickup_at: pickupAt.toISOString() });
  }
  if (now.getTime() > pickupAt.getTime() + NO_SHOW_WITHIN_MS) {
    throw conflict('too_late', 'A no-show must be reported within 24 hours of the pickup time.', { pickup_at: pickupAt.toISOString() });
  }

  await jobs.setJobStatus(tx, jobId, 'no_show', now, note);
  if (job.source === 'partner_booking') await moveBooking(tx, job.sourceRef, 'no_show', null, now);
  else {
    await setOrderState(tx, job.sourceRef, 'no_show', now);
    const trail = await jobs.track(tx, jobId, new Date(pickupAt.getTime() - LIVE_BEFORE_PICKUP_MS), now);
    const track = trail.map((p) => ({ lat: p.lat, lon: p.lon, at: new Date(p.at) }));
    await notify(
      tx,
      noticeBody,
      { kind: 'no_show', orderId: job.sourceRef, track, comment: note },
      { dedupeKey: `no_show:${job.sourceRef}`, maxAttempts: 11 },
      now,
    );
  }
  return jobView(await requireJob(tx, jobId));
}
