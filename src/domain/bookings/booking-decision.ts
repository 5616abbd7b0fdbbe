import type { BookedPlace, BookingFacts, BookingRow, Place } from '../../data/repositories/bookings-repository';
import type { JobRecord } from '../../data/repositories/jobs-repository';
import { AppError, invalidRequest, notFound } from '../../shared/errors';
import { bookingRef as newBookingRef } from '../../shared/ids';
import { jobEndsAt } from '../fleet/job-window';
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

/** What a decision knows of the moment and the account besides the facts it read. */
export interface DecisionContext {
  now: Date;
  /** The partner's quoting is paused (by an operator, or in sandbox by its own test helper): nothing is booked either. */
  paused: boolean;
  emergencyPhone: string;
}

export type BookingDecision =
  /** The partner_reference was used before: that booking. */
  | { kind: 'existing'; booking: BookingRow }
  /** Not bookable: not_found, invalid_request, offer_expired or booking_conflict. */
  | { kind: 'refused'; error: AppError }
  /** A new confirmed booking at exactly the offer's price, and (production) its job. */
  | { kind: 'book'; booking: BookingRow; job: JobRecord | null };

export const offerConsumed = (offerId: string) =>
  new AppError('booking_conflict', `Offer ${offerId} is already booked.`, { reason: 'offer_consumed', offer_id: offerId });

/**
 * The booking rules, in order of precedence: a partner_reference already used → that booking; the partner paused
 * → booking_conflict (an offer quoted before the pause is not booked after it); unknown offer or quote, or an offer
 * of another quote → not_found; an arrival without flight_number → invalid_request; an expired offer →
 * offer_expired; an offer already booked → booking_conflict; a party larger than the vehicle → booking_conflict;
 * otherwise a confirmed booking at exactly the stored offer price. The database has the last word on "already booked" (unique offer_id), so the rule holds
 * across instances whatever these facts said.
 */
export function decideBooking(facts: Omit<BookingFacts, 'stored'>, scope: Scope, input: BookingInput, ctx: DecisionContext): BookingDecision {
  if (facts.byReference) return { kind: 'existing', booking: facts.byReference };
  if (ctx.paused) {
    return {
      kind: 'refused',
      error: new AppError('booking_conflict', 'Booking is paused on this account, as quoting is; contact the service operator.', {
        reason: 'partner_paused',
        offer_id: input.offer_id,
      }),
    };
  }
  const offer = facts.offer;
  if (!offer || offer.quoteId !== input.quote_id) {
    return {
      kind: 'refused',
      error: notFound(`No offer ${input.offer_id} in quote ${input.quote_id} on this account in ${scope.env}.`, {
        offer_id: input.offer_id,
        quote_id: input.quote_id,
      }),
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
      error: new AppError('offer_expired', `Offer ${input.offer_id} expired at ${offer.expiresAt.toISOString()}; request a new quote.`, {
        offer_id: input.offer_id,
        expired_at: offer.expiresAt.toISOString(),
      }),
    };
  }
  if (facts.consumed) return { kind: 'refused', error: offerConsumed(input.offer_id) };
  const luggage = input.passengers.luggage ?? 0;
  if (input.passengers.adults > offer.maxPassengers || luggage > offer.maxLuggage) {
    return {
      kind: 'refused',
      error: new AppError(
        'booking_conflict',
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
