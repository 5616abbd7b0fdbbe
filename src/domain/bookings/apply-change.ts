import type { Tx } from '../../data/database';
import type { BookingRow } from '../../data/repositories/bookings-repository';
import { findChangeOffer, type ChangeOffer } from '../../data/repositories/booking-changes-repository';
import { hasRoom } from '../../data/repositories/fleet-repository';
import { findJobBySource } from '../../data/repositories/jobs-repository';
import { markChangeQuoteApplied } from '../../data/repositories/quotes-repository';
import { AppError, notFound } from '../../shared/errors';
import type { FollowJob } from '../kernel/follow-job';
import { jobEndsAt } from '../kernel/job-window';
import { seatCounts } from '../kernel/seats';
import { assertChangeable, assertVersion, commitChange, lockForChange, type BookingChangeRequest } from './booking-changes';
import { bookedPlace, bookingJob } from './booking-decision';
import { keyOf, underKey, type Answer, type KeyedSession, type Refused, type Replayed } from './idempotency';

export interface ApplyChange extends BookingChangeRequest {
  changeQuoteId: string;
  offerId: string;
}

export type Changed = { kind: 'done'; value: BookingRow } | Refused;

/**
 * Applies an offer of a change quote to its booking (POST /bookings/{booking_ref}/changes). Under the booking's row
 * lock:
 *
 * 1. check: the booking already holds this offer → answered as it is; else it can still change, the caller has seen
 *    its current version (If-Match), the offer is one of this booking's change quotes, not applied already, not
 *    expired;
 * 2. decide: the booking as the offer sells it — time, places, party, seats, vehicle, price and the terms the offer's
 *    cancellation policy showed; in production, the vehicle class must have room for the new window (the booking's
 *    own job left out), under the class's lock;
 * 3. write: the change quote marked applied (once), the booking at version + 1 with its job following through
 *    `followJob` (an assignment that no longer fits is released), and `booking.amended` with the fields that changed.
 *
 * Under an Idempotency-Key, the same request again answers as the first did.
 */
export async function applyChange(
  tx: Tx,
  req: ApplyChange,
  s: KeyedSession & { answer(o: Changed): Answer },
  followJob: FollowJob,
): Promise<Changed | Replayed> {
  const key = keyOf(req.scope, 'applyBookingChange', req.idempotencyKey);
  const request = { booking_ref: req.bookingRef.toUpperCase(), change_quote_id: req.changeQuoteId, offer_id: req.offerId };
  return underKey(tx, key, request, s, async (sp) => {
    const row = await lockForChange(sp, req);
    if (row.offerId === req.offerId) return row;
    assertChangeable(row, s.now);
    assertVersion(row, req.expectedVersion);
    const offer = await findChangeOffer(sp, req.scope, { bookingRef: row.bookingRef, changeQuoteId: req.changeQuoteId, offerId: req.offerId });
    if (!offer) throw notFound(`No offer ${req.offerId} in change quote ${req.changeQuoteId} of booking ${row.bookingRef}.`, { ...request });
    if (offer.appliedAt) throw changeQuoteUsed(row, req.changeQuoteId);
    if (offer.expiresAt.getTime() <= s.now.getTime()) throw expired(offer);

    const next = changed(row, offer);
    const job = req.scope.env === 'production' ? await findJobBySource(sp, 'partner_booking', row.bookingRef) : undefined;
    const endsAt = jobEndsAt(next.pickupAt, offer.durationMin, next.journeyType);
    if (job && !(await hasRoom(sp, next.vehicle, next.pickupAt, endsAt, seatCounts(next.extras), job.jobId))) throw fleetFull(next);
    if (!(await markChangeQuoteApplied(sp, req.changeQuoteId, s.now))) throw changeQuoteUsed(row, req.changeQuoteId);
    return (await commitChange(sp, row, next, (b) => bookingJob(b, offer.durationMin), followJob, s.now)).booking;
  });
}

/** The booking as the change's offer sells it. */
function changed(row: BookingRow, offer: ChangeOffer): BookingRow {
  if (offer.journeyType === 'arrival' && !row.flightNumber) {
    throw new AppError(
      'booking_conflict',
      `The change makes ${row.bookingRef} an airport pickup, which needs its flight number: send it first (PATCH /bookings/${row.bookingRef} with flight_number).`,
      { reason: 'flight_number_required', booking_ref: row.bookingRef },
    );
  }
  return {
    ...row,
    quoteId: offer.quoteId,
    offerId: offer.offerId,
    vehicle: offer.vehicle,
    vehicleCode: offer.vehicleCode,
    vehicleName: offer.vehicleName,
    amountMinor: offer.amountMinor,
    pickup: bookedPlace(offer.pickup, offer.request.pickup),
    dropoff: bookedPlace(offer.dropoff, offer.request.dropoff),
    pickupDatetime: offer.request.pickup_datetime,
    pickupAt: offer.pickupAt,
    journeyType: offer.journeyType,
    adults: offer.passengers.adults,
    children: offer.passengers.children ?? 0,
    luggage: offer.passengers.luggage ?? 0,
    extras: offer.extras,
    terms: offer.terms,
  };
}

const changeQuoteUsed = (row: BookingRow, changeQuoteId: string) =>
  new AppError('booking_conflict', `Change quote ${changeQuoteId} was applied to ${row.bookingRef} already; ask for a new one to change it again.`, {
    reason: 'change_quote_used',
    booking_ref: row.bookingRef,
    change_quote_id: changeQuoteId,
  });

const expired = (offer: ChangeOffer) =>
  new AppError('offer_expired', `Offer ${offer.offerId} expired at ${offer.expiresAt.toISOString()}; ask for a new change quote.`, {
    offer_id: offer.offerId,
    expired_at: offer.expiresAt.toISOString(),
  });

const fleetFull = (b: BookingRow) =>
  new AppError(
    'booking_conflict',
    `Every ${b.vehicleName.replace(/ or similar$/, '')} of our fleet is taken for the changed journey's time since the change quote; ask for a new one.`,
    { reason: 'fleet_full', offer_id: b.offerId, vehicle_code: b.vehicleCode },
  );
