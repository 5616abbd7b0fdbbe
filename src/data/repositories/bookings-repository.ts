import { sql, type Sql, type Tx } from '../database';
import { combine, runWrite, type Write } from '../write';
import { isUniqueViolation } from '../errors';
import { storeWrite, type Completion, type IdempotencyScope, type StoredResponse } from './idempotency-repository';
import { jobWrite, type JobRecord } from './jobs-repository';
import { eventWrite, type NewEvent } from './webhook-events-repository';
import type { StoredExtra, StoredTerms } from './quotes-repository';

export type Env = 'sandbox' | 'production';
/** A place as the quote located it. */
export type Place = { name: string; iata?: string; lat: number; lon: number };
/** A place of a booking: the partner's own text (`name`) beside where we located it. */
export type BookedPlace = { name: string; resolved_name: string; iata?: string; lat: number; lon: number };
export type BookingStatus = 'confirmed' | 'driver_assigned' | 'completed' | 'no_show' | 'cancelled';
/** The driver as the partner sees it, once assigned. */
export type DriverSnapshot = { name: string; phone: string; vehicle: string; plate: string };

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
  passenger: { first_name: string; last_name: string; email?: string; phone?: string };
  flightNumber: string | null;
  notes: string | null;
  /** The terms it was sold under (a priced change takes its change quote's). */
  terms: StoredTerms;
  meetingInstructions: string;
  emergencyPhone: string;
  createdAt: Date;
  cancelledAt: Date | null;
  completedAt: Date | null;
  noShowAt: Date | null;
  /** What the cancellation cost (set when cancelled). */
  cancellationFeeMinor: number | null;
  /** The sequence number of the booking's latest webhook event (1 for `booking.confirmed`). */
  eventSeq: number;
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
const BOOKING = {
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
} as const satisfies Record<keyof BookingRow, string>;
const FIELDS = Object.keys(BOOKING) as Array<keyof BookingRow>;

const bookingJson = (alias: string) => `json_build_object(${FIELDS.map((f) => `'${f}', ${alias}.${BOOKING[f]}`).join(', ')})`;
const bookingColumns = (alias: string) => FIELDS.map((f) => `${alias}.${BOOKING[f]} as "${f}"`).join(', ');

/** A booking read as JSON (dates come back as text): the types the rest of the code expects. */
type Dated<T, K extends keyof T> = Omit<T, K> & { [P in K]: T[P] extends Date ? string : T[P] extends Date | null ? string | null : T[P] };
/** A booking as json_build_object returns it: timestamps as text, the amount as a number or text. */
type BookingJson = Dated<BookingRow, 'pickupAt' | 'createdAt' | 'cancelledAt' | 'completedAt' | 'noShowAt'> & {
  amountMinor: number | string;
  cancellationFeeMinor: number | string | null;
};

function fromJson(j: BookingJson | null): BookingRow | undefined {
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
  };
}

const fromRow = (r: BookingRow | undefined): BookingRow | undefined =>
  r ? { ...r, amountMinor: Number(r.amountMinor), cancellationFeeMinor: r.cancellationFeeMinor === null ? null : Number(r.cancellationFeeMinor) } : undefined;

const OFFER_JSON = `json_build_object(
  'offerId', o.offer_id, 'quoteId', o.quote_id, 'vehicle', o.vehicle, 'vehicleCode', o.vehicle_code, 'vehicleName', o.vehicle_name,
  'maxPassengers', o.max_passengers, 'maxLuggage', o.max_luggage, 'amountMinor', o.amount_minor, 'currency', o.currency,
  'expiresAt', o.expires_at, 'journeyType', q.journey_type, 'pickup', q.pickup, 'dropoff', q.dropoff, 'pickupAt', q.pickup_at,
  'request', q.request, 'durationMin', q.duration_min, 'terms', q.terms, 'extras', q.extras)`;

