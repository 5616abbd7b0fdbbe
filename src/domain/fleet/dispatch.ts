import type { Sql, Tx } from '../../data/database';
import * as jobs from '../../data/repositories/jobs-repository';
import * as fleet from '../../data/repositories/fleet-repository';
import type { DriverSnapshot } from '../../data/repositories/bookings-repository';
import { moveBooking } from '../bookings/manage-booking';
import { setOrderState } from '../../data/repositories/marketplace-repository';
import { AppError, notFound } from '../../shared/errors';
import { storedFleetCode, vehicleOf, type FleetCode } from './fleet';
import { LIVE_BEFORE_PICKUP_MS, LOCATION_EVERY_MS, NO_SHOW_WITHIN_MS } from './job-window';
import { formatLocal } from '../marketplace/local-time';
import { notify, notifyLatest, type NoticeBody } from '../marketplace/notices';

/**
 * Dispatch: operators assign drivers and vehicles to jobs, drivers report where they are, and jobs end completed or
 * no-show. Each change reaches whoever the job is for, in the same transaction: a partner's booking shows the driver
 * and the state (and its webhook event is written); a marketplace order gets its driver info, positions and no-show
 * report through the outbox (`noticeBody`, the marketplace adapter, makes their bodies).
 */

export interface JobView {
  job_id: string;
  source: 'partner' | 'marketplace';
  booking_ref: string | null;
  order_id: string | null;
  fleet_code: FleetCode;
  status: jobs.JobStatus;
  pickup_at: string;
  ends_at: string;
  pickup: jobs.JobPlace;
  dropoff: jobs.JobPlace;
  passengers: { adults: number; luggage: number };
  passenger: { name: string; phone: string | null };
  flight_number: string | null;
  meeting_instructions: string | null;
  driver: { driver_id: string; name: string; phone: string } | null;
  vehicle: { vehicle_id: string; fleet_code: FleetCode; plate: string; brand: string; model: string; colour: string } | null;
  last_location: { lat: number; lon: number; at: string } | null;
}

const jobPlace = (p: jobs.JobPlace): jobs.JobPlace => ({ name: p.name, resolved_name: p.resolved_name ?? p.name, ...(p.iata ? { iata: p.iata } : {}), lat: p.lat, lon: p.lon });

export function jobView(j: jobs.JobRow): JobView {
  const partner = j.source === 'partner_booking';
  return {
    job_id: j.jobId,
    source: partner ? 'partner' : 'marketplace',
    booking_ref: partner ? j.sourceRef : null,
    order_id: partner ? null : j.sourceRef,
    fleet_code: storedFleetCode(j.fleetCode),
    status: j.status,
    pickup_at: new Date(j.pickupAt).toISOString(),
    ends_at: new Date(j.endsAt).toISOString(),
    pickup: jobPlace(j.pickup),
    dropoff: jobPlace(j.dropoff),
    passengers: { adults: j.adults, luggage: j.luggage },
    passenger: { name: j.passenger?.name ?? '', phone: j.passenger?.phone ?? null },
    flight_number: j.flightNumber,
    meeting_instructions: j.meetingInstructions,
    driver: j.driver ? { driver_id: j.driver.driverId, name: j.driver.name, phone: j.driver.phone } : null,
    vehicle: j.vehicle
      ? { vehicle_id: j.vehicle.vehicleId, fleet_code: storedFleetCode(j.vehicle.fleetCode), plate: j.vehicle.plate, brand: j.vehicle.brand, model: j.vehicle.model, colour: j.vehicle.colour }
      : null,
    last_location: j.lastLocation ? { lat: j.lastLocation.lat, lon: j.lastLocation.lon, at: j.lastLocation.at.toISOString() } : null,
  };
}

/** Sri Lanka keeps UTC+05:30 all year: a calendar day there, as an instant range. */
export function sriLankaDay(date: string): { from: Date; to: Date } {
  const from = new Date(`${date}T00:00:00+05:30`);
  return { from, to: new Date(from.getTime() + 24 * 3600_000) };
}

