import type { Sql } from '../../data/database';
import * as jobs from '../../data/repositories/jobs-repository';
import { AppError, notFound } from '../../shared/errors';
import { sriLankaDay } from '../kernel/sri-lanka-time';
import { jobView, type JobView } from './job-view';

/**
 * Dispatch: operators assign drivers and vehicles to jobs (assign-job), drivers report where they are
 * (report-location), and jobs end completed (complete-job) or no-show (report-no-show). Each change reaches whoever
 * the job is for, in the same transaction: a partner's booking shows the driver and the state (and its webhook event
 * is written); a marketplace order gets its driver info, positions and no-show report through the outbox
 * (`noticeBody`, the marketplace adapter, makes their bodies).
 *
 * This module holds the reads (listJobs, getJob) and what every dispatch use case checks of a job first.
 */

/** Jobs of a Sri Lanka day, of a booking or of an order; without any of them, those from the last 24 hours on. */
export async function listJobs(
  db: Sql,
  q: { date?: string; status?: jobs.JobStatus; bookingRef?: string; orderId?: string; limit: number },
  now: Date,
): Promise<JobView[]> {
  const window = q.date ? sriLankaDay(q.date) : q.bookingRef || q.orderId ? {} : { from: new Date(now.getTime() - 24 * 3600_000) };
  const source = q.bookingRef
    ? { source: 'partner_booking' as const, sourceRef: q.bookingRef.toUpperCase() }
    : q.orderId
      ? { source: 'marketplace_order' as const, sourceRef: q.orderId }
      : {};
  return (await jobs.listJobs(db, { ...window, ...source, status: q.status, limit: q.limit })).map((j) => jobView(j, now));
}

export async function getJob(db: Sql, jobId: string, now: Date): Promise<JobView> {
  return jobView(await requireJob(db, jobId), now);
}

/** The job, else not_found. `lock` holds its row until commit, so changes to one job are judged one after the other. */
export async function requireJob(db: Sql, jobId: string, lock = false): Promise<jobs.JobRow> {
  const j = await jobs.findJob(db, jobId, lock);
  if (!j) throw notFound(`No job ${jobId}.`, { job_id: jobId });
  return j;
}

/** Only a job still to be driven (confirmed, or with its driver assigned) can be changed; else job_closed. */
export function assertOpen(j: jobs.JobRow): void {
  if (j.status === 'confirmed' || j.status === 'driver_assigned') return;
  throw conflict('job_closed', `Job ${j.jobId} is ${j.status.replace('_', ' ')}.`, { status: j.status });
}

/** A change the job's state or time does not allow (409 job_conflict, with the reason). */
export const conflict = (reason: string, message: string, details: Record<string, unknown> = {}) =>
  new AppError('job_conflict', message, { reason, ...details });
