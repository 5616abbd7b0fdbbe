import { sql, type Sql, type Tx } from '../database';
import { isExclusionViolation } from '../errors';
import type { Write } from '../write';
import type { Seats } from './fleet-repository';

/** Who assigned a job: an operator by hand (a plan never moves it), or a plan. */
export type AssignedBy = 'operator' | 'plan';

/** Production bookings and marketplace orders are both jobs on the fleet's one schedule. */
export type JobSource = 'partner_booking' | 'marketplace_order';
export type JobStatus = 'confirmed' | 'driver_assigned' | 'completed' | 'no_show' | 'cancelled';
/** How far the ride has gone while its driver is assigned. */
export type RideProgress = 'en_route' | 'arrived' | 'on_board';
/** A flight's trouble, kept on the job for the dispatcher. */
export type FlightAlert = 'flight_cancelled' | 'flight_diverted' | 'flight_moved_released' | 'flight_moved_over_capacity';
/** What the flight-status provider last said of an airport arrival's flight. */
export interface JobFlight {
  number: string;
  status: 'unknown' | 'scheduled' | 'delayed' | 'landed' | 'diverted' | 'cancelled';
  scheduled_arrival: string | null;
  estimated_arrival: string | null;
  checked_at: string;
}

/** A place as the driver reads it: the customer's own text, and where we located it. */
export interface JobPlace {
  name: string;
  resolved_name: string;
  iata?: string;
  lat: number;
  lon: number;
}

export interface JobRecord {
  source: JobSource;
  sourceRef: string;
  fleetCode: string;
  pickupAt: Date;
  endsAt: Date;
  durationMin: number | null;
  pickup: JobPlace;
  dropoff: JobPlace;
  adults: number;
  children: number;
  luggage: number;
  /** Seats the vehicle must carry. */
  seats: Seats;
  passenger: { name: string; phone?: string | null };
  flightNumber: string | null;
  /** The partner's notes for the driver. */
  notes: string | null;
  meetingInstructions: string | null;
}

/** A job as read, with its driver and vehicle. */
export interface JobRow extends JobRecord {
  jobId: string;
  /** When the passengers are set down, as the database computes it (see the migration driver_bases_shifts_travel). */
  dropoffAt: Date;
  status: JobStatus;
  heldCode: string;
  driver: { driverId: string; name: string; phone: string } | null;
  vehicle: {
    vehicleId: string;
    fleetCode: string;
    plate: string;
    brand: string;
    model: string;
    colour: string;
    equipment: Seats;
  } | null;
  lastLocation: { lat: number; lon: number; at: Date } | null;
  /** Why a change released its driver and vehicle, until it is assigned again. */
  released: { reason: string; at: Date } | null;
  version: number;
  assignedBy: AssignedBy | null;
  ride: RideProgress | null;
  enRouteAt: Date | null;
  arrivedAt: Date | null;
  onBoardAt: Date | null;
  completedAt: Date | null;
  noShowAt: Date | null;
  flight: JobFlight | null;
  /** How far a flight moved the job's window (pickupAt, endsAt) from the booked pickup, in minutes. */
  pickupShiftMin: number;
  /** Set for the dispatcher: the flight was cancelled or diverted, or a moved window lost its driver. */
  flightAlert: FlightAlert | null;
}

const COLUMNS =
  'source, source_ref, env, status, fleet_code, held_code, pickup_at, ends_at, duration_min, pickup, dropoff, adults, luggage, passenger, flight_number, meeting_instructions, created_at, updated_at, children, extras, notes';
const VALUES = `$1::text, $2::text, 'production', 'confirmed', $3::text, $3::text, $4::timestamptz, $5::timestamptz, $6::int, $7::jsonb, $8::jsonb, $9::int, $10::int, $11::jsonb, $12::text, $13::text, $14::timestamptz, $14::timestamptz, $15::int, $16::jsonb, $17::text`;

const params = (j: JobRecord, now: Date) => [
  j.source,
  j.sourceRef,
  j.fleetCode,
  j.pickupAt,
  j.endsAt,
  j.durationMin,
  JSON.stringify(j.pickup),
  JSON.stringify(j.dropoff),
  j.adults,
  j.luggage,
  JSON.stringify(j.passenger),
  j.flightNumber,
  j.meetingInstructions,
  now,
  j.children,
  JSON.stringify(j.seats),
  j.notes,
];

