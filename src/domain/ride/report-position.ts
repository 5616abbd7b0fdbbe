import type { Tx } from '../../data/database';
import { findLiveJob } from '../../data/repositories/ride-repository';
import { reportLocation } from '../fleet/report-location';
import { LIVE_BEFORE_PICKUP_MS } from '../kernel/job-window';
import type { NoticeBody } from '../marketplace/notices';

/**
 * The driver's phone sends where it is: the position goes to the driver's live job (the ride under way, else an
 * assigned job whose pickup is less than an hour away), as an operator's would (src/domain/fleet/report-location.ts).
 * With no live job it is kept nowhere: the app sends positions it queued offline, which may arrive after the ride.
 */
export async function reportDriverPosition(
  tx: Tx,
  driverId: string,
  p: { lat: number; lon: number; at?: string },
  now: Date,
  noticeBody: NoticeBody,
): Promise<{ job_id: string | null; at: string }> {
  const jobId = await findLiveJob(tx, driverId, now, LIVE_BEFORE_PICKUP_MS);
  if (!jobId) return { job_id: null, at: (p.at ? new Date(p.at) : now).toISOString() };
  const r = await reportLocation(tx, jobId, p, now, noticeBody);
  return { job_id: r.job_id, at: r.at };
}
