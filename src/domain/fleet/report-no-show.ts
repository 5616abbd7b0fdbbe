import type { Tx } from '../../data/database';
import * as jobs from '../../data/repositories/jobs-repository';
import * as locations from '../../data/repositories/job-locations-repository';
import { setOrderState } from '../../data/repositories/marketplace-repository';
import { moveBooking } from '../bookings/advance-booking';
import { formatLocal } from '../kernel/sri-lanka-time';
import { notify, type NoticeBody } from '../marketplace/notices';
import { LIVE_BEFORE_PICKUP_MS, NO_SHOW_WITHIN_MS } from '../kernel/job-window';
import { jobView, type JobView } from './job-view';
import { assertOpen, conflict, requireJob } from './jobs';

/**
 * An operator reports that the passenger did not show: only for an open job, after the pickup time and within 24
 * hours of it. (A driver reports it from the app, after the free waiting time: src/domain/ride/move-ride.ts.)
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
  return jobView(await recordNoShow(tx, job, note, now, noticeBody), now);
}

/**
 * The passenger did not show. The job keeps the note; a partner's booking shows the no-show (with its event); a
 * marketplace order's report carries the evidence: the driver's track around the pickup, and in its comment the
 * arrival time, the minutes waited and the last position.
 */
export async function recordNoShow(tx: Tx, job: jobs.JobRow, note: string, now: Date, noticeBody: NoticeBody): Promise<jobs.JobRow> {
  await jobs.setJobStatus(tx, job.jobId, 'no_show', now, note);
  if (job.source === 'partner_booking') await moveBooking(tx, job.sourceRef, 'no_show', {}, now);
  else {
    await setOrderState(tx, job.sourceRef, 'no_show', now);
    const trail = await locations.track(tx, job.jobId, new Date(new Date(job.pickupAt).getTime() - LIVE_BEFORE_PICKUP_MS), now);
    const track = trail.map((p) => ({ lat: p.lat, lon: p.lon, at: new Date(p.at) }));
    const comment = [note, evidence(job, now)].filter(Boolean).join(' ');
    await notify(tx, noticeBody, { kind: 'no_show', orderId: job.sourceRef, track, comment }, { dedupeKey: `no_show:${job.sourceRef}`, maxAttempts: 11 }, now);
  }
  return requireJob(tx, job.jobId);
}

/** What the driver's app recorded, in words: when the driver arrived, how long they waited, where they were last. */
function evidence(job: jobs.JobRow, now: Date): string {
  const local = (d: Date) => `${formatLocal(d).slice(0, 16)} (Sri Lanka time)`;
  const parts: string[] = [];
  if (job.arrivedAt) {
    const arrived = new Date(job.arrivedAt);
    const waited = Math.floor((now.getTime() - Math.max(arrived.getTime(), new Date(job.pickupAt).getTime())) / 60_000);
    parts.push(`Driver arrived at ${local(arrived)} and waited ${waited} minutes after the pickup time.`);
  }
  const last = job.lastLocation;
  if (last) parts.push(`Last position ${last.lat.toFixed(5)}, ${last.lon.toFixed(5)} at ${local(last.at)}.`);
  return parts.join(' ');
}
