/**
 * Webhook events: written with the change they tell of (one statement), each with a delivery (outbox message of kind
 * `webhook`) per subscribed endpoint; read back and listed by partners; redelivered; purged after retention. The
 * endpoints themselves: webhook-endpoints-repository.ts.
 */
import { sql, type Sql } from '../database';
import type { Write } from '../write';
import type { Env } from './webhook-endpoints-repository';

export interface NewEvent {
  eventId: string;
  partnerId: string;
  env: Env;
  type: string;
  bookingRef: string | null;
  sequence: number | null;
  /** The JSON body delivered, as sent (and as GET /events returns it). */
  payload: string;
  createdAt: Date;
}

const EVENT_VALUES = '$1::text, $2::text, $3::text, $4::text, $5::text, $6::int, $7::json, $8::timestamptz';
const eventParams = (e: NewEvent) => [e.eventId, e.partnerId, e.env, e.type, e.bookingRef, e.sequence, e.payload, e.createdAt];

/**
 * Deliveries waiting for one endpoint, at most. An event for an endpoint that has this many waiting is still
 * written (and listed by GET /events), and its delivery recorded, but `failed` at once, never tried, with the reason
 * (an operator may retry it): the change that caused the event is never refused for it, and one receiver that is
 * down cannot make the outbox grow without bound. Test pings and redeliveries are refused (429) instead.
 */
export const MAX_PENDING_PER_ENDPOINT = 1000;
export const NOT_QUEUED = `not queued: ${MAX_PENDING_PER_ENDPOINT} deliveries were already waiting for this endpoint (the limit); the event is listed by GET /events`;

/**
 * A delivery (outbox message of kind `webhook`) per endpoint of the event's partner and environment that `target`
 * selects, carrying the event's booking and sequence: the claim delivers a booking's events to an endpoint in order.
 * To an endpoint with MAX_PENDING_PER_ENDPOINT deliveries waiting, the delivery is recorded failed (NOT_QUEUED).
 */
const deliveries = (source: string, target: string, maxAttempts: string, now: string) => `
  insert into outbox (kind, payload, status, attempts, max_attempts, next_attempt_at, created_at, updated_at, event_id, endpoint_id, booking_ref, sequence,
    last_error)
  select 'webhook', '{}'::jsonb, case when q.at_cap then 'failed' else 'pending' end, 0, ${maxAttempts}::int, ${now}::timestamptz, ${now}::timestamptz,
    ${now}::timestamptz, v.event_id, w.endpoint_id, v.booking_ref, v.sequence, case when q.at_cap then '${NOT_QUEUED}' end
  from ${source} v join webhook_endpoints w on w.partner_id = v.partner_id and w.env = v.env and w.status = 'enabled' and ${target}
  cross join lateral (
    select count(*) >= ${MAX_PENDING_PER_ENDPOINT} as at_cap
    from (select 1 from outbox p where p.endpoint_id = w.endpoint_id and p.status = 'pending' limit ${MAX_PENDING_PER_ENDPOINT}) p) q
  returning id::text as id, endpoint_id as "endpointId"`;

const SUBSCRIBED = 'v.type = any (w.events)';

/**
 * The event of a booking's change, with a delivery to each enabled endpoint of the booking's partner and environment
 * subscribed to its type, as part of the change's own one-statement write: with `after`, only if that CTE produced
 * a row (the booking).
 */
export function eventWrite(e: NewEvent, maxAttempts: number, after?: string): Write {
  return {
    ctes: [
      `event_in as (insert into webhook_events (event_id, partner_id, env, type, booking_ref, sequence, payload, created_at) select ${EVENT_VALUES}${after ? ` from ${after}` : ''} returning event_id, partner_id, env, type, booking_ref, sequence)`,
      `event_out as (${deliveries('event_in', SUBSCRIBED, '$9', '$8')})`,
    ],
    params: [...eventParams(e), maxAttempts],
  };
}

const insertEventStmt = (target: string) =>
  sql(`
  with event_in as (insert into webhook_events (event_id, partner_id, env, type, booking_ref, sequence, payload, created_at) values (${EVENT_VALUES}) returning event_id, partner_id, env, type, booking_ref, sequence),
  event_out as (${deliveries('event_in', target, '$9', '$8')})
  select id, "endpointId" from event_out`);
