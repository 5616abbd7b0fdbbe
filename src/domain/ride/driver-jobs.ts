import type { Sql } from '../../data/database';
import * as jobs from '../../data/repositories/jobs-repository';
import { notFound } from '../../shared/errors';
import { sriLankaDay } from '../kernel/sri-lanka-time';
import { jobView } from '../fleet/job-view';
import { freeWaitingMinutes, nextSteps, noShowFrom, type RideFacts, type RideState, type RideStep } from '../kernel/ride-rules';

/** A job as its driver reads it in the app (contracts/driver-v1.yaml, DriverJob). */
export interface DriverJobView {
  job_id: string;
  status: RideState;
  next: RideStep[];
  pickup_at: string;
  pickup_estimated_at: string | null;
  pickup: jobs.JobPlace;
  dropoff: jobs.JobPlace;
  passengers: { adults: number; children: number; luggage: number };
  extras: Array<{ code: string; quantity: number }>;
  passenger: { name: string; phone: string | null };
  flight: { number: string; scheduled_arrival: string | null; estimated_arrival: string | null; status: jobs.JobFlight['status'] } | null;
  notes: string | null;
  meeting_instructions: string | null;
  vehicle: { plate: string; brand: string; model: string; colour: string } | null;
  waiting: { free_minutes: number; arrived_at: string | null; no_show_from: string | null };
}

/** The jobs a driver sees: assigned to them, and not cancelled (a job given to another driver is no longer theirs). */
const VISIBLE: ReadonlySet<string> = new Set(['driver_assigned', 'completed', 'no_show']);

/** Where the ride stands, as the rules read it. */
export function rideFacts(j: jobs.JobRow): RideFacts {
  const shift = j.pickupShiftMin * 60_000;
  const state: RideState = j.status === 'driver_assigned' ? (j.ride ?? 'driver_assigned') : j.status === 'no_show' ? 'no_show' : 'completed';
  return {
    state,
    pickupAt: new Date(new Date(j.pickupAt).getTime() - shift),
    pickupEstimatedAt: shift ? new Date(j.pickupAt) : null,
    pickup: j.pickup,
    arrivedAt: j.arrivedAt ? new Date(j.arrivedAt) : null,
    onBoardAt: j.onBoardAt ? new Date(j.onBoardAt) : null,
    driveMin: j.durationMin,
  };
}

export function driverJobView(j: jobs.JobRow, now: Date): DriverJobView {
  const r = rideFacts(j);
  const v = jobView(j, now);
  const noShow = noShowFrom(r);
  return {
    job_id: j.jobId,
    status: r.state,
    next: nextSteps(r, now),
    pickup_at: v.pickup_at,
    pickup_estimated_at: v.pickup_estimated_at,
    pickup: v.pickup,
    dropoff: v.dropoff,
    passengers: v.passengers,
    extras: v.extras,
    passenger: v.passenger,
    flight: j.flightNumber
      ? {
          number: j.flightNumber,
          scheduled_arrival: j.flight?.scheduled_arrival ?? null,
          estimated_arrival: j.flight?.estimated_arrival ?? null,
          status: j.flight?.status ?? 'unknown',
        }
      : null,
    notes: v.notes,
    meeting_instructions: v.meeting_instructions,
    vehicle: v.vehicle ? { plate: v.vehicle.plate, brand: v.vehicle.brand, model: v.vehicle.model, colour: v.vehicle.colour } : null,
    waiting: {
      free_minutes: freeWaitingMinutes(j.pickup),
      arrived_at: r.arrivedAt ? r.arrivedAt.toISOString() : null,
      no_show_from: noShow ? noShow.toISOString() : null,
    },
  };
}

/** The driver's own job, else not_found (another driver's job does not exist for this one). */
export async function requireDriverJob(db: Sql, driverId: string, jobId: string, lock = false): Promise<jobs.JobRow> {
  const j = await jobs.findJob(db, jobId, lock);
  if (!j || j.driver?.driverId !== driverId) throw notFound(`No job ${jobId} for this driver.`, { job_id: jobId });
  if (!VISIBLE.has(j.status)) throw notFound(`Job ${jobId} was cancelled.`, { job_id: jobId, reason: 'cancelled' });
  return j;
}

/** A driver's jobs on a Sri Lanka day, by pickup time. */
export async function listDriverJobs(db: Sql, driverId: string, date: string, now: Date): Promise<DriverJobView[]> {
  const rows = await jobs.listJobs(db, { ...sriLankaDay(date), driverId, limit: 100 });
  return rows.filter((j) => VISIBLE.has(j.status)).map((j) => driverJobView(j, now));
}

export async function getDriverJob(db: Sql, driverId: string, jobId: string, now: Date): Promise<DriverJobView> {
  return driverJobView(await requireDriverJob(db, driverId, jobId), now);
}
