import type { Sql } from '../../data/database';
import {
  deleteJobTracks,
  eraseBookingRow,
  eraseJobRows,
  lockErasableBooking,
  lockErasableOrder,
  markOrderErased,
  priceMarkSubject,
  rewriteJson,
  type ErasableBooking,
} from '../../data/repositories/erasure-repository';
import { destroyKeys } from '../../data/repositories/personal-data-keys-repository';
import { erasePersonal } from '../../shared/personal-data';

/** What one erasure removed, table by table (the receipt's counts). */
export type Removed = Record<string, number>;

/** Stored documents read as an erased booking does (the map: shared/personal-data). */
const scrub = erasePersonal;

/** The states in which a ride has no further use for the traveller's details. */
const ENDED = new Set(['cancelled', 'completed', 'no_show']);
const ORDER_ENDED = new Set(['cancelled', 'completed', 'no_show', 'declined']);

export type BookingErasure =
  | { kind: 'erased'; bookingRef: string; partnerId: string; env: string; subjects: string[]; removed: Removed }
  | { kind: 'ride_pending'; bookingRef: string; status: string }
  | { kind: 'not_found' };

/**
 * Erases the personal data of one booking, in the caller's transaction (the booking's row locked first):
 * 1. check: the ride is over (cancelled, completed or a no-show): until then the driver needs the details (the
 *    retention pass also takes a booking never closed, long after its pickup);
 * 2. remove: the booking's and its job's personal fields, the ride's positions, and the personal values of its
 *    quote, stored replays, webhook events and owed calls;
 * 3. destroy the data keys of the booking, its quote and its job: what the audit log sealed with them can never be
 *    read again. The audit rows themselves stay, one per request, with their digests.
 * An erased booking erased again changes nothing and answers the same.
 */
export async function eraseBooking(tx: Sql, bookingRef: string, at: Date, o: { overdueBefore?: Date } = {}): Promise<BookingErasure> {
  const b = await lockErasableBooking(tx, bookingRef);
  if (!b) return { kind: 'not_found' };
  // Retention also takes a booking nobody closed whose pickup is long past (`overdueBefore`): its ride is not to come.
  const overdue = o.overdueBefore !== undefined && new Date(b.pickupAt) < o.overdueBefore;
  if (!ENDED.has(b.status) && !overdue) return { kind: 'ride_pending', bookingRef: b.bookingRef, status: b.status };
  const subjects = bookingSubjects(b);
  const erased = { kind: 'erased' as const, bookingRef: b.bookingRef, partnerId: b.partnerId, env: b.env, subjects };
  if (b.erasedAt) return { ...erased, removed: {} };

  await eraseBookingRow(tx, b.bookingRef, at);
  const removed: Removed = {
    bookings: 1,
    jobs: await eraseJobRows(tx, b.jobIds, at),
    job_locations: await deleteJobTracks(tx, b.jobIds),
    quotes: await rewriteJson(tx, 'quotes', b.quoteIds, scrub),
    idempotency_keys: await rewriteJson(tx, 'idempotency_keys', b.bookingRef, scrub),
    webhook_events: await rewriteJson(tx, 'webhook_events', b.bookingRef, scrub),
    outbox: await rewriteJson(tx, 'outbox_booking', b.bookingRef, scrub),
    personal_data_keys: await destroyKeys(tx, subjects, at),
  };
  return { ...erased, removed };
}

/** Whose keys seal a booking's details: the booking, its quote and its job. */
export const bookingSubjects = (b: Pick<ErasableBooking, 'bookingRef' | 'quoteIds' | 'jobIds'>) => [
  `booking:${b.bookingRef}`,
  ...b.quoteIds.map((q) => `quote:${q}`),
  ...b.jobIds.map((j) => `job:${j}`),
];

export type OrderErasure =
  { kind: 'erased'; orderId: string; subjects: string[]; removed: Removed } | { kind: 'ride_pending'; orderId: string; state: string } | { kind: 'not_found' };

/** Whose keys seal an order's details: the order and its job. */
export const orderSubjects = (o: { orderId: string; jobIds: string[] }) => [`order:${o.orderId}`, ...o.jobIds.map((j) => `job:${j}`)];

/** The same for a marketplace order: its customer, passengers, comment and places' text, its job and positions. */
export async function eraseOrder(tx: Sql, orderId: string, at: Date): Promise<OrderErasure> {
  const o = await lockErasableOrder(tx, orderId);
  if (!o) return { kind: 'not_found' };
  if (!ORDER_ENDED.has(o.state)) return { kind: 'ride_pending', orderId: o.orderId, state: o.state };
  // The search it was priced under is the traveller's too (its places' text), while its price mark is kept.
  const search = o.priceMark ? await priceMarkSubject(tx, o.priceMark) : null;
  const subjects = [...orderSubjects(o), ...(search ? [search] : [])];
  if (o.erasedAt) return { kind: 'erased', orderId: o.orderId, subjects, removed: {} };

  await markOrderErased(tx, o.orderId, at);
  const removed: Removed = {
    marketplace_orders: await rewriteJson(tx, 'marketplace_orders', o.orderId, scrub),
    jobs: await eraseJobRows(tx, o.jobIds, at),
    job_locations: await deleteJobTracks(tx, o.jobIds),
    outbox: await rewriteJson(tx, 'outbox_order', o.orderId, scrub),
    marketplace_seen_calls: await rewriteJson(tx, 'marketplace_seen_calls', o.orderId, scrub),
    price_marks: o.priceMark ? await rewriteJson(tx, 'price_marks', o.priceMark, scrub) : 0,
    personal_data_keys: await destroyKeys(tx, subjects, at),
  };
  return { kind: 'erased', orderId: o.orderId, subjects, removed };
}