export interface BookingFacts {
  /** The stored outcome of this Idempotency-Key, if any. */
  stored?: StoredResponse;
  /** The booking already made under this partner_reference, if any. */
  byReference?: BookingRow;
  /** The offer, if it exists for this partner and environment. */
  offer?: OfferForBooking;
  /** Whether any booking holds the offer. */
  consumed: boolean;
}

// Everything a booking decision reads, in one round trip.
const facts = sql(`
  select
    (select json_build_object('fingerprint', i.fingerprint, 'responseStatus', i.response_status, 'responseBody', i.response_body, 'requestId', i.request_id)
       from idempotency_keys i
       where i.partner_id = $1 and i.env = $2 and i.operation = 'createBooking' and i.idempotency_key = $3) as stored,
    (select ${bookingJson('b')} from bookings b where b.partner_id = $1 and b.env = $2 and b.partner_reference = $4) as by_reference,
    (select ${OFFER_JSON} from offers o join quotes q on q.quote_id = o.quote_id where o.offer_id = $5 and o.partner_id = $1 and o.env = $2 and q.booking_ref is null) as offer,
    exists (select 1 from bookings c where c.offer_id = $5) as consumed`);

interface FactsRow {
  stored: StoredResponse | null;
  by_reference: BookingJson | null;
  offer: Dated<OfferForBooking, 'expiresAt' | 'pickupAt'> | null;
  consumed: boolean;
}

export async function bookingFacts(
  db: Sql,
  scope: { partnerId: string; env: Env },
  q: { idempotencyKey?: string; partnerReference: string; offerId: string },
): Promise<BookingFacts> {
  const [r] = await db.query<FactsRow>(facts, [scope.partnerId, scope.env, q.idempotencyKey ?? null, q.partnerReference, q.offerId]);
  const offer = r.offer;
  return {
    stored: r.stored ?? undefined,
    byReference: fromJson(r.by_reference),
    offer: offer ? { ...offer, amountMinor: Number(offer.amountMinor), expiresAt: new Date(offer.expiresAt), pickupAt: new Date(offer.pickupAt) } : undefined,
    consumed: r.consumed,
  };
}

/** An offer of a change quote of this booking, with the party it was quoted for and whether the change quote was applied. */
export interface ChangeOffer extends OfferForBooking {
  appliedAt: Date | null;
  passengers: { adults: number; children?: number; luggage?: number };
}

const changeOffer = sql(`
  select ${OFFER_JSON} as offer, q.applied_at as "appliedAt", q.request->'passengers' as passengers
  from offers o join quotes q on q.quote_id = o.quote_id
  where o.offer_id = $1 and q.quote_id = $2 and q.booking_ref = $3 and q.partner_id = $4 and q.env = $5`);

export async function findChangeOffer(
  db: Sql,
  scope: { partnerId: string; env: Env },
  q: { bookingRef: string; changeQuoteId: string; offerId: string },
): Promise<ChangeOffer | undefined> {
  const [r] = await db.query<{ offer: Dated<OfferForBooking, 'expiresAt' | 'pickupAt'>; appliedAt: Date | null; passengers: ChangeOffer['passengers'] }>(
    changeOffer,
    [q.offerId, q.changeQuoteId, q.bookingRef, scope.partnerId, scope.env],
  );
  if (!r) return undefined;
  const o = r.offer;
  return {
    ...o,
    amountMinor: Number(o.amountMinor),
    expiresAt: new Date(o.expiresAt),
    pickupAt: new Date(o.pickupAt),
    appliedAt: r.appliedAt,
    passengers: r.passengers,
  };
}