const insertToSubscribers = insertEventStmt(SUBSCRIBED);
const insertToEndpoint = insertEventStmt('w.endpoint_id = $10');

/**
 * An event and its deliveries in one statement (in the caller's transaction): to every subscribed endpoint, or to
 * the one named (a test ping). Returns the deliveries enqueued.
 */
export async function insertEvent(tx: Sql, e: NewEvent, maxAttempts: number, endpointId?: string): Promise<Array<{ id: string; endpointId: string }>> {
  return endpointId
    ? tx.query(insertToEndpoint, [...eventParams(e), maxAttempts, endpointId])
    : tx.query(insertToSubscribers, [...eventParams(e), maxAttempts]);
}

const redeliverTo = (target: string) =>
  sql(`
  with event as (select event_id, partner_id, env, type, booking_ref, sequence from webhook_events where event_id = $1)
  ${deliveries('event', target, '$2', '$3')}`);
const redeliverToSubscribers = redeliverTo(SUBSCRIBED);
const redeliverToEndpoint = redeliverTo('w.endpoint_id = $4');

/** New deliveries of a stored event: to every subscribed endpoint, or to the one named. */
export async function enqueueDeliveries(
  tx: Sql,
  eventId: string,
  maxAttempts: number,
  now: Date,
  endpointId?: string,
): Promise<Array<{ id: string; endpointId: string }>> {
  return endpointId ? tx.query(redeliverToEndpoint, [eventId, maxAttempts, now, endpointId]) : tx.query(redeliverToSubscribers, [eventId, maxAttempts, now]);
}

export interface EventRow {
  eventId: string;
  type: string;
  /** The body as delivered (JSON text). */
  payload: string;
}

const eventQuery = `select event_id as "eventId", type, payload::text as payload from webhook_events where event_id = $1 and partner_id = $2 and env = $3`;
const oneEvent = sql(eventQuery);
const oneEventKept = sql(`${eventQuery} for key share`);

/**
 * A partner's event. With `keep`, the row is locked against deletion until the caller's transaction ends (for a
 * redelivery, which then adds rows that reference it): the retention pass skips it, or has already taken it.
 */
export async function findEvent(db: Sql, eventId: string, partnerId: string, env: Env, keep = false): Promise<EventRow | undefined> {
  return (await db.query<EventRow>(keep ? oneEventKept : oneEvent, [eventId, partnerId, env]))[0];
}

// Events written before the cutoff, none of whose deliveries is still pending, with their deliveries, in batches of
// 5,000 (oldest first). Rows locked by a redelivery in progress are skipped, and left for the next pass. The
// foreign key from outbox to the event is checked at the end of the statement, when both are gone.
const purgeEvents = sql(`
  with old as (
    select e.event_id from webhook_events e
    where e.created_at < $1 and not exists (select 1 from outbox o where o.event_id = e.event_id and o.status = 'pending')
    order by e.created_at
    limit 5000
    for update of e skip locked
  ),
  deliveries as (delete from outbox o using old where o.event_id = old.event_id returning 1),
  events as (delete from webhook_events e using old where e.event_id = old.event_id returning 1)
  select (select count(*) from events)::int as events, (select count(*) from deliveries)::int as deliveries`);

/** Purges events written before `cutoff` and their deliveries (none still pending); returns the counts. */
export async function purgeEventsBefore(db: Sql, cutoff: Date): Promise<{ events: number; deliveries: number }> {
  const total = { events: 0, deliveries: 0 };
  for (;;) {
    const [n] = await db.query<{ events: number; deliveries: number }>(purgeEvents, [cutoff]);
    total.events += n.events;
    total.deliveries += n.deliveries;
    if (n.events < 5000) return total;
  }
}

const cursorOf = sql(`select tx::text as tx, id::text as id from webhook_events where event_id = $1 and partner_id = $2 and env = $3`);

