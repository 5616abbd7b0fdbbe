import type { Tx } from '../../data/database';
import type { BookingFlight } from '../../data/repositories/booking-record';
import * as flights from '../../data/repositories/flights-repository';
import { releaseJob, type FlightAlert, type JobRow } from '../../data/repositories/jobs-repository';
import { hasRoom } from '../../data/repositories/fleet-repository';
import { recordFlightUpdate } from '../bookings/booking-events';
import { requireJob } from '../fleet/jobs';
import type { FlightReport } from './flight-status';

/** A move of the arrival smaller than this changes nothing (the driver's wait absorbs it). */
export const SIGNIFICANT_MOVE_MIN = 10;
/** How often an arrival is checked: every 15 minutes, every 5 in the last hour before its pickup. */
export const CHECK_EVERY_MS = 15 * 60_000;
export const CHECK_LAST_HOUR_EVERY_MS = 5 * 60_000;

const iso = (d: Date | null) => (d ? d.toISOString() : null);
const minutes = (ms: number) => Math.round(ms / 60_000);

/**
 * What the flight-status provider said of an airport arrival's flight, applied to its job (production):
 *
 * 1. The job is locked and still open; the report is kept, with when to ask next (never again once landed or
 *    cancelled).
 * 2. When the estimated arrival moved by 10 minutes or more from where the window stands, the window moves by as
 *    much as the arrival (estimated minus scheduled) from the booked pickup. If the moved window lands on another
 *    job of its driver or vehicle, the driver is released and the job flagged for the dispatcher
 *    (`flight_moved_released`); if it overfills the class, it is flagged (`flight_moved_over_capacity`).
 * 3. A cancelled or diverted flight flags the job (`flight_cancelled`, `flight_diverted`); the window stays.
 * 4. The partner's booking keeps its booked pickup and shows the flight and `pickup_estimated_at`, with
 *    `booking.flight_updated` (for a move, or a cancellation or diversion newly reported); a released driver leaves
 *    it too (`confirmed` again, until we assign another).
 */
export async function followFlight(tx: Tx, jobId: string, report: FlightReport | null, now: Date): Promise<void> {
  const job = await requireJob(tx, jobId, true);
  if (job.status !== 'confirmed' && job.status !== 'driver_assigned') return;
  const booked = new Date(new Date(job.pickupAt).getTime() - job.pickupShiftMin * 60_000);
  const status = report?.status ?? 'unknown';
  const trouble = status === 'cancelled' || status === 'diverted';
  const scheduled = report?.scheduledArrival ?? booked;
  const estimated = trouble ? null : (report?.estimatedArrival ?? null);
  const shift = estimated ? minutes(estimated.getTime() - scheduled.getTime()) : job.pickupShiftMin;
  const moves = Math.abs(shift - job.pickupShiftMin) >= SIGNIFICANT_MOVE_MIN;
  const newlyTroubled = trouble && job.flight?.status !== status;

  const pickupNow = new Date(booked.getTime() + (moves ? shift : job.pickupShiftMin) * 60_000);
  const done = status === 'landed' || status === 'cancelled';
  const every = pickupNow.getTime() - now.getTime() <= 3600_000 ? CHECK_LAST_HOUR_EVERY_MS : CHECK_EVERY_MS;
  const flight = { number: job.flightNumber ?? report?.number ?? '', status, scheduled_arrival: iso(scheduled), estimated_arrival: iso(estimated) };
  await flights.recordFlightCheck(tx, jobId, { ...flight, checked_at: now.toISOString() }, done ? null : new Date(now.getTime() + every));

  let alert: FlightAlert | null = trouble ? (status === 'cancelled' ? 'flight_cancelled' : 'flight_diverted') : null;
  if (moves) alert = (await moveJobWindow(tx, job, shift, now)) ?? alert;
  if (alert || moves) await flights.setFlightAlert(tx, jobId, alert);
  if ((moves || newlyTroubled) && job.source === 'partner_booking') {
    const appliedShift = moves ? shift : job.pickupShiftMin;
    const released = alert === 'flight_moved_released';
    await tellPartner(tx, job.sourceRef, flight, appliedShift ? new Date(booked.getTime() + appliedShift * 60_000) : null, now, released);
  }
}

/** Moves the job's window; what the dispatcher must look at, if anything. */
async function moveJobWindow(tx: Tx, job: JobRow, shift: number, now: Date): Promise<FlightAlert | null> {
  if ((await flights.moveWindow(tx, job.jobId, shift, now)) === 'overlap') {
    await releaseJob(tx, job.source, job.sourceRef, 'flight_moved', now);
    await flights.moveWindow(tx, job.jobId, shift, now);
    return 'flight_moved_released';
  }
  const by = (shift - job.pickupShiftMin) * 60_000;
  const from = new Date(new Date(job.pickupAt).getTime() + by);
  const to = new Date(new Date(job.endsAt).getTime() + by);
  return (await hasRoom(tx, job.heldCode, from, to, job.seats, job.jobId)) ? null : 'flight_moved_over_capacity';
}

/** The partner's booking shows the flight and the moved pickup, and `booking.flight_updated` tells them. */
export async function tellPartner(
  tx: Tx,
  bookingRef: string,
  flight: BookingFlight,
  pickupEstimatedAt: Date | null,
  now: Date,
  released = false,
): Promise<void> {
  const booking = await flights.setBookingFlight(tx, bookingRef, flight, pickupEstimatedAt, released);
  await recordFlightUpdate(tx, booking, now);
}
