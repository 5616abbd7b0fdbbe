import type { StoredExtra, StoredTerms } from './quotes-repository';

/**
 * A booking as the persistence layer holds it: its row type, the column of each field (in one place for every way a
 * booking is read or written), and how a row read as columns or as JSON becomes a BookingRow. The repositories of
 * bookings, their changes and their statements share it.
 */
export type Env = 'sandbox' | 'production';
/** A place as the quote located it. */
export type Place = { name: string; iata?: string; lat: number; lon: number };
/** A booked place: the partner's own text (`name`, null once the traveller's details are erased) and where we located it. */
export type BookedPlace = { name: string | null; resolved_name: string; iata?: string; lat: number; lon: number };
/** How a booked place reads to a driver or a traveller: the partner's text, else (erased) where we located it. */
export const placeText = (p: BookedPlace): string => p.name ?? p.resolved_name;
export type BookingStatus =
  'confirmed' | 'driver_assigned' | 'driver_en_route' | 'driver_arrived' | 'passenger_on_board' | 'completed' | 'no_show' | 'cancelled';
/** The driver as the partner sees it, once assigned (`colour` since the ride issue: older snapshots lack it). */
export type DriverSnapshot = { name: string; phone: string; vehicle: string; plate: string; colour?: string };
/** What the flight-status provider last said of the booking's flight (an airport arrival's). */
export type BookingFlight = {
  number: string;
  status: 'unknown' | 'scheduled' | 'delayed' | 'landed' | 'diverted' | 'cancelled';
  scheduled_arrival: string | null;
  estimated_arrival: string | null;
};
/** The driver's last position, while the ride is under way. */
export type Position = { lat: number; lon: number; at: string };

export interface BookingRow {
  bookingRef: string;
  partnerId: string;
  env: Env;
  partnerReference: string;
  quoteId: string;
  offerId: string;
  /** 1 when made; each amendment and priced change adds one (the ETag). */
  version: number;
  status: BookingStatus;
  driver: DriverSnapshot | null;
  vehicle: string;
  vehicleCode: string;
  vehicleName: string;
  amountMinor: number;
  currency: 'USD' | 'EUR' | 'LKR';
  pickup: BookedPlace;
  dropoff: BookedPlace;
  pickupDatetime: string;
  pickupAt: Date;
  journeyType: 'arrival' | 'departure' | 'point_to_point';
  adults: number;
  children: number;
  luggage: number;
  /** Seats for children, priced (included in amountMinor). */
  extras: StoredExtra[];
  /** Null once erased (erasedAt), as are the flight, notes, meeting instructions and the places' own text. */
  passenger: { first_name: string; last_name: string; email?: string; phone?: string } | null;
  flightNumber: string | null;
  notes: string | null;
  /** The terms it was sold under (a priced change takes its change quote's). */
  terms: StoredTerms;
  meetingInstructions: string | null;
  emergencyPhone: string;
  createdAt: Date;
  cancelledAt: Date | null;
  completedAt: Date | null;
  noShowAt: Date | null;
  /** What the cancellation cost (set when cancelled). */
  cancellationFeeMinor: number | null;
  /** The sequence number of the booking's latest webhook event (1 for `booking.confirmed`). */
  eventSeq: number;
  /** The passenger's tracking link (`{PUBLIC_BASE_URL}/t/{token}`, issued with the booking and kept), and its token. */
  trackingUrl: string;
  trackingToken: string;
  flight: BookingFlight | null;
  /** The booked pickup moved as far as the flight's estimated arrival moved; null while not moved. */
  pickupEstimatedAt: Date | null;
  driverLocation: Position | null;
  /** When the traveller's personal data was erased. */
  erasedAt: Date | null;
}

/** An offer with what its quote knows of the journey: everything a booking decision reads. */
export interface OfferForBooking {
  offerId: string;
  quoteId: string;
  vehicle: string;
  vehicleCode: string;
  vehicleName: string;
  maxPassengers: number;
  maxLuggage: number;
  amountMinor: number;
  currency: BookingRow['currency'];
  expiresAt: Date;
  journeyType: BookingRow['journeyType'];
  pickup: Place;
  dropoff: Place;
  pickupAt: Date;
  request: { pickup: { name?: string }; dropoff: { name?: string }; pickup_datetime: string };
  durationMin: number | null;
  /** The partner's terms that priced it. */
  terms: StoredTerms;
  /** The seats asked for, priced (included in amountMinor). */
  extras: StoredExtra[];
}

