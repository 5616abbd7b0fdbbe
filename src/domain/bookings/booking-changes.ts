import type { Tx } from '../../data/database';
import { saveBookingChange, type BookingRow } from '../../data/repositories/bookings-repository';
import type { JobRecord, JobRow } from '../../data/repositories/jobs-repository';
import { AppError } from '../../shared/errors';
import type { FollowJob } from '../kernel/follow-job';
import { recordAmendment } from './booking-events';
import { bookingMeeting, offerConsumed, type Scope } from './booking-decision';
import { requireBooking } from './get-booking';

/**
 * What every change of a booking shares (an amendment, PATCH; a priced change, POST …/changes): which bookings can
 * change and until when, the precondition (If-Match), and how a change is written — the booking at version + 1, its
 * job following it, and `booking.amended` naming what changed, all in the request's transaction.
 */

/** What every change request of a booking names: whose booking, the version the caller read, its key. */
export interface BookingChangeRequest {
  scope: Scope;
  bookingRef: string;
  /** The version the caller last read (If-Match): undefined when absent. */
  expectedVersion: number | undefined;
  idempotencyKey?: string;
}

/**
 * The booking to change, locked until the request commits (concurrent changes are judged one after the other). A
 * request without If-Match is refused first: it could not be judged whatever the booking's state.
 */
export async function lockForChange(tx: Tx, req: BookingChangeRequest): Promise<BookingRow> {
  const row = await requireBooking(tx, req.scope, req.bookingRef, true);
  if (req.expectedVersion === undefined) assertVersion(row, undefined);
  return row;
}

/** Changes close this long before pickup: the driver is on the way. */
export const CHANGE_CUTOFF_MS = 2 * 60 * 60 * 1000;

/** A cancelled, completed or no-show booking is not changed; nor one whose pickup is less than 2 hours away. */
export function assertChangeable(row: BookingRow, now: Date): void {
  if (row.status === 'cancelled' || row.status === 'completed' || row.status === 'no_show') {
    throw new AppError('booking_conflict', `Booking ${row.bookingRef} is ${row.status.replace('_', ' ')} and can no longer be changed.`, {
      reason: 'not_amendable',
      booking_ref: row.bookingRef,
      status: row.status,
    });
  }
  if (row.pickupAt.getTime() - now.getTime() < CHANGE_CUTOFF_MS) {
    throw new AppError(
      'booking_conflict',
      `Booking ${row.bookingRef} can no longer be changed: changes close 2 hours before pickup; call the emergency number for anything urgent.`,
      { reason: 'too_late', booking_ref: row.bookingRef, pickup_datetime: row.pickupDatetime, emergency_phone: row.emergencyPhone },
    );
  }
}

/**
 * The version the caller last read (If-Match): missing is precondition_required, another than the booking's is
 * precondition_failed. `expected` is undefined when the header was absent, NaN when it names no version.
 */
export function assertVersion(row: BookingRow, expected: number | undefined): void {
  if (expected === undefined) {
    throw new AppError('precondition_required', `Send If-Match with the booking's ETag (GET /bookings/${row.bookingRef} answers it): "${row.version}".`, {
      booking_ref: row.bookingRef,
      current_version: row.version,
    });
  }
  if (expected !== row.version) {
    throw new AppError(
      'precondition_failed',
      `Booking ${row.bookingRef} is at version ${row.version}${Number.isInteger(expected) ? `, not ${expected}` : ''}: read it again, then send If-Match: "${row.version}".`,
      { booking_ref: row.bookingRef, current_version: row.version },
    );
  }
}

/** The fields of the booking (as partners read them) that differ between two versions of it, in a fixed order. */
export function changedFields(before: BookingRow, after: BookingRow): string[] {
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  const fields: Array<[string, (b: BookingRow) => unknown]> = [
    ['passenger', (b) => b.passenger],
    ['flight_number', (b) => b.flightNumber],
    ['luggage', (b) => b.luggage],
    ['notes', (b) => b.notes],
    ['pickup_datetime', (b) => b.pickupDatetime],
    ['pickup', (b) => b.pickup],
    ['dropoff', (b) => b.dropoff],
    ['passengers', (b) => [b.adults, b.children]],
    ['extras', (b) => b.extras],
    ['vehicle_code', (b) => b.vehicleCode],
    ['price', (b) => b.amountMinor],
    ['driver', (b) => b.driver],
  ];
  return fields.filter(([, read]) => !same(read(before), read(after))).map(([name]) => name);
}

/**
 * Writes a change of a booking locked by its reader: its meeting instructions are written again for it, its job
 * follows (through the fleet's `followJob`; `job` makes the job's new record from the changed booking and the job as
 * it is), a driver the change releases leaves the booking too (it is `confirmed` again, without a driver, until we
 * assign one), the booking is saved at version + 1, and `booking.amended` names what changed. A change that changes
 * nothing writes nothing.
 */
export async function commitChange(
  tx: Tx,
  before: BookingRow,
  changed: BookingRow,
  job: (booking: BookingRow, current: JobRow) => JobRecord,
  followJob: FollowJob,
  now: Date,
): Promise<{ booking: BookingRow; changes: string[] }> {
  if (!changedFields(before, changed).length) return { booking: before, changes: [] };
  const after: BookingRow = { ...changed, meetingInstructions: bookingMeeting(changed) };
  const released = await followJob(tx, { source: 'partner_booking', sourceRef: before.bookingRef }, (current) => job(after, current), now);
  const next: BookingRow = {
    ...after,
    ...(released && after.status === 'driver_assigned' ? { status: 'confirmed', driver: null } : {}),
    version: before.version + 1,
    eventSeq: before.eventSeq + 1,
  };
  const saved = await saveBookingChange(tx, next);
  if (saved === 'offer_taken') throw offerConsumed(after.offerId);
  const changes = changedFields(before, saved);
  await recordAmendment(tx, saved, changes, now);
  return { booking: saved, changes };
}