/** The job as part of a one-statement write; with `after`, only if that CTE produced a row (e.g. the booking). */
export function jobWrite(j: JobRecord, now: Date, after?: string): Write {
  return {
    ctes: [`job_in as (insert into jobs (${COLUMNS}) select ${VALUES}${after ? ` from ${after}` : ''} returning job_id)`],
    params: params(j, now),
  };
}

const insert = sql(`insert into jobs (${COLUMNS}) values (${VALUES}) returning job_id::text as "jobId"`);

export async function insertJob(db: Sql, j: JobRecord, now: Date): Promise<string> {
  return (await db.query<{ jobId: string }>(insert, params(j, now)))[0].jobId;
}

const SELECT = `
  select j.job_id::text as "jobId", j.source, j.source_ref as "sourceRef", j.status, j.fleet_code as "fleetCode", j.held_code as "heldCode",
         j.pickup_at as "pickupAt", j.ends_at as "endsAt", j.dropoff_at as "dropoffAt", j.duration_min as "durationMin", j.pickup, j.dropoff, j.adults, j.children, j.luggage,
         j.extras as seats, j.passenger, j.flight_number as "flightNumber", j.notes, j.meeting_instructions as "meetingInstructions", j.version, j.assigned_by as "assignedBy",
         case when j.released_reason is null then null else json_build_object('reason', j.released_reason, 'at', j.released_at) end as released,
         case when d.driver_id is null then null else json_build_object('driverId', d.driver_id, 'name', d.name, 'phone', d.phone) end as driver,
         case when v.vehicle_id is null then null else json_build_object('vehicleId', v.vehicle_id, 'fleetCode', v.fleet_code, 'plate', v.plate,
           'brand', v.brand, 'model', v.model, 'colour', v.colour, 'equipment', v.equipment) end as vehicle,
         case when j.last_located_at is null then null else json_build_object('lat', j.last_lat, 'lon', j.last_lon, 'at', j.last_located_at) end as "lastLocation",
         j.ride_state as ride, j.en_route_at as "enRouteAt", j.arrived_at as "arrivedAt", j.on_board_at as "onBoardAt", j.completed_at as "completedAt",
         j.no_show_at as "noShowAt", j.flight, j.pickup_shift_min as "pickupShiftMin", j.flight_alert as "flightAlert"
  from jobs j left join drivers d on d.driver_id = j.driver_id left join vehicles v on v.vehicle_id = j.vehicle_id`;

const fromRow = (r: JobRow): JobRow => ({
  ...r,
  lastLocation: r.lastLocation ? { ...r.lastLocation, at: new Date(r.lastLocation.at) } : null,
  released: r.released ? { ...r.released, at: new Date(r.released.at) } : null,
});

const byId = sql(`${SELECT} where j.job_id = $1`);
const byIdLocked = sql(`${SELECT} where j.job_id = $1 for update of j`);
const bySource = sql(`${SELECT} where j.source = $1 and j.source_ref = $2`);
const bySourceLocked = sql(`${SELECT} where j.source = $1 and j.source_ref = $2 for update of j`);

export async function findJob(db: Sql, jobId: string, lock = false): Promise<JobRow | undefined> {
  const r = (await db.query<JobRow>(lock ? byIdLocked : byId, [jobId]))[0];
  return r ? fromRow(r) : undefined;
}

export async function findJobBySource(db: Sql, source: JobSource, sourceRef: string, lock = false): Promise<JobRow | undefined> {
  const r = (await db.query<JobRow>(lock ? bySourceLocked : bySource, [source, sourceRef]))[0];
  return r ? fromRow(r) : undefined;
}

export interface JobQuery {
  from?: Date;
  to?: Date;
  status?: JobStatus;
  source?: JobSource;
  sourceRef?: string;
  driverId?: string;
  limit: number;
}

