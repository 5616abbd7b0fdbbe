import { toDecimal } from '../kernel/money';
import type { BookingRow } from '../../data/repositories/bookings-repository';
import { cancellationPolicy } from '../terms/cancellation-policy';
import { extraView } from '../pricing/extras';
import { freeWaitingMinutes } from '../kernel/ride-rules';
import { RIDE_UNDER_WAY } from '../kernel/booking-states';

export type { BookingRow };

type WirePlace = BookingRow['pickup'];
/** jsonb does not keep key order: rebuild nested objects so a booking reads the same bytes as it was created. */
const place = (p: WirePlace) => ({
  name: p.name ?? null,
  resolved_name: p.resolved_name ?? p.name ?? '',
  ...(p.iata ? { iata: p.iata } : {}),
  lat: p.lat,
  lon: p.lon,
});
const driver = (b: BookingRow) => {
  const d = b.driver;
  if (!d) return null;
  const p = RIDE_UNDER_WAY.has(b.status) ? b.driverLocation : null;
  return { name: d.name, phone: d.phone, vehicle: d.vehicle, plate: d.plate, location: p ? { lat: p.lat, lon: p.lon, at: p.at } : null };
};
const flight = (f: BookingRow['flight']) =>
  f ? { number: f.number, status: f.status, scheduled_arrival: f.scheduled_arrival, estimated_arrival: f.estimated_arrival } : null;
const person = (p: BookingRow['passenger']): BookingRow['passenger'] =>
  p && {
    first_name: p.first_name,
    last_name: p.last_name,
    ...(p.email !== undefined ? { email: p.email } : {}),
    ...(p.phone !== undefined ? { phone: p.phone } : {}),
  };

/** The booking record as partners see it, `env` included (idempotent replays store these exact bytes). */
export function bookingView(b: BookingRow) {
  return {
    env: b.env,
    booking_ref: b.bookingRef,
    partner_reference: b.partnerReference,
    version: b.version,
    status: b.status,
    driver: driver(b),
    price: toDecimal(Number(b.amountMinor), b.currency),
    currency: b.currency,
    meeting_instructions: b.meetingInstructions,
    emergency_phone: b.emergencyPhone,
    quote_id: b.quoteId,
    offer_id: b.offerId,
    pickup: place(b.pickup),
    dropoff: place(b.dropoff),
    pickup_datetime: b.pickupDatetime,
    journey_type: b.journeyType,
    vehicle_code: b.vehicleCode,
    vehicle: b.vehicleName,
    passengers: { adults: b.adults, children: b.children, luggage: b.luggage },
    extras: b.extras.map((e) => extraView(e, b.currency)),
    passenger: person(b.passenger),
    flight_number: b.flightNumber,
    flight: flight(b.flight),
    pickup_estimated_at: b.pickupEstimatedAt ? b.pickupEstimatedAt.toISOString() : null,
    waiting_policy: { free_minutes: freeWaitingMinutes(b.pickup) },
    tracking_url: b.trackingUrl,
    notes: b.notes,
    cancellation_policy: cancellationPolicy(b.terms, b.pickupAt, b.amountMinor, b.currency),
    cancellation_fee: b.cancellationFeeMinor === null ? null : toDecimal(b.cancellationFeeMinor, b.currency),
    created_at: b.createdAt.toISOString(),
    cancelled_at: b.cancelledAt ? b.cancelledAt.toISOString() : null,
    erased_at: b.erasedAt ? b.erasedAt.toISOString() : null,
  };
}

export type BookingView = ReturnType<typeof bookingView>;
