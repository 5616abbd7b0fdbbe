import { sql, type Sql } from '../database';
import { QUOTES_AND_JOBS } from './erasure-repository';

/**
 * The privacy retention pass (domain/privacy/retention.ts): its lease, what is due by kind, and the batches it
 * changes — travellers to erase, old positions and audit bodies, data keys left with nothing to open, and erased
 * bookings and orders deleted whole at the end of their financial retention. Every finder takes the cutoff (the
 * service's clock less the kind's retention) and a batch size. What an erasure itself changes: erasure-repository.ts.
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
