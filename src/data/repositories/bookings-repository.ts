import { sql, type Sql, type Tx } from '../database';
import { combine, runWrite, type Write } from '../write';
import { isUniqueViolation } from '../errors';
import { storeWrite, type Completion, type IdempotencyScope, type StoredResponse } from './idempotency-repository';
import { jobWrite, type JobRecord } from './jobs-repository';
import { eventWrite, type NewEvent } from './webhook-events-repository';
import {
  BOOKING,
  bookingColumns,
  bookingJson,
  CASTS,
  FIELDS,
  fromJson,
  fromRow,
  OFFER_JSON,
  param,
  type BookingJson,
  type BookingRow,
  type BookingStatus,
  type Dated,
  type DriverSnapshot,
  type Env,
  type OfferForBooking,
  type Position,
} from './booking-record';

export type { BookedPlace, BookingFlight, BookingRow, BookingStatus, DriverSnapshot, Env, OfferForBooking, Place, Position } from './booking-record';
export { placeText } from './booking-record';

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

// The quote a booking was booked from stays as `booked_quote_id` when a change quote takes `quote_id` (an erasure
// finds the traveller's places' text in both).
const INSERT_COLUMNS = [...FIELDS.map((f) => BOOKING[f]), 'request_id', 'booked_quote_id'];
const INSERT_VALUES = [
  ...FIELDS.map((f, i) => `$${i + 1}::${CASTS[f] ?? 'text'}`),
  `$${FIELDS.length + 1}::text`,
  `$${FIELDS.indexOf('quoteId') + 1}::text`,
].join(', ');
const insertParams = (b: BookingRow, requestId: string) => [...FIELDS.map((f) => param(b, f)), requestId];

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
  const values = MUTABLE.map((f) => param(b, f));
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
    no_show_at = case when $2 = 'no_show' then $4 else no_show_at end,
    driver_location = coalesce($5::jsonb, driver_location)
  where booking_ref = $1
  returning ${bookingColumns('bookings')}`);

/**
 * The booking follows its dispatch and its ride: the driver assigned (a snapshot), the ride's steps (with the
 * driver's position when one is known), then completed or no-show.
 */
export async function setDispatch(
  tx: Sql,
  bookingRef: string,
  status: Exclude<BookingStatus, 'cancelled'>,
  change: { driver?: DriverSnapshot | null; location?: Position | null },
  at: Date,
): Promise<BookingRow> {
  const json = (v: unknown) => (v ? JSON.stringify(v) : null);
  return fromRow((await tx.query<BookingRow>(dispatch, [bookingRef, status, json(change.driver), at, json(change.location)]))[0])!;
}

const located = sql(`update bookings set driver_location = $2::jsonb where booking_ref = $1`);

/** The driver's latest position on the booking (no event: partners read it, or follow the tracking link). */
export async function setDriverLocation(tx: Sql, bookingRef: string, p: Position): Promise<void> {
  await tx.query(located, [bookingRef, JSON.stringify(p)]);
}

const byTrackingToken = sql(`select ${bookingColumns('b')} from bookings b where b.tracking_token = $1`);

/** The booking a tracking link names (any partner, any environment: the token is the capability). */
export async function findBookingByTrackingToken(db: Sql, token: string): Promise<BookingRow | undefined> {
  return fromRow((await db.query<BookingRow>(byTrackingToken, [token]))[0]);
}