const INSERT_COLUMNS = [...FIELDS.map((f) => BOOKING[f]), 'request_id'];
const CASTS: Partial<Record<keyof BookingRow, string>> = {
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
};
const JSONB = new Set(FIELDS.filter((f) => CASTS[f] === 'jsonb'));
const INSERT_VALUES = [...FIELDS.map((f, i) => `$${i + 1}::${CASTS[f] ?? 'text'}`), `$${FIELDS.length + 1}::text`].join(', ');
const insertParams = (b: BookingRow, requestId: string) => [
  ...FIELDS.map((f) => (JSONB.has(f) ? (b[f] === null ? null : JSON.stringify(b[f])) : b[f])),
  requestId,
];

/** A new booking and everything that commits with it. */
export interface NewBooking {
  booking: BookingRow;
  /** Production: its job on the fleet's schedule, which must find a vehicle of its class free for its window. */
  job: JobRecord | null;
  /** Its `booking.confirmed` event, delivered to each subscribed endpoint. */
  event: { record: NewEvent; maxAttempts: number };
  requestId: string;
  now: Date;
  /** The offer's facts came from memory: its expiry is checked again in the statement (a sandbox helper may move it). */
  offerLiveAt?: Date;
  /** The Idempotency-Key with the answer it stores (the fast path; the careful path claimed it beforehand). */
  key?: { scope: IdempotencyScope; fingerprint: string; completion: Completion };
}

/**
 * The booking, its job, its event and its key as one write, guarded on the booking: if the offer, the
 * partner_reference or the booking_ref was taken meanwhile (or the condition failed), nothing of it is inserted.
 */
export function newBookingWrite(n: NewBooking): Write {
  const b = n.booking;
  const conditions: string[] = [];
  const extra: unknown[] = [];
  const param = (v: unknown) => {
    extra.push(v);
    return `$${FIELDS.length + 1 + extra.length}`;
  };
  if (n.offerLiveAt)
    conditions.push(`exists (select 1 from offers o where o.offer_id = ${param(b.offerId)}::text and o.expires_at > ${param(n.offerLiveAt)}::timestamptz)`);
  // fleet_has_room locks the vehicle class until commit, so two bookings cannot both take its last vehicle.
  if (n.job) conditions.push(`fleet_has_room(${param(n.job.fleetCode)}::text, ${param(n.job.pickupAt)}::timestamptz, ${param(n.job.endsAt)}::timestamptz)`);
  const where = conditions.length ? ` where ${conditions.join(' and ')}` : '';
  const booking: Write = {
    ctes: [`booking_in as (insert into bookings (${INSERT_COLUMNS.join(', ')}) select ${INSERT_VALUES}${where} on conflict do nothing returning booking_ref)`],
    params: [...insertParams(b, n.requestId), ...extra],
    guard: 'booking_in',
  };
  return combine(
    booking,
    n.job ? jobWrite(n.job, n.now, 'booking_in') : undefined,
    eventWrite(n.event.record, n.event.maxAttempts, 'booking_in'),
    n.key ? storeWrite(n.key.scope, n.key.fingerprint, n.requestId, n.now, n.key.completion, 'booking_in') : undefined,
  );
}

/**
 * The same write in the caller's transaction (the careful path). False when a uniqueness was lost to a committed
 * booking (the same offer or partner_reference: the next read sees it) or the booking_ref was taken (draw again).
 */
export const insertNewBooking = (tx: Tx, n: NewBooking): Promise<boolean> => runWrite(tx, newBookingWrite(n));

/** What a change of a booking may rewrite: everything but who and what made it. */
const MUTABLE = FIELDS.filter((f) => !['bookingRef', 'partnerId', 'env', 'partnerReference', 'createdAt'].includes(f));
const saveChange = sql(`
  update bookings set ${MUTABLE.map((f, i) => `${BOOKING[f]} = $${i + 2}::${CASTS[f] ?? 'text'}`).join(', ')}
  where booking_ref = $1
  returning ${bookingColumns('bookings')}`);

/**
 * Writes a changed booking (an amendment, a priced change, its driver released) under the row lock its reader took.
 * 'offer_taken' when the offer it now holds is another booking's (bookings_offer_id_unique).
 */
