import { sql, type Sql } from '../database';
import { bookingColumns, fromRow, type BookingRow } from './booking-record';

/**
 * What an erasure changes, table by table (the map of where personal data lives is the domain's:
 * shared/personal-data). Rows keep their keys, amounts and times; personal values become null. Also what an access
 * request reads (the bookings, orders and positions of a subject). The retention pass's finders and deletions:
 * privacy-retention-repository.ts.
 */

/** A booking as an erasure needs it, locked. */
export interface ErasableBooking {
  bookingRef: string;
  partnerId: string;
  env: string;
  /** Every quote of the booking: booked from, and each change quote. */
  quoteIds: string[];
  status: string;
  pickupAt: Date;
  erasedAt: Date | null;
  jobIds: string[];
}

/** A booking's (alias b) quotes and jobs, as arrays (privacy-retention-repository.ts locks bookings with them too). */
export const QUOTES_AND_JOBS = `
  coalesce((select array_agg(q.quote_id order by q.created_at) from quotes q
            where q.quote_id in (b.quote_id, b.booked_quote_id) or q.booking_ref = b.booking_ref), '{}') as "quoteIds",
  coalesce((select array_agg(j.job_id::text) from jobs j where j.source = 'partner_booking' and j.source_ref = b.booking_ref), '{}') as "jobIds"`;

const lockBooking = sql(`
  select b.booking_ref as "bookingRef", b.partner_id as "partnerId", b.env, b.status, b.pickup_at as "pickupAt", b.erased_at as "erasedAt", ${QUOTES_AND_JOBS}
  from bookings b where b.booking_ref = $1 for update of b`);

export async function lockErasableBooking(tx: Sql, bookingRef: string): Promise<ErasableBooking | undefined> {
  const [row] = await tx.query<ErasableBooking>(lockBooking, [bookingRef]);
  return row;
}

/** A marketplace order as an erasure needs it, locked. */
export interface ErasableOrder {
  orderId: string;
  state: string;
  priceMark: string | null;
  erasedAt: Date | null;
  jobIds: string[];
}

const lockOrder = sql(`
  select o.order_id as "orderId", o.state, o.price_mark as "priceMark", o.erased_at as "erasedAt",
         coalesce((select array_agg(j.job_id::text) from jobs j where j.source = 'marketplace_order' and j.source_ref = o.order_id), '{}') as "jobIds"
  from marketplace_orders o where o.order_id = $1 for update of o`);

export async function lockErasableOrder(tx: Sql, orderId: string): Promise<ErasableOrder | undefined> {
  const [row] = await tx.query<ErasableOrder>(lockOrder, [orderId]);
  return row;
}

/** Who an erasure or an export is about: an e-mail (any case), a phone (digits and a leading +), or a booking. */
export interface SubjectQuery {
  email?: string;
  phone?: string;
  bookingRef?: string;
}

const PHONE = `regexp_replace(%s, '[^0-9+]', '', 'g')`;
const bookingsBy = sql(`
  select booking_ref as ref from bookings
  where ($1::text is not null and lower(passenger ->> 'email') = lower($1))
     or ($2::text is not null and ${PHONE.replace('%s', "passenger ->> 'phone'")} = ${PHONE.replace('%s', '$2')})
     or ($3::text is not null and booking_ref = upper($3))
  order by created_at, booking_ref`);
const ordersBy = sql(`
  select order_id as ref from marketplace_orders
  where ($1::text is not null and lower("order" -> 'customer' ->> 'email') = lower($1))
     or ($2::text is not null and ${PHONE.replace('%s', `"order" -> 'customer' ->> 'phone'`)} = ${PHONE.replace('%s', '$2')})
  order by created_at, order_id`);

/** The bookings and marketplace orders of one traveller, on every partner. */
export async function subjectsMatching(db: Sql, q: SubjectQuery): Promise<{ bookings: string[]; orders: string[] }> {
  const params = [q.email ?? null, q.phone ?? null, q.bookingRef ?? null];
  const bookings = await db.query<{ ref: string }>(bookingsBy, params);
  const orders = q.email || q.phone ? await db.query<{ ref: string }>(ordersBy, params.slice(0, 2)) : [];
  return { bookings: bookings.map((r) => r.ref), orders: orders.map((r) => r.ref) };
}

const PLACE_TEXT = (c: string) => `case when ${c} ? 'name' then jsonb_set(${c}, '{name}', 'null') else ${c} end`;

const eraseBooking = sql(`
  update bookings set passenger = null, flight_number = null, notes = null, meeting_instructions = null, flight = null,
    driver_location = null, pickup = ${PLACE_TEXT('pickup')}, dropoff = ${PLACE_TEXT('dropoff')}, erased_at = coalesce(erased_at, $2)
  where booking_ref = $1`);
const eraseJobs = sql(`
  update jobs set passenger = null, flight_number = null, notes = null, meeting_instructions = null, flight = null,
    no_show_note = null, last_lat = null, last_lon = null, last_located_at = null, pickup = ${PLACE_TEXT('pickup')}, dropoff = ${PLACE_TEXT('dropoff')}, erased_at = coalesce(erased_at, $2)
  where job_id = any($1::bigint[])`);
const eraseOrder = sql('update marketplace_orders set erased_at = coalesce(erased_at, $2) where order_id = $1');
const deleteTrack = sql('delete from job_locations where job_id = any($1::bigint[])');

export async function eraseBookingRow(tx: Sql, bookingRef: string, at: Date): Promise<void> {
  await tx.query(eraseBooking, [bookingRef, at]);
}

