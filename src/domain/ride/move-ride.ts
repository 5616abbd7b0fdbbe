import type { Tx } from '../../data/database';
import { setRideStep } from '../../data/repositories/ride-repository';
import { moveBooking } from '../bookings/advance-booking';
import { finishJob, tooSoon } from '../fleet/complete-job';
import { conflict } from '../fleet/jobs';
import { recordNoShow } from '../fleet/report-no-show';
import type { NoticeBody } from '../marketplace/notices';
import { driverJobView, requireDriverJob, rideFacts, type DriverJobView } from './driver-jobs';
import { BOOKING_STATE_OF, freeWaitingMinutes, judgeStep, type RideStep } from '../kernel/ride-rules';

/**
 * A driver moves their job to the ride's next state from the app.
 *
 * 1. The job is the driver's own (else not found), locked so two taps are judged one after the other.
 * 2. Asking for the state it is in changes nothing (a phone on a weak signal sends the same tap twice).
 * 3. The rules (kernel/ride-rules.ts) judge the step: its order, `en_route` from 3 hours before the pickup, `no_show`
 *    after the free waiting time, `completed` not before the pickup nor before half the drive since boarding.
 * 4. The step is written, and whoever the job is for hears of it: a partner's booking moves (with its event and
 *    the driver's last position); a completed ride or a no-show ends the job as an operator's would, the no-show
 *    with its evidence for a marketplace order.
 */
export async function moveRide(
  tx: Tx,
  driverId: string,
  jobId: string,
  input: { status: RideStep; note?: string },
  now: Date,
  noticeBody: NoticeBody,
): Promise<DriverJobView> {
  const job = await requireDriverJob(tx, driverId, jobId, true);
  const facts = rideFacts(job);
  if (facts.state === input.status) return driverJobView(job, now);
  if (facts.state === 'completed' || facts.state === 'no_show') {
    throw conflict('job_closed', `Job ${jobId} is ${facts.state.replace('_', ' ')}.`, { status: facts.state });
  }
  const refusal = judgeStep(facts, input.status, now);
  if (refusal?.reason === 'invalid_transition') {
    const allowed = refusal.allowed.join(' or ');
    throw conflict('invalid_transition', `Job ${jobId} is ${facts.state.replace('_', ' ')}: next comes ${allowed}, not ${input.status.replace('_', ' ')}.`, {
      status: facts.state,
      allowed: refusal.allowed,
    });
  }
  if (refusal?.reason === 'too_early') {
    throw conflict('too_early', `You can start driving to this pickup from ${refusal.from.toISOString()} (3 hours before it).`, {
      status: facts.state,
      en_route_from: refusal.from.toISOString(),
    });
  }
  if (refusal?.reason === 'waiting_time') {
    const free = freeWaitingMinutes(job.pickup);
    throw conflict('waiting_time', `The passenger can be reported missing from ${refusal.from.toISOString()}, after ${free} minutes of free waiting.`, {
      status: facts.state,
      no_show_from: refusal.from.toISOString(),
    });
  }

  if (refusal?.reason === 'too_soon') throw tooSoon(jobId, refusal.from, job.durationMin);

  if (input.status === 'completed') return driverJobView(await finishJob(tx, job, now), now);
  if (input.status === 'no_show') return driverJobView(await recordNoShow(tx, job, input.note ?? 'Reported by the driver.', now, noticeBody), now);
  await setRideStep(tx, jobId, input.status, now);
  if (job.source === 'partner_booking') {
    const last = job.lastLocation;
    const location = last ? { lat: last.lat, lon: last.lon, at: last.at.toISOString() } : null;
    await moveBooking(tx, job.sourceRef, BOOKING_STATE_OF[input.status], { location }, now);
  }
  return driverJobView(await requireDriverJob(tx, driverId, jobId), now);
}