/** Column → field, in one place for every way a booking is read or written. */
export const BOOKING = {
  bookingRef: 'booking_ref',
  partnerId: 'partner_id',
  env: 'env',
  partnerReference: 'partner_reference',
  quoteId: 'quote_id',
  offerId: 'offer_id',
  version: 'version',
  status: 'status',
  driver: 'driver',
  vehicle: 'vehicle',
  vehicleCode: 'vehicle_code',
  vehicleName: 'vehicle_name',
  amountMinor: 'amount_minor',
  currency: 'currency',
  pickup: 'pickup',
  dropoff: 'dropoff',
  pickupDatetime: 'pickup_datetime',
  pickupAt: 'pickup_at',
  journeyType: 'journey_type',
  adults: 'adults',
  children: 'children',
  luggage: 'luggage',
  extras: 'extras',
  passenger: 'passenger',
  flightNumber: 'flight_number',
  notes: 'notes',
  terms: 'terms',
  meetingInstructions: 'meeting_instructions',
  emergencyPhone: 'emergency_phone',
  createdAt: 'created_at',
  cancelledAt: 'cancelled_at',
  completedAt: 'completed_at',
  noShowAt: 'no_show_at',
  cancellationFeeMinor: 'cancellation_fee_minor',
  eventSeq: 'event_seq',
  trackingUrl: 'tracking_url',
  trackingToken: 'tracking_token',
  flight: 'flight',
  pickupEstimatedAt: 'pickup_estimated_at',
  driverLocation: 'driver_location',
  erasedAt: 'erased_at',
} as const satisfies Record<keyof BookingRow, string>;
export const FIELDS = Object.keys(BOOKING) as Array<keyof BookingRow>;

export const bookingJson = (alias: string) => `json_build_object(${FIELDS.map((f) => `'${f}', ${alias}.${BOOKING[f]}`).join(', ')})`;
export const bookingColumns = (alias: string) => FIELDS.map((f) => `${alias}.${BOOKING[f]} as "${f}"`).join(', ');

/** A booking read as JSON (dates come back as text): the types the rest of the code expects. */
export type Dated<T, K extends keyof T> = Omit<T, K> & { [P in K]: T[P] extends Date ? string : T[P] extends Date | null ? string | null : T[P] };
/** A booking as json_build_object returns it: timestamps as text, the amount as a number or text. */
export type BookingJson = Dated<BookingRow, 'pickupAt' | 'createdAt' | 'cancelledAt' | 'completedAt' | 'noShowAt' | 'pickupEstimatedAt' | 'erasedAt'> & {
  amountMinor: number | string;
  cancellationFeeMinor: number | string | null;
};

export function fromJson(j: BookingJson | null): BookingRow | undefined {
  if (!j) return undefined;
  const at = (t: string | null) => (t ? new Date(t) : null);
  return {
    ...j,
    amountMinor: Number(j.amountMinor),
    cancellationFeeMinor: j.cancellationFeeMinor === null ? null : Number(j.cancellationFeeMinor),
    pickupAt: new Date(j.pickupAt),
    createdAt: new Date(j.createdAt),
    cancelledAt: at(j.cancelledAt),
    completedAt: at(j.completedAt),
    noShowAt: at(j.noShowAt),
    pickupEstimatedAt: at(j.pickupEstimatedAt),
    erasedAt: at(j.erasedAt),
  };
}

export const fromRow = (r: BookingRow | undefined): BookingRow | undefined =>
  r ? { ...r, amountMinor: Number(r.amountMinor), cancellationFeeMinor: r.cancellationFeeMinor === null ? null : Number(r.cancellationFeeMinor) } : undefined;

export const OFFER_JSON = `json_build_object(
  'offerId', o.offer_id, 'quoteId', o.quote_id, 'vehicle', o.vehicle, 'vehicleCode', o.vehicle_code, 'vehicleName', o.vehicle_name,
  'maxPassengers', o.max_passengers, 'maxLuggage', o.max_luggage, 'amountMinor', o.amount_minor, 'currency', o.currency,
  'expiresAt', o.expires_at, 'journeyType', q.journey_type, 'pickup', q.pickup, 'dropoff', q.dropoff, 'pickupAt', q.pickup_at,
  'request', q.request, 'durationMin', q.duration_min, 'terms', q.terms, 'extras', q.extras)`;

/** The SQL type of each field that is not text (jsonb values are sent as JSON text). */
export const CASTS: Partial<Record<keyof BookingRow, string>> = {
  amountMinor: 'bigint',
  pickup: 'jsonb',
  dropoff: 'jsonb',
  pickupAt: 'timestamptz',
  adults: 'int',
  children: 'int',
  luggage: 'int',
  extras: 'jsonb',
  terms: 'jsonb',
  version: 'int',
  cancellationFeeMinor: 'bigint',
  passenger: 'jsonb',
  createdAt: 'timestamptz',
  cancelledAt: 'timestamptz',
  driver: 'jsonb',
  completedAt: 'timestamptz',
  noShowAt: 'timestamptz',
  eventSeq: 'int',
  flight: 'jsonb',
  pickupEstimatedAt: 'timestamptz',
  driverLocation: 'jsonb',
  erasedAt: 'timestamptz',
};
export const JSONB = new Set(FIELDS.filter((f) => CASTS[f] === 'jsonb'));

/** A field's value as a statement parameter. */
export const param = (b: BookingRow, f: keyof BookingRow): unknown => (JSONB.has(f) ? (b[f] === null ? null : JSON.stringify(b[f])) : b[f]);