/** By pickup time. */
export async function listJobs(db: Sql, q: JobQuery): Promise<JobRow[]> {
  const where: string[] = [];
  const values: unknown[] = [];
  const add = (clause: string, value: unknown) => {
    values.push(value);
    where.push(clause.replace('?', `$${values.length}`));
  };
  if (q.from) add('j.pickup_at >= ?', q.from);
  if (q.to) add('j.pickup_at < ?', q.to);
  if (q.status) add('j.status = ?', q.status);
  if (q.source) add('j.source = ?', q.source);
  if (q.sourceRef) add('j.source_ref = ?', q.sourceRef);
  if (q.driverId) add('j.driver_id = ?', q.driverId);
  values.push(q.limit);
  const text = `${SELECT}${where.length ? ` where ${where.join(' and ')}` : ''} order by j.pickup_at, j.job_id limit $${values.length}`;
  return (await db.query<JobRow>(sql(text), values)).map(fromRow);
}

const setStatusStmt = sql(`
  update jobs set status = $2, updated_at = $3, version = version + 1,
    completed_at = case when $2 = 'completed' then $3 else completed_at end,
    no_show_at = case when $2 = 'no_show' then $3 else no_show_at end,
    no_show_note = coalesce($4, no_show_note)
  where job_id = $1`);

export async function setJobStatus(tx: Sql, jobId: string, status: JobStatus, at: Date, note: string | null = null): Promise<void> {
  await tx.query(setStatusStmt, [jobId, status, at, note]);
}

const cancelStmt = sql(
  `update jobs set status = 'cancelled', updated_at = $3, version = version + 1 where source = $1 and source_ref = $2 and status in ('confirmed', 'driver_assigned') returning job_id::text as "jobId"`,
);

/** Cancels the job of a booking or an order: its driver and vehicle are free again. */
export async function cancelJob(db: Sql, source: JobSource, sourceRef: string, now: Date): Promise<void> {
  await db.query(cancelStmt, [source, sourceRef, now]);
}

/** The same flight: what the provider said of it still holds. */
const SAME_FLIGHT = `flight_number is not distinct from $12::text`;
/** A flight's move of the window still applies when the flight and the booked pickup are unchanged. */
const KEPT_SHIFT = `(case when ${SAME_FLIGHT} and pickup_at - make_interval(mins => pickup_shift_min) = $4::timestamptz then pickup_shift_min else 0 end)`;
const rescheduleStmt = sql(`
  update jobs set fleet_code = $3, held_code = case when vehicle_id is null then $3 else held_code end,
    pickup_at = $4::timestamptz + make_interval(mins => ${KEPT_SHIFT}), ends_at = $5::timestamptz + make_interval(mins => ${KEPT_SHIFT}),
    pickup_shift_min = ${KEPT_SHIFT}, flight = case when ${SAME_FLIGHT} then flight end, flight_alert = case when ${SAME_FLIGHT} then flight_alert end,
    flight_check_at = null, duration_min = $6, pickup = $7::jsonb, dropoff = $8::jsonb, adults = $9, luggage = $10, passenger = $11::jsonb, flight_number = $12,
    meeting_instructions = $13, updated_at = $14, children = $15, extras = $16::jsonb, notes = $17, version = version + 1
  where source = $1 and source_ref = $2`);

const releaseStmt = sql(`
  update jobs set status = 'confirmed', driver_id = null, vehicle_id = null, held_code = fleet_code, released_reason = $4, released_at = $3,
    ride_state = null, en_route_at = null, arrived_at = null, updated_at = $3, version = version + 1
  where source = $1 and source_ref = $2 and status = 'driver_assigned'`);

/**
 * Applies changed details to the job, in a savepoint: 'overlap' when its driver or vehicle holds another job that
 * the new window overlaps (the database's exclusion constraints), and then nothing of it is applied.
 */
export async function rescheduleJob(tx: Tx, j: JobRecord, now: Date): Promise<'done' | 'overlap'> {
  try {
    await tx.savepoint((sp) => sp.query(rescheduleStmt, params(j, now)));
    return 'done';
  } catch (e) {
    if (!isExclusionViolation(e)) throw e;
    return 'overlap';
  }
}

/** Releases the job's driver and vehicle (back to `confirmed`, for an operator to assign again), saying why. */
export async function releaseJob(tx: Sql, source: JobSource, sourceRef: string, reason: string, now: Date): Promise<void> {
  await tx.query(releaseStmt, [source, sourceRef, now, reason]);
}