export async function saveBookingChange(tx: Tx, b: BookingRow): Promise<BookingRow | 'offer_taken'> {
  const values = MUTABLE.map((f) => (JSONB.has(f) ? (b[f] === null ? null : JSON.stringify(b[f])) : b[f]));
  try {
    return fromRow((await tx.savepoint((sp) => sp.query<BookingRow>(saveChange, [b.bookingRef, ...values])))[0])!;
  } catch (e) {
    if (isUniqueViolation(e, 'bookings_offer_id_unique')) return 'offer_taken';
    throw e;
  }
}

const byRef = sql(`select ${bookingColumns('b')} from bookings b where b.partner_id = $1 and b.env = $2 and b.booking_ref = $3`);
const byRefForUpdate = sql(`${byRef.text} for update`);

export async function findBooking(db: Sql, scope: { partnerId: string; env: Env }, bookingRef: string, lock = false): Promise<BookingRow | undefined> {
  return fromRow((await db.query<BookingRow>(lock ? byRefForUpdate : byRef, [scope.partnerId, scope.env, bookingRef]))[0]);
}

const cancel = sql(
  `update bookings set status = 'cancelled', cancelled_at = $2, cancellation_fee_minor = $3, event_seq = event_seq + 1 where booking_ref = $1 returning event_seq as "eventSeq"`,
);

/** Cancels the booking at its fee; returns the sequence number its event takes. */
export async function markCancelled(tx: Sql, bookingRef: string, at: Date, feeMinor: number): Promise<number> {
  return (await tx.query<{ eventSeq: number }>(cancel, [bookingRef, at, feeMinor]))[0].eventSeq;
}

const dispatch = sql(`
  update bookings set status = $2, driver = coalesce($3::jsonb, driver), event_seq = event_seq + 1,
    completed_at = case when $2 = 'completed' then $4 else completed_at end,
    no_show_at = case when $2 = 'no_show' then $4 else no_show_at end
  where booking_ref = $1
  returning ${bookingColumns('bookings')}`);

/** The booking follows its dispatch: the driver assigned (a snapshot), then completed or no-show. */
export async function setDispatch(
  tx: Sql,
  bookingRef: string,
  status: Exclude<BookingStatus, 'cancelled'>,
  driver: DriverSnapshot | null,
  at: Date,
): Promise<BookingRow> {
  return fromRow((await tx.query<BookingRow>(dispatch, [bookingRef, status, driver ? JSON.stringify(driver) : null, at]))[0])!;
}

/** A booking as a statement reads it. */
export interface StatementRow {
  bookingRef: string;
  partnerReference: string;
  pickupDatetime: string;
  status: BookingStatus;
  amountMinor: number;
  currency: BookingRow['currency'];
  cancellationFeeMinor: number | null;
  noShowPercent: number;
}

const statementRows = sql(`
  select booking_ref as "bookingRef", partner_reference as "partnerReference", pickup_datetime as "pickupDatetime", status,
         amount_minor as "amountMinor", currency, cancellation_fee_minor as "cancellationFeeMinor", (terms->>'no_show_percent')::int as "noShowPercent"
  from bookings
  where partner_id = $1 and env = $2 and pickup_at >= $3 and pickup_at < $4
  order by pickup_at, booking_ref
  limit $5`);

/** A partner's bookings in one environment picked up in [from, to), by pickup time: at most `limit`. */
export async function findStatementRows(db: Sql, scope: { partnerId: string; env: Env }, from: Date, to: Date, limit: number): Promise<StatementRow[]> {
  return (await db.query<StatementRow>(statementRows, [scope.partnerId, scope.env, from, to, limit])).map((r) => ({
    ...r,
    amountMinor: Number(r.amountMinor),
    cancellationFeeMinor: r.cancellationFeeMinor === null ? null : Number(r.cancellationFeeMinor),
  }));
}
