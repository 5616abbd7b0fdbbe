import type { Tx } from '../../data/database';
import { combine, type Write } from '../../data/write';
import { bookingFacts, bookingWrite, insertBooking, type BookedPlace, type BookingFacts, type BookingRow, type Place } from '../../data/repositories/bookings-repository';
import { hasRoom } from '../../data/repositories/fleet-repository';
import { jobEndsAt } from '../fleet/job-window';
import { jobWrite, insertJob, type JobRecord } from '../../data/repositories/jobs-repository';
import { AppError, invalidRequest, notFound } from '../../shared/errors';
import { bookingRef as newBookingRef } from '../../shared/ids';
import { meetingInstructions } from './meeting-instructions';
import { bookingEventWrite, recordBookingEvent } from '../webhooks/events';

export interface BookingInput {
  quote_id: string;
  offer_id: string;
  partner_reference: string;
  passenger: { first_name: string; last_name: string; email?: string; phone?: string };
  passengers: { adults: number; luggage?: number };
  flight_number?: string;
}

export interface Scope {
  partnerId: string;
  env: 'sandbox' | 'production';
}

export interface BookingCtx {
  now: Date;
  /** The partner's quoting is paused (by an operator, or in sandbox by its own test helper): nothing is booked either. */
  paused: boolean;
  requestId: string;
  emergencyPhone: string;
}

export type BookingDecision =
  /** The partner_reference was used before: that booking (200). */
  | { kind: 'existing'; booking: BookingRow }
  /** Not bookable: 404, 400, 410 or 409. */
  | { kind: 'refused'; error: AppError }
  /** A new confirmed booking at exactly the offer's price, and (production) its job. */
  | { kind: 'book'; booking: BookingRow; job: JobRecord | null };

const consumed = (offerId: string) =>
  new AppError('booking_conflict', 409, `Offer ${offerId} is already booked.`, { reason: 'offer_consumed', offer_id: offerId });

/**
 * The booking rules, in order of precedence: a partner_reference already used → that booking; the partner paused
 * → 409 (an offer quoted before the pause is not booked after it); unknown offer or
 * quote, or an offer of another quote → 404; an arrival without flight_number → 400; an expired offer → 410; an
 * offer already booked → 409; a party larger than the vehicle → 409; otherwise a confirmed booking at exactly the
 * stored offer price. The database has the last word on "already booked" (unique offer_id), so the rule holds
 * across instances whatever these facts said.
 */
export function decideBooking(facts: Omit<BookingFacts, 'stored'>, scope: Scope, input: BookingInput, ctx: BookingCtx): BookingDecision {
  if (facts.byReference) return { kind: 'existing', booking: facts.byReference };
  if (ctx.paused) {
    return {
      kind: 'refused',
      error: new AppError('booking_conflict', 409, 'Booking is paused on this account, as quoting is; contact the service operator.', {
        reason: 'partner_paused',
        offer_id: input.offer_id,
      }),
    };
  }
  const offer = facts.offer;
  if (!offer || offer.quoteId !== input.quote_id) {
    return {
      kind: 'refused',
      error: notFound(`No offer ${input.offer_id} in quote ${input.quote_id} on this account in ${scope.env}.`, { offer_id: input.offer_id, quote_id: input.quote_id }),
    };
  }
  if (offer.journeyType === 'arrival' && !input.flight_number) {
    return {
      kind: 'refused',
      error: invalidRequest('The request is invalid: flight_number is required for an airport pickup.', [
        { field: 'flight_number', message: 'is required when the pickup is an airport' },
      ]),
    };
  }
  if (offer.expiresAt.getTime() <= ctx.now.getTime()) {
    return {
      kind: 'refused',
      error: new AppError('offer_expired', 410, `Offer ${input.offer_id} expired at ${offer.expiresAt.toISOString()}; request a new quote.`, {
        offer_id: input.offer_id,
        expired_at: offer.expiresAt.toISOString(),
      }),
    };
  }
  if (facts.consumed) return { kind: 'refused', error: consumed(input.offer_id) };
  const luggage = input.passengers.luggage ?? 0;
  if (input.passengers.adults > offer.maxPassengers || luggage > offer.maxLuggage) {
    return {
      kind: 'refused',
      error: new AppError(
        'booking_conflict',
        409,
        `The party (${input.passengers.adults} adults, ${luggage} bags) does not fit the offered ${offer.vehicleName} ` +
          `(${offer.maxPassengers} passengers, ${offer.maxLuggage} bags); quote again for this party.`,
        { reason: 'party_exceeds_vehicle', adults: input.passengers.adults, luggage, max_passengers: offer.maxPassengers, max_luggage: offer.maxLuggage },
      ),
    };
  }

  const request = offer.request;
  const pickup = booked(offer.pickup, request.pickup);
  const dropoff = booked(offer.dropoff, request.dropoff);
  const flightNumber = input.flight_number ? input.flight_number.replace(/\s+/g, '').toUpperCase() : null;
  const booking: BookingRow = {
    bookingRef: newBookingRef(),
    ...scope,
    partnerReference: input.partner_reference,
    quoteId: input.quote_id,
    offerId: input.offer_id,
    status: 'confirmed',
    driver: null,
    vehicle: offer.vehicle,
    vehicleCode: offer.vehicleCode,
    vehicleName: offer.vehicleName,
    amountMinor: offer.amountMinor,
    currency: offer.currency,
    pickup,
    dropoff,
    pickupDatetime: request.pickup_datetime,
    pickupAt: offer.pickupAt,
    journeyType: offer.journeyType,
    adults: input.passengers.adults,
    luggage,
    passenger: input.passenger,
    flightNumber,
    meetingInstructions: meetingInstructions({
      journeyType: offer.journeyType,
      pickupName: pickup.name,
      dropoffName: dropoff.name,
      iata: offer.pickup.iata,
      passengerName: `${input.passenger.first_name} ${input.passenger.last_name}`,
      flightNumber,
      pickupDatetime: request.pickup_datetime,
    }),
    emergencyPhone: ctx.emergencyPhone,
    createdAt: ctx.now,
    cancelledAt: null,
    completedAt: null,
    noShowAt: null,
    eventSeq: 1,
  };
  // Production bookings are jobs on the fleet's schedule; sandbox ones never occupy it.
  const job: JobRecord | null =
    scope.env === 'production'
      ? {
          source: 'partner_booking',
          sourceRef: booking.bookingRef,
          fleetCode: booking.vehicle,
          pickupAt: booking.pickupAt,
          endsAt: jobEndsAt(booking.pickupAt, offer.durationMin, offer.journeyType),
          durationMin: offer.durationMin,
          pickup,
          dropoff,
          adults: booking.adults,
          luggage: booking.luggage,
          passenger: { name: `${input.passenger.first_name} ${input.passenger.last_name}`, phone: input.passenger.phone ?? null },
          flightNumber,
          meetingInstructions: booking.meetingInstructions,
        }
      : null;
  return { kind: 'book', booking, job };
}

