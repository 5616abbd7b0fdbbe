import { sql, type Sql } from '../database';
import { bookingColumns, fromRow, type BookingRow } from './booking-record';

/**
 * What an erasure changes, table by table (the map of where personal data lives is the domain's:
 * shared/personal-data). Rows keep their keys, amounts and times; personal values become null.
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

/** A booking's (alias b) quotes and jobs, as arrays. */
const QUOTES_AND_JOBS = `
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

/*
 * The privacy retention pass (domain/privacy/retention.ts): its lease, what is due by kind, and the batches it
 * changes. Every finder takes the cutoff (the service's clock less the kind's retention) and a batch size.
 */

/**
 * When a booking's ride ended (alias b): cancelled, completed or a no-show; a booking never closed (a sandbox booking
 * never advanced, a ride nobody finished) by its pickup time. The same expression as bookings_ride_ended_index.
 */
const BOOKING_ENDED = `case b.status when 'cancelled' then b.cancelled_at
  when 'completed' then coalesce(b.completed_at, b.pickup_at) when 'no_show' then coalesce(b.no_show_at, b.pickup_at) else b.pickup_at end`;
/** When a marketplace order (alias o) ended: its ride's pickup or its last change, whichever is later; null while open. */
const ORDER_ENDED = `case when o.state in ('completed', 'no_show') then greatest(o.pickup_at, o.updated_at)
  when o.state in ('cancelled', 'declined') then o.updated_at end`;

const claimPass = sql(`
  insert into privacy_passes as p (pass, holder, leased_until) values ($1, $2, $3::timestamptz + make_interval(secs => $4 / 1000.0))
  on conflict (pass) do update set holder = excluded.holder, leased_until = excluded.leased_until
    where p.leased_until <= $3
  returning pass`);

/** Takes the pass's lease for `leaseMs` in one statement, when no other instance holds it; false when one does. */
export async function claimPrivacyPass(db: Sql, pass: string, holder: string, now: Date, leaseMs: number): Promise<boolean> {
  return (await db.query(claimPass, [pass, holder, now, leaseMs])).length > 0;
}

const endPass = sql(`
  update privacy_passes set leased_until = $3, finished_at = coalesce($4, finished_at), failed_at = coalesce($5, failed_at)
  where pass = $1 and holder = $2`);

/** Gives the lease back, with when the pass last finished with nothing left due (`finishedAt`) or failed (`failedAt`). */
export async function endPrivacyPass(db: Sql, pass: string, holder: string, now: Date, o: { finishedAt?: Date; failedAt?: Date }): Promise<void> {
  await db.query(endPass, [pass, holder, now, o.finishedAt ?? null, o.failedAt ?? null]);
}

/** The bookings whose ride ended before `cutoff` and whose traveller's data is still there. */
const dueBookings = sql(`select b.booking_ref as ref from bookings b where b.erased_at is null and ${BOOKING_ENDED} < $1 order by b.booking_ref limit $2`);
export async function bookingsToErase(db: Sql, cutoff: Date, limit: number): Promise<string[]> {
  return (await db.query<{ ref: string }>(dueBookings, [cutoff, limit])).map((r) => r.ref);
}

/** The marketplace orders over (cancelled, declined, completed, a no-show) before `cutoff`, not yet erased. */
const dueOrders = sql(`select o.order_id as ref from marketplace_orders o where o.erased_at is null and ${ORDER_ENDED} < $1 order by o.order_id limit $2`);
export async function ordersToErase(db: Sql, cutoff: Date, limit: number): Promise<string[]> {
  return (await db.query<{ ref: string }>(dueOrders, [cutoff, limit])).map((r) => r.ref);
}

const oldPositions = sql(`
  delete from job_locations where ctid = any(array(select ctid from job_locations where at < $1 limit $2))
  returning 1`);
/** Deletes at most `limit` of the rides' positions older than `cutoff`; returns how many. */
export async function deletePositionsBefore(db: Sql, cutoff: Date, limit: number): Promise<number> {
  return (await db.query(oldPositions, [cutoff, limit])).length;
}

const oldJobPositions = sql(`
  update jobs set last_lat = null, last_lon = null, last_located_at = null
  where job_id in (select job_id from jobs where last_located_at < $1 limit $2)
  returning 1`);
const oldBookingPositions = sql(`
  update bookings set driver_location = null
  where booking_ref in (select b.booking_ref from bookings b
                        where b.driver_location is not null and (${BOOKING_ENDED} < $1 or b.driver_location ->> 'at' < $2) limit $3)
  returning 1`);
const oldPositionCalls = sql(`
  delete from outbox where id in (select id from outbox where kind = 'driver_location' and status <> 'pending' and created_at < $1 limit $2)
  returning 1`);

/**
 * Forgets at most `limit` last known positions older than `cutoff`: a job's (where its driver was last), a booking's
 * (the driver's position partners read, once its ride ended before `cutoff` or the position is that old), and the
 * positions sent on to the marketplace (its outbox messages, delivered or given up). Returns how many of each.
 */
export async function forgetLastPositionsBefore(db: Sql, cutoff: Date, limit: number): Promise<{ jobs: number; bookings: number; outbox: number }> {
  return {
    jobs: (await db.query(oldJobPositions, [cutoff, limit])).length,
    bookings: (await db.query(oldBookingPositions, [cutoff, cutoff.toISOString(), limit])).length,
    outbox: (await db.query(oldPositionCalls, [cutoff, limit])).length,
  };
}

/** A body as its digest, unless it is none or one already (the only change the audit log's trigger lets through). */
const EXPIRED = (c: string) => `case when ${c} is null or ${c} ? '$expired' then ${c} else audit_body_digest(${c}) end`;
const expireBodies = sql(`
  with due as (
    select id, at from audit_log
    where at < $1 and at >= $2::timestamptz and (at, id) > ($2::timestamptz, $3::bigint)
      and ((request_body is not null and not request_body ? '$expired') or (response_body is not null and not response_body ? '$expired'))
    order by at, id limit $4
  ), done as (
    update audit_log a set request_body = ${EXPIRED('a.request_body')}, response_body = ${EXPIRED('a.response_body')}
    from due where a.id = due.id and a.at = due.at
    returning 1
  )
  select (select count(*) from done)::int as n, last.at::text as at, last.id::text as id
  from (select at, id from due order by at desc, id desc limit 1) last`);

/** Where an expiry of audit bodies goes on from: the last row it changed (`at` as the database wrote it). */
export interface AuditCursor {
  at: string;
  id: string;
}

/**
 * Replaces the request and response bodies of at most `limit` audit rows written before `cutoff` (from `after` on,
 * in the order they were written) by their digests (`{"$expired": {"bytes", "sha256"}}`). Returns how many rows
 * changed, and where the next batch goes on from.
 */
export async function expireAuditBodies(db: Sql, cutoff: Date, after: AuditCursor, limit: number): Promise<{ changed: number; next: AuditCursor | undefined }> {
  const [row] = await db.query<{ n: number; at: string; id: string }>(expireBodies, [cutoff, after.at, after.id, limit]);
  return { changed: row?.n ?? 0, next: row ? { at: row.at, id: row.id } : undefined };
}

/** The `privacy_passes` row whose finished_at says how far the audit bodies are expired: every row written before it. */
const BODIES = 'audit_bodies';
const bodiesDone = sql(`select finished_at::text as at from privacy_passes where pass = '${BODIES}' and finished_at <= $1`);
const setBodiesDone = sql(`
  insert into privacy_passes as p (pass, holder, leased_until, finished_at)
  select '${BODIES}', $1, t, t from (select least($2::timestamptz, now() - interval '1 hour') as t) x
  on conflict (pass) do update set holder = excluded.holder, leased_until = excluded.leased_until, finished_at = excluded.finished_at`);

/** How far the audit bodies are all expired (a previous pass got there), when known and not past `cutoff`. */
export async function auditBodiesExpiredBefore(db: Sql, cutoff: Date): Promise<string | undefined> {
  const [row] = await db.query<{ at: string | null }>(bodiesDone, [cutoff]);
  return row?.at ?? undefined;
}

/**
 * Records that every audit body written before `cutoff` is expired (at most an hour before the database's own
 * time: a row is written at its transaction's start, so one still being written may be older than its commit).
 */
export async function setAuditBodiesExpiredBefore(db: Sql, holder: string, cutoff: Date): Promise<void> {
  await db.query(setBodiesDone, [holder, cutoff]);
}

const dueDayKeys = sql(`
  select subject from personal_data_keys
  where subject like 'day:%' and key is not null and substr(subject, 5) collate "C" < $1
  order by subject limit $2`);
/** The data keys of days before `day` (yyyy-mm-dd) still kept: what named no subject, sealed by the day it came. */
export async function dayKeysBefore(db: Sql, day: string, limit: number): Promise<string[]> {
  return (await db.query<{ subject: string }>(dueDayKeys, [day, limit])).map((r) => r.subject);
}

const orphanQuoteKeys = sql(`
  select k.subject from personal_data_keys k
  where k.subject like 'quote:%' and k.key is not null and k.created_at < $1
    and not exists (select 1 from quotes q where q.quote_id = substr(k.subject, 7))
  limit $2`);
/** Quotes' data keys made before `cutoff` whose quote is gone (purged unbooked, see retention.ts). */
export async function orphanedQuoteKeys(db: Sql, cutoff: Date, limit: number): Promise<string[]> {
  return (await db.query<{ subject: string }>(orphanQuoteKeys, [cutoff, limit])).map((r) => r.subject);
}

const orphanSearchKeys = sql(`
  select k.subject from personal_data_keys k
  where k.subject like 'search:%' and k.key is not null and k.created_at < $1
    and not exists (select 1 from price_marks m where m.subject = k.subject)
  limit $2`);
/** Marketplace searches' data keys made before `cutoff` whose price marks are gone (purged, see retention.ts). */
export async function orphanedSearchKeys(db: Sql, cutoff: Date, limit: number): Promise<string[]> {
  return (await db.query<{ subject: string }>(orphanSearchKeys, [cutoff, limit])).map((r) => r.subject);
}

const deleteKeyRows = sql('delete from personal_data_keys where subject = any($1::text[]) returning 1');
/**
 * Deletes the rows of these data keys, tombstones included (what they sealed can never be read again, and the
 * subjects are gone: a quote purged, a booking deleted). Returns how many.
 */
export async function deleteDataKeys(db: Sql, subjects: string[]): Promise<number> {
  return subjects.length ? (await db.query(deleteKeyRows, [subjects])).length : 0;
}

/** Erased bookings whose ride ended before `cutoff` (their financial retention). */
const expiredBookings = sql(
  `select b.booking_ref as ref from bookings b where b.erased_at is not null and ${BOOKING_ENDED} < $1 order by b.booking_ref limit $2`,
);
export async function bookingsToDelete(db: Sql, cutoff: Date, limit: number): Promise<string[]> {
  return (await db.query<{ ref: string }>(expiredBookings, [cutoff, limit])).map((r) => r.ref);
}

/** Erased marketplace orders that ended before `cutoff` (their financial retention). */
const expiredOrders = sql(
  `select o.order_id as ref from marketplace_orders o where o.erased_at is not null and ${ORDER_ENDED} < $1 order by o.order_id limit $2`,
);
export async function ordersToDelete(db: Sql, cutoff: Date, limit: number): Promise<string[]> {
  return (await db.query<{ ref: string }>(expiredOrders, [cutoff, limit])).map((r) => r.ref);
}

const bookingsGone = {
  lock: sql(`select b.booking_ref as "bookingRef", ${QUOTES_AND_JOBS} from bookings b where b.booking_ref = any($1::text[]) for update of b`),
  jobLocations: sql('delete from job_locations where job_id = any($1::bigint[]) returning 1'),
  jobs: sql('delete from jobs where job_id = any($1::bigint[]) returning 1'),
  outbox: sql(`
    delete from outbox where booking_ref = any($1::text[]) or event_id in (select event_id from webhook_events where booking_ref = any($1::text[]))
    returning 1`),
  webhookEvents: sql('delete from webhook_events where booking_ref = any($1::text[]) returning 1'),
  idempotencyKeys: sql('delete from idempotency_keys where booking_ref = any($1::text[]) returning 1'),
  bookings: sql('delete from bookings where booking_ref = any($1::text[]) returning 1'),
  // Offers go with their quote (on delete cascade); a quote another booking still names stays.
  quotes: sql(`
    delete from quotes q where q.quote_id = any($1::text[])
      and not exists (select 1 from bookings b where b.quote_id = q.quote_id or b.booked_quote_id = q.quote_id)
    returning 1`),
};

/**
 * Deletes erased bookings whole, with everything that names them: their jobs and the jobs' positions, webhook
 * events and their deliveries, stored replays, quotes (with their offers) and data keys (the booking's, its
 * quotes' and jobs'). Only erased bookings are deleted. The audit log keeps its rows (their months are dropped
 * whole, AUDIT_RETENTION_MONTHS). Returns how many rows, table by table.
 */
export async function deleteBookings(tx: Sql, refs: string[]): Promise<Record<string, number>> {
  if (!refs.length) return {};
  const rows = await tx.query<{ bookingRef: string; quoteIds: string[]; jobIds: string[] }>(bookingsGone.lock, [refs]);
  const found = rows.map((r) => r.bookingRef);
  const quoteIds = rows.flatMap((r) => r.quoteIds);
  const jobIds = rows.flatMap((r) => r.jobIds);
  const n = async (stmt: ReturnType<typeof sql>, param: unknown) => (await tx.query(stmt, [param])).length;
  return {
    job_locations: await n(bookingsGone.jobLocations, jobIds),
    jobs: await n(bookingsGone.jobs, jobIds),
    outbox: await n(bookingsGone.outbox, found),
    webhook_events: await n(bookingsGone.webhookEvents, found),
    idempotency_keys: await n(bookingsGone.idempotencyKeys, found),
    bookings: await n(bookingsGone.bookings, found),
    quotes: await n(bookingsGone.quotes, quoteIds),
    personal_data_keys: await deleteDataKeys(tx, [...found.map((r) => `booking:${r}`), ...quoteIds.map((q) => `quote:${q}`), ...jobIds.map((j) => `job:${j}`)]),
  };
}

const ordersGone = {
  lock: sql(`
    select o.order_id as "orderId",
      coalesce((select array_agg(j.job_id::text) from jobs j where j.source = 'marketplace_order' and j.source_ref = o.order_id), '{}') as "jobIds"
    from marketplace_orders o where o.order_id = any($1::text[]) for update of o`),
  outbox: sql('delete from outbox where order_id = any($1::text[]) returning 1'),
  seenCalls: sql('delete from marketplace_seen_calls where order_id = any($1::text[]) returning 1'),
  orders: sql('delete from marketplace_orders where order_id = any($1::text[]) returning 1'),
};

/**
 * Deletes erased marketplace orders whole: their jobs and positions, the calls owed or made about them, the calls
 * seen from the marketplace, and their data keys (the order's and its jobs'). Returns how many rows, table by table.
 */
export async function deleteOrders(tx: Sql, ids: string[]): Promise<Record<string, number>> {
  if (!ids.length) return {};
  const rows = await tx.query<{ orderId: string; jobIds: string[] }>(ordersGone.lock, [ids]);
  const found = rows.map((r) => r.orderId);
  const jobIds = rows.flatMap((r) => r.jobIds);
  const n = async (stmt: ReturnType<typeof sql>, param: unknown) => (await tx.query(stmt, [param])).length;
  return {
    job_locations: await n(bookingsGone.jobLocations, jobIds),
    jobs: await n(bookingsGone.jobs, jobIds),
    outbox: await n(ordersGone.outbox, found),
    marketplace_seen_calls: await n(ordersGone.seenCalls, found),
    marketplace_orders: await n(ordersGone.orders, found),
    personal_data_keys: await deleteDataKeys(tx, [...found.map((o) => `order:${o}`), ...jobIds.map((j) => `job:${j}`)]),
  };
}
