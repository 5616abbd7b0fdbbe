import type { Tx } from '../../data/database';
import { combine, type Write } from '../../data/write';
import { bookingFacts, bookingWrite, insertBooking, type BookingFacts, type BookingRow } from '../../data/repositories/bookings-repository';
import { jobWrite, insertJob, type JobRecord } from '../../data/repositories/jobs-repository';
import { AppError, invalidRequest, notFound } from '../../shared/errors';
import { bookingRef as newBookingRef } from '../../shared/ids';
import { meetingInstructions } from './meeting-instructions';

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
  requestId: string;
  emergencyPhone: string;
}

export type BookingDecision =
  /** The partner_reference was used before: that booking (200). */
  | { kind: 'existing'; booking: BookingRow }
  /** Not bookable: 404, 400, 410 or 409. */
  | { kind: 'refused'; error: AppError }
  /** A new confirmed booking at exactly the offer's price, and its job. */
  | { kind: 'book'; booking: BookingRow; job: JobRecord };

const consumed = (offerId: string) =>
  new AppError('booking_conflict', 409, `Offer ${offerId} is already booked.`, { reason: 'offer_consumed', offer_id: offerId });

/**
 * The booking rules, in order of precedence: a partner_reference already used → that booking; unknown offer or
 * quote, or an offer of another quote → 404; an arrival without flight_number → 400; an expired offer → 410; an
 * offer already booked → 409; a party larger than the vehicle → 409; otherwise a confirmed booking at exactly the
 * stored offer price. The database has the last word on "already booked" (unique offer_id), so the rule holds
 * across instances whatever these facts said.
 */
export function decideBooking(facts: Omit<BookingFacts, 'stored'>, scope: Scope, input: BookingInput, ctx: BookingCtx): BookingDecision {
  if (facts.byReference) return { kind: 'existing', booking: facts.byReference };
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
  const pickup = { ...offer.pickup, name: request.pickup.name?.trim() || offer.pickup.name };
  const flightNumber = input.flight_number ? input.flight_number.replace(/\s+/g, '').toUpperCase() : null;
  const booking: BookingRow = {
    bookingRef: newBookingRef(),
    ...scope,
    partnerReference: input.partner_reference,
    quoteId: input.quote_id,
    offerId: input.offer_id,
    status: 'confirmed',
    vehicle: offer.vehicle,
    vehicleCode: offer.vehicleCode,
    vehicleName: offer.vehicleName,
    amountMinor: offer.amountMinor,
    currency: offer.currency,
    pickup,
    dropoff: offer.dropoff,
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
      iata: offer.pickup.iata,
      passengerName: `${input.passenger.first_name} ${input.passenger.last_name}`,
      flightNumber,
      pickupDatetime: request.pickup_datetime,
    }),
    emergencyPhone: ctx.emergencyPhone,
    createdAt: ctx.now,
    cancelledAt: null,
  };
  const job: JobRecord = {
    source: 'partner_booking',
    sourceRef: booking.bookingRef,
    env: scope.env,
    vehicle: booking.vehicle,
    pickupAt: booking.pickupAt,
    durationMin: offer.durationMin,
    pickup: booking.pickup,
    dropoff: booking.dropoff,
    adults: booking.adults,
    luggage: booking.luggage,
    passenger: booking.passenger,
    flightNumber,
  };
  return { kind: 'book', booking, job };
}

/**
 * The booking and its job as one guarded write: if the booking cannot be inserted, the job is not either. With
 * `offerFromMemory`, the offer's expiry is checked again in the statement.
 */
export function bookingWrites(d: Extract<BookingDecision, { kind: 'book' }>, ctx: BookingCtx, offerFromMemory = false): Write {
  return combine(bookingWrite(d.booking, ctx.requestId, offerFromMemory ? { offerLiveAt: ctx.now } : {}), jobWrite(d.job, ctx.now, 'booking_in'));
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
    const outcome = await insertBooking(tx, d.booking, ctx.requestId);
    if (outcome === 'inserted') {
      await insertJob(tx, d.job, ctx.now);
      return { created: true, booking: d.booking };
    }
    // Lost to a committed booking (same reference or same offer): the next read sees it and decides. A taken
    // booking_ref simply draws another.
  }
  throw new Error('booking: no outcome after 4 attempts');
}