export async function listJobs(db: Sql, q: { date?: string; status?: jobs.JobStatus; bookingRef?: string; orderId?: string; limit: number }, now: Date): Promise<JobView[]> {
  const window = q.date ? sriLankaDay(q.date) : q.bookingRef || q.orderId ? {} : { from: new Date(now.getTime() - 24 * 3600_000) };
  const source = q.bookingRef ? { source: 'partner_booking' as const, sourceRef: q.bookingRef.toUpperCase() } : q.orderId ? { source: 'marketplace_order' as const, sourceRef: q.orderId } : {};
  return (await jobs.listJobs(db, { ...window, ...source, status: q.status, limit: q.limit })).map(jobView);
}

async function requireJob(db: Sql, jobId: string, lock = false): Promise<jobs.JobRow> {
  const j = await jobs.findJob(db, jobId, lock);
  if (!j) throw notFound(`No job ${jobId}.`, { job_id: jobId });
  return j;
}

export async function getJob(db: Sql, jobId: string): Promise<JobView> {
  return jobView(await requireJob(db, jobId));
}

const conflict = (reason: string, message: string, details: Record<string, unknown> = {}) => new AppError('job_conflict', message, { reason, ...details });
const closed = (j: jobs.JobRow) => conflict('job_closed', `Job ${j.jobId} is ${j.status.replace('_', ' ')}.`, { status: j.status });
const at = (d: Date) => `${formatLocal(d).slice(11, 16)}`;

function snapshot(driver: fleet.DriverRecord, vehicle: fleet.VehicleRecord): DriverSnapshot {
  return { name: driver.name, phone: driver.phone, vehicle: `${vehicle.brand} ${vehicle.model} (${vehicle.colour})`, plate: vehicle.plate };
}

/**
 * Assigns (or, until pickup, reassigns) a driver and a vehicle. The database refuses a driver or vehicle already on
 * an overlapping job (exclusion constraints), whoever assigns and on whichever instance; the rest is checked here.
 */
export async function assignJob(tx: Tx, jobId: string, input: { driver_id: string; vehicle_id: string }, now: Date, noticeBody: NoticeBody): Promise<JobView> {
  const job = await requireJob(tx, jobId, true);
  if (job.status !== 'confirmed' && job.status !== 'driver_assigned') throw closed(job);
  if (now.getTime() >= new Date(job.pickupAt).getTime()) throw conflict('pickup_passed', `Job ${jobId}'s pickup time has passed; it can no longer be (re)assigned.`);
  const driver = await fleet.findDriver(tx, input.driver_id);
  if (!driver) throw notFound(`No driver ${input.driver_id}.`, { driver_id: input.driver_id });
  const vehicle = await fleet.findVehicle(tx, input.vehicle_id);
  if (!vehicle) throw notFound(`No vehicle ${input.vehicle_id}.`, { vehicle_id: input.vehicle_id });
  if (!driver.active) throw conflict('driver_inactive', `Driver ${driver.name} is not on the roster.`, { driver_id: driver.driverId });
  if (!vehicle.active) throw conflict('vehicle_inactive', `Vehicle ${vehicle.plate} is out of service.`, { vehicle_id: vehicle.vehicleId });
  const capacity = vehicleOf(storedFleetCode(vehicle.fleetCode));
  if (job.adults > capacity.max_passengers || job.luggage > capacity.max_luggage) {
    throw new AppError('vehicle_too_small', `${vehicle.plate} (a ${capacity.name}, ${capacity.max_passengers} passengers and ${capacity.max_luggage} bags) cannot carry this party of ${job.adults} with ${job.luggage} bags.`,
      { vehicle_id: vehicle.vehicleId, adults: job.adults, luggage: job.luggage, max_passengers: capacity.max_passengers, max_luggage: capacity.max_luggage },
    );
  }
  // A vehicle of another class takes that class's capacity for the window: there must be room for it.
  if (vehicle.fleetCode !== job.heldCode && !(await fleet.hasRoom(tx, vehicle.fleetCode, new Date(job.pickupAt), new Date(job.endsAt)))) {
    throw new AppError('assignment_conflict', `Every ${capacity.name} is already held at that time: ${vehicle.plate} cannot take this job.`, { resource: 'vehicle_class', fleet_code: vehicle.fleetCode });
  }
  const outcome = await jobs.assignJob(tx, jobId, driver.driverId, vehicle.vehicleId, vehicle.fleetCode, now);
  if (!outcome.ok) {
    const other = outcome.conflictingJob;
    const who = outcome.resource === 'driver' ? `Driver ${driver.name}` : `Vehicle ${vehicle.plate}`;
    const when = other ? ` job ${other.jobId} from ${at(new Date(other.pickupAt))} to ${at(new Date(other.endsAt))} (Sri Lanka time)` : ' another job';
    throw new AppError('assignment_conflict', `${who} is already on${when}, which overlaps this one.`, {
      resource: outcome.resource,
      conflicting_job_id: other?.jobId ?? null,
    });
  }
  const assigned = await requireJob(tx, jobId);
  if (job.source === 'partner_booking') await moveBooking(tx, job.sourceRef, 'driver_assigned', snapshot(driver, vehicle), now);
  else {
    await notify(
      tx,
      noticeBody,
      {
        kind: 'driver_info',
        orderId: job.sourceRef,
        driver: { name: driver.name, phone: driver.phone },
        vehicle: { brand: vehicle.brand, model: vehicle.model, plate: vehicle.plate, colour: vehicle.colour },
      },
      // One message per assignment (a reassignment sends the new driver).
      { dedupeKey: `driver:${job.sourceRef}:v${assigned.version}` },
      now,
    );
  }
  return jobView(assigned);
}

