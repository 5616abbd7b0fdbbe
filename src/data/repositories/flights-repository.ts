import { sql, type Sql, type Tx } from '../database';
import { isExclusionViolation } from '../errors';
import { bookingColumns, fromRow, type BookingFlight, type BookingRow } from './booking-record';
import type { FlightAlert, JobFlight } from './jobs-repository';

/** An airport arrival whose flight is due a check: its booked pickup is the flight's scheduled landing. */
export interface DueFlight {
  jobId: string;
  flightNumber: string;
  airport: string;
  bookedPickupAt: Date;
}

/**
 * Claims the airport arrivals due a flight check, oldest due first: open jobs with a flight number, from 6 hours
 * before their booked pickup, until the flight has landed or was cancelled (the window's bounds on pickup_at, which
 * a flight moves by at most a day, keep the scan to jobs_flight_poll_index's range). Each is leased (flight_check_at moved ahead) in
 * the claiming statement, and rows another poller holds are skipped, so instances never ask twice at once.
 */
const claimStmt = sql(`
  update jobs j set flight_check_at = $1::timestamptz + $3::int * interval '1 millisecond'
  from (
    select job_id from jobs
    where flight_number is not null and (pickup ->> 'iata') is not null and status in ('confirmed', 'driver_assigned')
      and coalesce(ride_state, '') <> 'on_board'
      and pickup_at - make_interval(mins => pickup_shift_min) <= $1::timestamptz + interval '6 hours'
      and pickup_at > $1::timestamptz - interval '6 hours' and pickup_at <= $1::timestamptz + interval '30 hours'
      and coalesce(flight ->> 'status', '') not in ('landed', 'cancelled')
      and (flight_check_at is null or flight_check_at <= $1::timestamptz)
    order by coalesce(flight_check_at, pickup_at)
    limit $2
    for update skip locked
  ) due
  where j.job_id = due.job_id
  returning j.job_id::text as "jobId", j.flight_number as "flightNumber", j.pickup ->> 'iata' as airport,
    j.pickup_at - make_interval(mins => j.pickup_shift_min) as "bookedPickupAt"`);

export async function claimDueFlights(db: Sql, now: Date, limit: number, leaseMs: number): Promise<DueFlight[]> {
  return db.query<DueFlight>(claimStmt, [now, limit, leaseMs]);
}

const checkedStmt = sql(`update jobs set flight = $2::jsonb, flight_check_at = $3, flight_failures = 0 where job_id = $1`);

/** What the provider said, and when to ask next (null: never again). */
export async function recordFlightCheck(tx: Sql, jobId: string, flight: JobFlight, nextCheckAt: Date | null): Promise<void> {
  await tx.query(checkedStmt, [jobId, JSON.stringify(flight), nextCheckAt]);
}

const failedStmt = sql(`
  update jobs set flight_failures = flight_failures + 1,
    flight_check_at = $2::timestamptz + least($3::int, $4::int * power(2, flight_failures)::int) * interval '1 millisecond'
  where job_id = $1`);

/** The provider could not answer: ask again later, backing off (base × 2^failures, at most `maxMs`). */
export async function recordFlightFailure(db: Sql, jobId: string, now: Date, baseMs: number, maxMs: number): Promise<void> {
  await db.query(failedStmt, [jobId, now, maxMs, baseMs]);
}

const moveStmt = sql(`
  update jobs set pickup_at = pickup_at + make_interval(mins => $2 - pickup_shift_min), ends_at = ends_at + make_interval(mins => $2 - pickup_shift_min),
    pickup_shift_min = $2, updated_at = $3, version = version + 1
  where job_id = $1`);

/**
 * Moves the job's window to `shiftMin` minutes from the booked pickup, in a savepoint: 'overlap' when its driver or
 * vehicle holds another job the moved window overlaps (the exclusion constraints), and then nothing is moved.
 */
export async function moveWindow(tx: Tx, jobId: string, shiftMin: number, now: Date): Promise<'done' | 'overlap'> {
  try {
    await tx.savepoint((sp) => sp.query(moveStmt, [jobId, shiftMin, now]));
    return 'done';
  } catch (e) {
    if (!isExclusionViolation(e)) throw e;
    return 'overlap';
  }
}

const alertStmt = sql(`update jobs set flight_alert = $2 where job_id = $1`);

export async function setFlightAlert(tx: Sql, jobId: string, alert: FlightAlert | null): Promise<void> {
  await tx.query(alertStmt, [jobId, alert]);
}

const bookingFlightStmt = sql(`
  update bookings set flight = $2::jsonb, pickup_estimated_at = $3, event_seq = event_seq + 1,
    status = case when $4 and status = 'driver_assigned' then 'confirmed' else status end, driver = case when $4 then null else driver end
  where booking_ref = $1
  returning ${bookingColumns('bookings')}`);

/**
 * The booking shows the flight and the moved pickup (its event's sequence counted); when the move released the job's
 * driver, the booking is `confirmed` again without one, until we assign another.
 */
export async function setBookingFlight(
  tx: Sql,
  bookingRef: string,
  flight: BookingFlight,
  pickupEstimatedAt: Date | null,
  released: boolean,
): Promise<BookingRow> {
  return fromRow((await tx.query<BookingRow>(bookingFlightStmt, [bookingRef, JSON.stringify(flight), pickupEstimatedAt, released]))[0])!;
}

export interface SandboxFlight {
  flightNumber: string;
  date: string;
  delayMinutes: number;
  status: 'scheduled' | 'delayed' | 'landed' | 'diverted' | 'cancelled';
}

const sandboxUpsert = sql(`
  insert into sandbox_flights (partner_id, flight_number, date, delay_minutes, status, updated_at) values ($1, $2, $3::date, $4, $5, $6)
  on conflict (partner_id, flight_number, date) do update set delay_minutes = excluded.delay_minutes, status = excluded.status, updated_at = excluded.updated_at`);

export async function saveSandboxFlight(tx: Sql, partnerId: string, f: SandboxFlight, now: Date): Promise<void> {
  await tx.query(sandboxUpsert, [partnerId, f.flightNumber, f.date, f.delayMinutes, f.status, now]);
}

const sandboxBookingsStmt = sql(`
  select booking_ref as "bookingRef" from bookings
  where partner_id = $1 and env = 'sandbox' and flight_number = $2 and (pickup ->> 'iata') is not null
    and (pickup_at at time zone 'UTC' + interval '5 hours 30 minutes')::date = $3::date
    and status not in ('completed', 'no_show', 'cancelled')
  order by pickup_at, booking_ref
  for update`);

/** The partner's open sandbox bookings with this flight on this Sri Lanka date, locked. */
export async function sandboxBookingsWithFlight(tx: Sql, partnerId: string, flightNumber: string, date: string): Promise<string[]> {
  return (await tx.query<{ bookingRef: string }>(sandboxBookingsStmt, [partnerId, flightNumber, date])).map((r) => r.bookingRef);
}
