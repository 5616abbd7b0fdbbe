import type { BookingRow, OfferForBooking } from '../../src/data/repositories/bookings-repository';
import { DEFAULT_TERMS } from '../../src/domain/terms/terms';

/**
 * Rows as the domain rules read them, for unit tests of those rules (no database): a booking and an offer of CMB →
 * a Colombo hotel on 1 December 2026, 09:30 in Colombo, quoted and booked on 21 November. Each builder takes the
 * fields a test cares about.
 */

/** When the offer was quoted and the booking made. */
export const BOOKED_AT = new Date('2026-11-21T08:00:00.000Z');
/** The pickup: 2026-12-01T09:30:00+05:30. */
export const PICKUP_AT = new Date('2026-12-01T04:00:00.000Z');

export const minutesBefore = (at: Date, min: number): Date => new Date(at.getTime() - min * 60_000);
export const minutesAfter = (at: Date, min: number): Date => new Date(at.getTime() + min * 60_000);

const CMB = { name: 'Bandaranaike International Airport', iata: 'CMB', lat: 7.1808, lon: 79.8841 };
const HOTEL = { name: 'Cinnamon Grand Colombo', lat: 6.9175, lon: 79.8483 };

export function offerForBooking(over: Partial<OfferForBooking> = {}): OfferForBooking {
  return {
    offerId: 'offer-1',
    quoteId: 'quote-1',
    vehicle: 'standard_car',
    vehicleCode: 'standard_car',
    vehicleName: 'Standard car',
    maxPassengers: 3,
    maxLuggage: 3,
    amountMinor: 3530,
    currency: 'USD',
    expiresAt: minutesAfter(BOOKED_AT, 30),
    journeyType: 'arrival',
    pickup: CMB,
    dropoff: HOTEL,
    pickupAt: PICKUP_AT,
    request: { pickup: {}, dropoff: { name: 'Cinnamon Grand, 77 Galle Road, Colombo 03' }, pickup_datetime: '2026-12-01T09:30:00+05:30' },
    durationMin: 75,
    terms: { version: 1, ...DEFAULT_TERMS, cancellation_fees: [...DEFAULT_TERMS.cancellation_fees] },
    extras: [],
    ...over,
  };
}

export function bookingRow(over: Partial<BookingRow> = {}): BookingRow {
  return {
    bookingRef: 'LK7Q2M9X',
    partnerId: 'partner-1',
    env: 'sandbox',
    partnerReference: 'AGY-1001',
    quoteId: 'quote-1',
    offerId: 'offer-1',
    version: 1,
    status: 'confirmed',
    driver: null,
    vehicle: 'standard_car',
    vehicleCode: 'standard_car',
    vehicleName: 'Standard car',
    amountMinor: 3530,
    currency: 'USD',
    pickup: { name: CMB.name, resolved_name: CMB.name, iata: 'CMB', lat: CMB.lat, lon: CMB.lon },
    dropoff: { name: 'Cinnamon Grand, 77 Galle Road, Colombo 03', resolved_name: HOTEL.name, lat: HOTEL.lat, lon: HOTEL.lon },
    pickupDatetime: '2026-12-01T09:30:00+05:30',
    pickupAt: PICKUP_AT,
    journeyType: 'arrival',
    adults: 2,
    children: 0,
    luggage: 2,
    extras: [],
    passenger: { first_name: 'Ayesha', last_name: 'Perera', email: 'ayesha@example.com', phone: '+94771234567' },
    flightNumber: 'UL504',
    notes: null,
    terms: { version: 1, ...DEFAULT_TERMS, cancellation_fees: [...DEFAULT_TERMS.cancellation_fees] },
    meetingInstructions: 'Your driver waits at the arrivals exit.',
    emergencyPhone: '+94 11 234 5678',
    createdAt: BOOKED_AT,
    cancelledAt: null,
    completedAt: null,
    noShowAt: null,
    cancellationFeeMinor: null,
    eventSeq: 1,
    trackingUrl: 'https://transfers.example/t/abcdefghijklmnopqrstuvwx',
    trackingToken: 'abcdefghijklmnopqrstuvwx',
    flight: null,
    pickupEstimatedAt: null,
    driverLocation: null,
    erasedAt: null,
    ...over,
  };
}
