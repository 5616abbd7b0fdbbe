import type { Tx } from '../../data/database';
import { recordLocation } from '../../data/repositories/job-locations-repository';
import { setDriverLocation } from '../../data/repositories/bookings-repository';
import { notifyLatest, type NoticeBody } from '../marketplace/notices';
import { LIVE_BEFORE_PICKUP_MS, LOCATION_EVERY_MS } from '../kernel/job-window';
import { assertOpen, conflict, requireJob } from './jobs';

/**
 * A driver's position, for an open job and not dated in the future. One dated before the job went live (an hour
 * before its pickup, or when the driver set off if earlier) cannot be from its ride: a phone's clock is wrong, and
 * the position is kept at the time the service received it. Kept on the job (and, when it is the newest, on
 * a partner's booking, which shows it while the ride is under way); for a marketplace order
 * forwarded while the job is live, at most one message per 30 seconds per job: a newer position replaces one not
 * yet sent, so the outbox never fills with stale ones.
 */
export async function reportLocation(
  tx: Tx,
  jobId: string,
  p: { lat: number; lon: number; at?: string },
  now: Date,
  noticeBody: NoticeBody,
): Promise<{ job_id: string; at: string; forwarded: boolean }> {
  const job = await requireJob(tx, jobId);
  assertOpen(job);
  const sent = p.at ? new Date(p.at) : now;
  if (sent.getTime() > now.getTime() + 60_000) throw conflict('future_position', 'The position is dated in the future.', { at: sent.toISOString() });
  const liveFrom = Math.min(new Date(job.pickupAt).getTime() - LIVE_BEFORE_PICKUP_MS, job.enRouteAt ? new Date(job.enRouteAt).getTime() : Infinity);
  const when = sent.getTime() < liveFrom ? now : sent;

  await recordLocation(tx, jobId, when, p.lat, p.lon);
  const newest = !job.lastLocation || job.lastLocation.at.getTime() <= when.getTime();
  if (job.source === 'partner_booking' && newest) await setDriverLocation(tx, job.sourceRef, { lat: p.lat, lon: p.lon, at: when.toISOString() });
  const live = now.getTime() >= new Date(job.pickupAt).getTime() - LIVE_BEFORE_PICKUP_MS;
  const forwarded = job.source === 'marketplace_order' && live;
  if (forwarded) {
    const bucket = Math.floor(when.getTime() / LOCATION_EVERY_MS);
    const position = { lat: p.lat, lon: p.lon, at: when };
    await notifyLatest(
      tx,
      noticeBody,
      { kind: 'driver_location', orderId: job.sourceRef, position },
      { dedupeKey: `location:${job.sourceRef}:${bucket}`, maxAttempts: 3 },
      now,
    );
  }
  return { job_id: jobId, at: when.toISOString(), forwarded };
}