/** Where an event stands in its partner's list (for `after`). */
export async function eventPosition(db: Sql, eventId: string, partnerId: string, env: Env): Promise<{ tx: string; id: string } | undefined> {
  return (await db.query<{ tx: string; id: string }>(cursorOf, [eventId, partnerId, env]))[0];
}

// Only events whose transaction is older than every transaction still running (pg_snapshot_xmin): an event committed
// later can then never sort before one already listed, so a cursor (tx, id) skips nothing.
const listStmt = (typed: boolean, after: boolean) =>
  sql(`
  select e.event_id as "eventId", e.type, e.payload::text as payload from webhook_events e
  where e.partner_id = $1 and e.env = $2 and e.tx < pg_snapshot_xmin(pg_current_snapshot())
    ${typed ? 'and e.type = $4' : ''} ${after ? `and (e.tx, e.id) > ($${typed ? 5 : 4}::xid8, $${typed ? 6 : 5}::bigint)` : ''}
  order by e.tx, e.id
  limit $3`);
const LIST = [listStmt(false, false), listStmt(true, false), listStmt(false, true), listStmt(true, true)];

/** A partner's events in one environment, in the order they were written, after a position. */
export async function listEvents(
  db: Sql,
  q: { partnerId: string; env: Env; type?: string; after?: { tx: string; id: string }; limit: number },
): Promise<EventRow[]> {
  const stmt = LIST[(q.type ? 1 : 0) + (q.after ? 2 : 0)];
  const params: unknown[] = [q.partnerId, q.env, q.limit];
  if (q.type) params.push(q.type);
  if (q.after) params.push(q.after.tx, q.after.id);
  return db.query<EventRow>(stmt, params);
}

export interface BookingEventRow {
  eventId: string;
  type: string;
  sequence: number;
  createdAt: Date;
}

const ofBooking = sql(`
  select event_id as "eventId", type, sequence, created_at as "createdAt" from webhook_events
  where partner_id = $1 and env = $2 and booking_ref = $3 and booking_ref is not null
  order by sequence`);

/** A booking's events, in sequence. */
export async function bookingEvents(db: Sql, scope: { partnerId: string; env: Env }, bookingRef: string): Promise<BookingEventRow[]> {
  return db.query<BookingEventRow>(ofBooking, [scope.partnerId, scope.env, bookingRef]);
}

/** A webhook delivery as its partner sees it. */
export interface DeliveryRow {
  id: string;
  endpointId: string;
  eventId: string;
  type: string;
  bookingRef: string | null;
  sequence: number | null;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  nextAttemptAt: Date;
  deliveredAt: Date | null;
  createdAt: Date;
}

export interface DeliveryQuery {
  limit: number;
  before?: string;
  endpointId?: string;
  eventIds?: readonly string[];
  status?: 'pending' | 'delivered' | 'failed';
}

/**
 * A partner's deliveries in one environment, newest first: through its endpoints (a handful) to their deliveries
 * (outbox_endpoint_id_index), or those of some events (outbox_event_id_index).
 */
export async function listDeliveries(db: Sql, scope: { partnerId: string; env: Env }, q: DeliveryQuery): Promise<DeliveryRow[]> {
  const k = db.knex;
  const query = k('outbox as o')
    .join('webhook_endpoints as w', 'w.endpointId', 'o.endpointId')
    .join('webhook_events as e', 'e.eventId', 'o.eventId')
    .select(
      k.raw(`o.id::text as id, o.endpoint_id as "endpointId", o.event_id as "eventId", e.type, o.booking_ref as "bookingRef", o.sequence, o.status,
        o.attempts, o.last_status as "lastStatus", o.last_error as "lastError", o.next_attempt_at as "nextAttemptAt", o.delivered_at as "deliveredAt",
        o.created_at as "createdAt"`),
    )
    .where({ 'o.kind': 'webhook', 'w.partnerId': scope.partnerId, 'w.env': scope.env })
    .orderBy('o.id', 'desc')
    .limit(q.limit);
  if (q.before) query.where('o.id', '<', q.before);
  if (q.endpointId) query.where('o.endpointId', q.endpointId);
  if (q.eventIds) query.whereIn('o.eventId', q.eventIds);
  if (q.status) query.where('o.status', q.status);
  return (await query) as DeliveryRow[];
}