export async function eraseJobRows(tx: Sql, jobIds: string[], at: Date): Promise<number> {
  if (!jobIds.length) return 0;
  return (await tx.query(`${eraseJobs.text} returning 1`, [jobIds, at])).length;
}

export async function markOrderErased(tx: Sql, orderId: string, at: Date): Promise<void> {
  await tx.query(eraseOrder, [orderId, at]);
}

/** Deletes the ride's positions of these jobs; returns how many. */
export async function deleteJobTracks(tx: Sql, jobIds: string[]): Promise<number> {
  if (!jobIds.length) return 0;
  return (await tx.query(`${deleteTrack.text} returning 1`, [jobIds])).length;
}

/** JSON kept about a booking or an order, table by table: where to find it, and which columns hold it. */
export const ERASABLE_JSON = {
  quotes: { where: 'quote_id = any($1::text[])', columns: ['request', 'pickup', 'dropoff', 'declined'] },
  idempotency_keys: { where: 'booking_ref = $1', columns: ['response_body'], text: true },
  webhook_events: { where: 'booking_ref = $1', columns: ['payload'] },
  outbox_booking: { table: 'outbox', where: 'booking_ref = $1', columns: ['payload'] },
  outbox_order: { table: 'outbox', where: 'order_id = $1', columns: ['payload'] },
  marketplace_orders: { where: 'order_id = $1', columns: ['order'] },
  marketplace_seen_calls: { where: 'order_id = $1', columns: ['response_body'], text: true },
  price_marks: { where: 'price_mark = $1', columns: ['search'] },
} as const satisfies Record<string, { table?: string; where: string; columns: readonly string[]; text?: boolean }>;

export type ErasableJson = keyof typeof ERASABLE_JSON;

/**
 * Rewrites the JSON of one kind of row (`ERASABLE_JSON[kind]`, the rows `$1` names) with `rewrite`, which returns
 * its argument itself when there is nothing to change. Returns how many rows changed.
 */
export async function rewriteJson(tx: Sql, kind: ErasableJson, key: string | string[], rewrite: (value: unknown) => unknown): Promise<number> {
  const spec: { table?: string; where: string; columns: readonly string[]; text?: boolean } = ERASABLE_JSON[kind];
  const table = spec.table ?? kind;
  const cols = spec.columns.map((c) => `"${c}"`);
  const rows = await tx.query<Record<string, unknown>>(`select ctid::text as ctid, ${cols.join(', ')} from ${table} where ${spec.where} for update`, [key]);
  let changed = 0;
  for (const row of rows) {
    const sets: string[] = [];
    const values: unknown[] = [row.ctid];
    for (const c of spec.columns) {
      const stored = row[c];
      if (stored === null || stored === undefined) continue;
      const value = spec.text && typeof stored === 'string' ? (JSON.parse(stored) as unknown) : stored;
      const next = rewrite(value);
      if (next === value) continue;
      values.push(JSON.stringify(next));
      sets.push(`"${c}" = $${values.length}`);
    }
    if (!sets.length) continue;
    await tx.query(`update ${table} set ${sets.join(', ')} where ctid = $1::tid`, values);
    changed += 1;
  }
  return changed;
}

/** Bookings by reference, on any partner (the export: an operator's subject access request). */
export async function bookingsByRef(db: Sql, refs: string[]): Promise<Array<BookingRow & { quoteIds: string[]; jobIds: string[] }>> {
  if (!refs.length) return [];
  const rows = await db.query<BookingRow & { quoteIds: string[]; jobIds: string[] }>(
    `select ${bookingColumns('b')}, ${QUOTES_AND_JOBS}
     from bookings b where b.booking_ref = any($1::text[]) order by b.created_at, b.booking_ref`,
    [refs],
  );
  return rows.map((r) => ({ ...fromRow(r)!, quoteIds: r.quoteIds, jobIds: r.jobIds }));
}

export interface StoredOrder {
  orderId: string;
  state: string;
  order: unknown;
  createdAt: Date;
  erasedAt: Date | null;
  jobIds: string[];
}

/** Marketplace orders by id, as stored, with their jobs. */
export async function ordersById(db: Sql, ids: string[]): Promise<StoredOrder[]> {
  if (!ids.length) return [];
  return db.query<StoredOrder>(
    `select o.order_id as "orderId", o.state, o."order", o.created_at as "createdAt", o.erased_at as "erasedAt",
       coalesce((select array_agg(j.job_id::text) from jobs j where j.source = 'marketplace_order' and j.source_ref = o.order_id), '{}') as "jobIds"
     from marketplace_orders o where o.order_id = any($1::text[]) order by o.created_at, o.order_id`,
    [ids],
  );
}

/** The ride's positions still kept for these jobs, oldest first. */
export async function jobTracks(db: Sql, jobIds: string[]): Promise<Array<{ jobId: string; at: Date; lat: number; lon: number }>> {
  if (!jobIds.length) return [];
  return db.query(`select job_id::text as "jobId", at, lat, lon from job_locations where job_id = any($1::bigint[]) order by job_id, at`, [jobIds]);
}

/** The subject of the search a price mark was priced for (null for marks stored before subjects, or gone). */
export async function priceMarkSubject(db: Sql, priceMark: string): Promise<string | null> {
  const [row] = await db.query<{ subject: string | null }>(markSubject, [priceMark]);
  return row?.subject ?? null;
}
const markSubject = sql('select subject from price_marks where price_mark = $1');