/** A place of the booking: the partner's own text (when they gave a name) beside where we located it. */
const booked = (resolved: Place, given: { name?: string }): BookedPlace => ({
  name: given.name?.trim() || resolved.name,
  resolved_name: resolved.name,
  ...(resolved.iata ? { iata: resolved.iata } : {}),
  lat: resolved.lat,
  lon: resolved.lon,
});

const fleetFull = (d: Extract<BookingDecision, { kind: 'book' }>) =>
  new AppError(
    'booking_conflict',
    409,
    `Every ${d.booking.vehicleName.replace(/ or similar$/, '')} of our fleet is taken for this journey's time since the quote; quote again for another vehicle or time.`,
    { reason: 'fleet_full', offer_id: d.booking.offerId, vehicle_code: d.booking.vehicleCode },
  );

/**
 * The booking, its job and its `booking.confirmed` event (with a delivery to each subscribed endpoint) as one
 * guarded write: if the booking cannot be inserted, nothing else is either. With `offerFromMemory`, the offer's
 * expiry is checked again in the statement.
 */
export function bookingWrites(d: Extract<BookingDecision, { kind: 'book' }>, ctx: BookingCtx, offerFromMemory = false): Write {
  const room = d.job ? { fleetCode: d.job.fleetCode, from: d.job.pickupAt, to: d.job.endsAt } : undefined;
  return combine(
    bookingWrite(d.booking, ctx.requestId, { ...(offerFromMemory ? { offerLiveAt: ctx.now } : {}), ...(room ? { room } : {}) }),
    d.job ? jobWrite(d.job, ctx.now, 'booking_in') : undefined,
    bookingEventWrite(d.booking, ctx.now, 'booking_in'),
  );
}

/** The facts a decision reads, in one round trip. */
export const readBookingFacts = bookingFacts;

/**
 * The careful path, in the request's transaction (after an optimistic write lost a race): the facts are read
 * again, and the booking is inserted in a savepoint so that a uniqueness it loses to becomes the right answer: the
 * booking already made under this partner_reference, or 409 offer_consumed; a booking_ref collision draws again.
 */
export async function bookInTransaction(tx: Tx, scope: Scope, input: BookingInput, ctx: BookingCtx): Promise<{ created: boolean; booking: BookingRow }> {
  for (let attempt = 0; attempt < 4; attempt += 1) {
    const facts = await bookingFacts(tx, scope, { partnerReference: input.partner_reference, offerId: input.offer_id });
    const d = decideBooking(facts, scope, input, ctx);
    if (d.kind === 'existing') return { created: false, booking: d.booking };
    if (d.kind === 'refused') throw d.error;
    // Production: the class must have a vehicle free for the window (under the class's lock until commit).
    if (d.job && !(await hasRoom(tx, d.job.fleetCode, d.job.pickupAt, d.job.endsAt))) throw fleetFull(d);
    const outcome = await insertBooking(tx, d.booking, ctx.requestId);
    if (outcome === 'inserted') {
      if (d.job) await insertJob(tx, d.job, ctx.now);
      await recordBookingEvent(tx, d.booking, ctx.now);
      return { created: true, booking: d.booking };
    }
    // Lost to a committed booking (same reference or same offer): the next read sees it and decides. A taken
    // booking_ref simply draws another.
  }
  throw new Error('booking: no outcome after 4 attempts');
}
