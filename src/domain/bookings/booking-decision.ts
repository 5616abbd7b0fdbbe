import { placeText, type BookedPlace, type BookingFacts, type BookingRow, type Place } from '../../data/repositories/bookings-repository';
import type { JobRecord } from '../../data/repositories/jobs-repository';
import { AppError, invalidRequest, notFound } from '../../shared/errors';
import { bookingRef as newBookingRef, trackingToken } from '../../shared/ids';
import { jobEndsAt } from '../kernel/job-window';
import { meetingInstructions } from './meeting-instructions';
import { seatCounts } from '../kernel/seats';

export interface BookingInput {
  quote_id: string;
  offer_id: string;
  partner_reference: string;
  passenger: { first_name: string; last_name: string; email?: string; phone?: string };
  passengers: { adults: number; children?: number; luggage?: number };
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
  /** Where the service is reached (PUBLIC_BASE_URL): the booking's tracking link is under it. */
  publicBaseUrl: string;
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
  const children = input.passengers.children ?? 0;
  const adults = input.passengers.adults;
  if (adults + children > offer.maxPassengers || luggage > offer.maxLuggage) {
    const party = `${adults} adults${children ? `, ${children} children` : ''}, ${luggage} bags`;
    return {
      kind: 'refused',
      error: new AppError(
        'booking_conflict',
        `The party (${party}) does not fit the offered ${offer.vehicleName} (${offer.maxPassengers} passengers, ${offer.maxLuggage} bags); quote again for this party.`,
        { reason: 'party_exceeds_vehicle', adults, children, luggage, max_passengers: offer.maxPassengers, max_luggage: offer.maxLuggage },
      ),
    };
  }
  const seats = offer.extras.reduce((n, e) => n + e.quantity, 0);
  if (seats > children) {
    return {
      kind: 'refused',
      error: invalidRequest(`The request is invalid: the offer has ${seats} children's seats, for more children than passengers.children (${children}).`, [
        { field: 'passengers.children', message: `must be at least the ${seats} seats of the offer` },
      ]),
    };
  }

  const request = offer.request;
  const pickup = bookedPlace(offer.pickup, request.pickup);
  const dropoff = bookedPlace(offer.dropoff, request.dropoff);
  const flightNumber = input.flight_number ? flightDesignator(input.flight_number) : null;
  const token = trackingToken();
  const booking: BookingRow = {
    bookingRef: newBookingRef(),
    ...scope,
    partnerReference: input.partner_reference,
    quoteId: input.quote_id,
    offerId: input.offer_id,
    version: 1,
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
    adults,
    children,
    luggage,
    extras: offer.extras,
    passenger: input.passenger,
    flightNumber,
    notes: null,
    terms: offer.terms,
    meetingInstructions: '',
    emergencyPhone: ctx.emergencyPhone,
    createdAt: ctx.now,
    cancelledAt: null,
    completedAt: null,
    noShowAt: null,
    cancellationFeeMinor: null,
    eventSeq: 1,
    trackingToken: token,
    trackingUrl: `${ctx.publicBaseUrl}/t/${token}`,
    flight: null,
    pickupEstimatedAt: null,
    driverLocation: null,
    erasedAt: null,
  };
  booking.meetingInstructions = bookingMeeting(booking);
  // Production bookings are jobs on the fleet's schedule; sandbox ones never occupy it.
  const job = scope.env === 'production' ? bookingJob(booking, offer.durationMin) : null;
  return { kind: 'book', booking, job };
}

/** A flight number as we keep it: `ek 648` → `EK648`. */
export const flightDesignator = (text: string): string => text.replace(/\s+/g, '').toUpperCase();

/** The passenger's full name ('' once erased: an erased booking has ended and is never changed again). */
const fullName = (p: BookingRow['passenger']): string => (p ? `${p.first_name} ${p.last_name}` : '');

/** Where and how the driver meets the booking's passenger (written again when the booking changes). */
export const bookingMeeting = (b: BookingRow): string =>
  meetingInstructions({
    journeyType: b.journeyType,
    pickupName: placeText(b.pickup),
    dropoffName: placeText(b.dropoff),
    iata: b.pickup.iata,
    passengerName: fullName(b.passenger),
    flightNumber: b.flightNumber,
    pickupDatetime: b.pickupDatetime,
    seats: seatCounts(b.extras),
  });

/** The job of a production booking: the booking as the driver needs it, over the window it holds a vehicle. */
export function bookingJob(b: BookingRow, durationMin: number | null): JobRecord {
  return {
    source: 'partner_booking',
    sourceRef: b.bookingRef,
    fleetCode: b.vehicle,
    pickupAt: b.pickupAt,
    endsAt: jobEndsAt(b.pickupAt, durationMin, b.journeyType),
    durationMin,
    pickup: { ...b.pickup, name: placeText(b.pickup) },
    dropoff: { ...b.dropoff, name: placeText(b.dropoff) },
    adults: b.adults,
    children: b.children,
    luggage: b.luggage,
    seats: seatCounts(b.extras),
    passenger: { name: fullName(b.passenger), phone: b.passenger?.phone ?? null },
    flightNumber: b.flightNumber,
    notes: b.notes,
    meetingInstructions: b.meetingInstructions,
  };
}

/** A place of the booking: the partner's own text (when they gave a name) beside where we located it. */
export const bookedPlace = (resolved: Place, given: { name?: string }): BookedPlace => ({
  name: given.name?.trim() || resolved.name,
  resolved_name: resolved.name,
  ...(resolved.iata ? { iata: resolved.iata } : {}),
  lat: resolved.lat,
  lon: resolved.lon,
});
