import type { Tx } from '../../data/database';
import type { BookingRow } from '../../data/repositories/bookings-repository';
import { AppError } from '../../shared/errors';
import { storedFleetCode, vehicleOf } from '../kernel/fleet';
import type { FollowJob } from '../kernel/follow-job';
import { assertChangeable, assertVersion, commitChange, lockForChange, type BookingChangeRequest } from './booking-changes';
import { bookingJob, flightDesignator } from './booking-decision';
import { keyOf, underKey, type Answer, type KeyedSession, type Refused, type Replayed } from './idempotency';

/** What a partner may change free of charge (PATCH /bookings/{booking_ref}). */
export interface Amendment {
  passenger?: Partial<BookingRow['passenger']>;
  flight_number?: string;
  luggage?: number;
  notes?: string | null;
}

export interface AmendBooking extends BookingChangeRequest {
  amendment: Amendment;
}

export type Amended = { kind: 'done'; value: BookingRow } | Refused;

/**
 * Amends a booking's details that do not change its price: the passenger, the flight, the luggage (within the
 * booked vehicle) and notes for the driver. Under the booking's row lock:
 *
 * 1. check: the booking can still change (not cancelled or finished, more than 2 hours before pickup), and the
 *    caller has seen its current version (If-Match);
 * 2. decide: the booking as amended (its meeting instructions written again for a new name or flight); luggage beyond
 *    the booked vehicle is refused, with the way to a larger one (a change quote);
 * 3. write: the booking at version + 1, its job following through `followJob` (an assigned vehicle too small is
 *    released), and
 *    `booking.amended` with the fields that changed.
 *
 * Under an Idempotency-Key, the same request again answers as the first did.
 */
export async function amendBooking(
  tx: Tx,
  req: AmendBooking,
  s: KeyedSession & { answer(o: Amended): Answer },
  followJob: FollowJob,
): Promise<Amended | Replayed> {
  const key = keyOf(req.scope, 'amendBooking', req.idempotencyKey);
  const request = { booking_ref: req.bookingRef.toUpperCase(), ...req.amendment };
  return underKey(tx, key, request, s, async (sp) => {
    const row = await lockForChange(sp, req);
    assertChangeable(row, s.now);
    assertVersion(row, req.expectedVersion);

    const next = amended(row, req.amendment);
    const { booking } = await commitChange(sp, row, next, (b, job) => bookingJob(b, job.durationMin), followJob, s.now);
    return booking;
  });
}

function amended(row: BookingRow, a: Amendment): BookingRow {
  const vehicle = vehicleOf(storedFleetCode(row.vehicle));
  if (a.luggage !== undefined && a.luggage > vehicle.max_luggage) {
    throw new AppError(
      'booking_conflict',
      `${a.luggage} bags do not fit the booked ${row.vehicleName} (${vehicle.max_luggage} bags); ask for a change quote (POST /bookings/${row.bookingRef}/change_quotes) with the new luggage for a larger vehicle.`,
      { reason: 'vehicle_too_small', booking_ref: row.bookingRef, luggage: a.luggage, max_luggage: vehicle.max_luggage },
    );
  }
  return {
    ...row,
    passenger: a.passenger && row.passenger ? { ...row.passenger, ...a.passenger } : row.passenger,
    flightNumber: a.flight_number !== undefined ? flightDesignator(a.flight_number) : row.flightNumber,
    luggage: a.luggage ?? row.luggage,
    notes: a.notes !== undefined ? a.notes?.trim() || null : row.notes,
  };
}