/** The transfer is done: the driver and vehicle are free, a partner's booking shows it. Repeating it changes nothing. */
export async function completeJob(tx: Tx, jobId: string, now: Date): Promise<JobView> {
  const job = await requireJob(tx, jobId, true);
  if (job.status === 'completed') return jobView(job);
  if (job.status !== 'confirmed' && job.status !== 'driver_assigned') throw closed(job);
  if (now.getTime() < new Date(job.pickupAt).getTime()) throw conflict('before_pickup', `Job ${jobId} cannot be completed before its pickup time.`);
  await jobs.setJobStatus(tx, jobId, 'completed', now);
  if (job.source === 'partner_booking') await moveBooking(tx, job.sourceRef, 'completed', null, now);
  else await setOrderState(tx, job.sourceRef, 'completed', now);
  return jobView(await requireJob(tx, jobId));
}

/**
 * The passenger did not show: only after the pickup time and within 24 hours of it. A marketplace order's report
 * carries the driver's track around the pickup as evidence, and the operator's note.
 */
export async function reportNoShow(tx: Tx, jobId: string, note: string, now: Date, noticeBody: NoticeBody): Promise<JobView> {
  const job = await requireJob(tx, jobId, true);
  if (job.status !== 'confirmed' && job.status !== 'driver_assigned') throw closed(job);
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
    await notify(tx, noticeBody, { kind: 'no_show', orderId: job.sourceRef, track, comment: note }, { dedupeKey: `no_show:${job.sourceRef}`, maxAttempts: 11 }, now);
  }
  return jobView(await requireJob(tx, jobId));
}

/**
 * A driver's position. Kept on the job; for a marketplace order forwarded while the job is live, at most one message
 * per 30 seconds per job: a newer position replaces one not yet sent, so the outbox never fills with stale ones.
 */
export async function reportLocation(
  tx: Tx,
  jobId: string,
  p: { lat: number; lon: number; at?: string },
  now: Date,
  noticeBody: NoticeBody,
): Promise<{ job_id: string; at: string; forwarded: boolean }> {
  const job = await requireJob(tx, jobId);
  if (job.status !== 'confirmed' && job.status !== 'driver_assigned') throw closed(job);
  const when = p.at ? new Date(p.at) : now;
  if (when.getTime() > now.getTime() + 60_000) throw conflict('future_position', 'The position is dated in the future.', { at: when.toISOString() });
  await jobs.recordLocation(tx, jobId, when, p.lat, p.lon);
  const live = now.getTime() >= new Date(job.pickupAt).getTime() - LIVE_BEFORE_PICKUP_MS;
  const forwarded = job.source === 'marketplace_order' && live;
  if (forwarded) {
    const bucket = Math.floor(when.getTime() / LOCATION_EVERY_MS);
    const position = { lat: p.lat, lon: p.lon, at: when };
    await notifyLatest(tx, noticeBody, { kind: 'driver_location', orderId: job.sourceRef, position }, { dedupeKey: `location:${job.sourceRef}:${bucket}`, maxAttempts: 3 }, now);
  }
  return { job_id: jobId, at: when.toISOString(), forwarded };
}
