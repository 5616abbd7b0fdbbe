import type { Knex } from 'knex';
import { AppError, invalidRequest, notFound } from '../../shared/errors';
import { bookingRef as newBookingRef } from '../../shared/ids';
import { meetingInstructions } from './meeting-instructions';
import { bookingView, type BookingRow, type BookingView } from './booking-view';

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

const isUniqueViolation = (e: unknown, constraint?: string) =>
  (e as { code?: string })?.code === '23505' &&
  (!constraint || (e as { constraint?: string; nativeError?: { constraint?: string } }).constraint === constraint ||
    (e as { nativeError?: { constraint?: string } }).nativeError?.constraint === constraint);

export async function findByPartnerReference(trx: Knex.Transaction, scope: Scope, partnerReference: string) {
  return (await trx('bookings').where({ ...scope, partnerReference }).first()) as BookingRow | undefined;
}

/**
 * Books an offer. Precedence: a partner_reference already used → that booking (200); unknown offer or quote, or
 * an offer of another quote → 404; an arrival without flight_number → 400; an expired offer → 410; an offer
 * already booked → 409 (enforced by the unique index on bookings.offer_id, so it holds across instances); a party
 * larger than the vehicle → 409; otherwise a confirmed booking at exactly the stored offer price, plus its job.
 */
export async function placeBooking(
  trx: Knex.Transaction,
  scope: Scope,
  input: BookingInput,
  ctx: { now: Date; requestId: string; emergencyPhone: string },
): Promise<{ created: boolean; booking: BookingView }> {
  const existing = await findByPartnerReference(trx, scope, input.partner_reference);
  if (existing) return { created: false, booking: bookingView(existing) };

  const offer = await trx('offers as o')
    .join('quotes as q', 'q.quote_id', 'o.quote_id')
    .where({ 'o.offer_id': input.offer_id, 'o.partner_id': scope.partnerId, 'o.env': scope.env })
    .first(
      'o.offer_id', 'o.quote_id', 'o.vehicle', 'o.vehicle_code', 'o.vehicle_name', 'o.max_passengers', 'o.max_luggage',
      'o.amount_minor', 'o.currency', 'o.expires_at', 'q.journey_type', 'q.pickup', 'q.dropoff', 'q.pickup_at', 'q.request',
      'q.duration_min',
    );
  if (!offer || offer.quoteId !== input.quote_id) {
    throw notFound(`No offer ${input.offer_id} in quote ${input.quote_id} on this account in ${scope.env}.`, {
      offer_id: input.offer_id,
      quote_id: input.quote_id,
    });
  }
  const request = offer.request as { pickup: { name?: string }; pickup_datetime: string };
  if (offer.journeyType === 'arrival' && !input.flight_number) {
    throw invalidRequest('The request is invalid: flight_number is required for an airport pickup.', [
      { field: 'flight_number', message: 'is required when the pickup is an airport' },
    ]);
  }
  const expiredAt = new Date(offer.expiresAt);
  if (expiredAt.getTime() <= ctx.now.getTime()) {
    throw new AppError('offer_expired', 410, `Offer ${input.offer_id} expired at ${expiredAt.toISOString()}; request a new quote.`, {
      offer_id: input.offer_id,
      expired_at: expiredAt.toISOString(),
    });
  }
  const consumed = () =>
    new AppError('booking_conflict', 409, `Offer ${input.offer_id} is already booked.`, { reason: 'offer_consumed', offer_id: input.offer_id });
  if (await trx('bookings').where({ offerId: input.offer_id }).first('booking_ref')) throw consumed();
  const luggage = input.passengers.luggage ?? 0;
  if (input.passengers.adults > offer.maxPassengers || luggage > offer.maxLuggage) {
    throw new AppError(
      'booking_conflict',
      409,
      `The party (${input.passengers.adults} adults, ${luggage} bags) does not fit the offered ${offer.vehicleName} ` +
        `(${offer.maxPassengers} passengers, ${offer.maxLuggage} bags); quote again for this party.`,
      { reason: 'party_exceeds_vehicle', adults: input.passengers.adults, luggage, max_passengers: offer.maxPassengers, max_luggage: offer.maxLuggage },
    );
  }

  const pickup = { ...offer.pickup, name: request.pickup.name?.trim() || offer.pickup.name };
  const flightNumber = input.flight_number ? input.flight_number.replace(/\s+/g, '').toUpperCase() : null;
  const row: BookingRow = {
    bookingRef: '',
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
    pickupAt: new Date(offer.pickupAt),
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

  for (let attempt = 0; ; attempt += 1) {
    row.bookingRef = newBookingRef();
    try {
      await trx.transaction((sp) =>
        sp('bookings').insert({ ...row, requestId: ctx.requestId, pickup: JSON.stringify(row.pickup), dropoff: JSON.stringify(row.dropoff), passenger: JSON.stringify(row.passenger) }),
      );
      break;
    } catch (e) {
      if (isUniqueViolation(e, 'bookings_pkey') && attempt < 3) continue;
      if (!isUniqueViolation(e)) throw e;
      // Lost a race: another request booked this offer or used this reference first (and has committed).
      const winner = await findByPartnerReference(trx, scope, input.partner_reference);
      if (winner) return { created: false, booking: bookingView(winner) };
      throw consumed();
    }
  }
  await trx('jobs').insert({
    source: 'partner_booking',
    sourceRef: row.bookingRef,
    env: scope.env,
    status: 'scheduled',
    vehicle: row.vehicle,
    pickupAt: row.pickupAt,
    durationMin: offer.durationMin,
    pickup: JSON.stringify(row.pickup),
    dropoff: JSON.stringify(row.dropoff),
    adults: row.adults,
    luggage: row.luggage,
    passenger: JSON.stringify(row.passenger),
    flightNumber: row.flightNumber,
    createdAt: ctx.now,
    updatedAt: ctx.now,
  });
  return { created: true, booking: bookingView(row) };
}
