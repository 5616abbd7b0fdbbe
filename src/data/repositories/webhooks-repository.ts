import { sql, type Sql } from '../database';
import type { Write } from '../write';

export type Env = 'sandbox' | 'production';
export type EndpointStatus = 'enabled' | 'disabled' | 'deleted';

export interface EndpointRow {
  endpointId: string;
  partnerId: string;
  env: Env;
  url: string;
  events: string[];
  status: EndpointStatus;
  disabledReason: string | null;
  disabledAt: Date | null;
  failingSince: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

const endpointColumns = (a: string) =>
  `${a}.endpoint_id as "endpointId", ${a}.partner_id as "partnerId", ${a}.env, ${a}.url, ${a}.events, ${a}.status, ${a}.disabled_reason as "disabledReason",
   ${a}.disabled_at as "disabledAt", ${a}.failing_since as "failingSince", ${a}.created_at as "createdAt", ${a}.updated_at as "updatedAt"`;
const ENDPOINT = endpointColumns('webhook_endpoints');

export interface NewEndpoint {
  endpointId: string;
  partnerId: string;
  env: Env;
  url: string;
  events: string[];
  secret: string;
}

// Endpoint creation counts a partner's endpoints under a lock on (partner, env), taken by its own statement first, so
// the count that follows (a new statement, a new snapshot) sees every endpoint committed before it.
const lockEndpoints = sql(`select pg_advisory_xact_lock(hashtextextended('webhook_endpoints:' || $1 || ':' || $2, 0))`);
const insertEndpoint = sql(`
  insert into webhook_endpoints (endpoint_id, partner_id, env, url, events, secret, status, created_at, updated_at)
  select $1, $2, $3, $4, $5::text[], $6, 'enabled', $7, $7
  where (select count(*) from webhook_endpoints where partner_id = $2 and env = $3 and status <> 'deleted') < $8
  returning ${ENDPOINT}`);

/** Adds an endpoint in the caller's transaction, unless the partner already has `limit` in this environment. */
export async function createEndpoint(tx: Sql, e: NewEndpoint, now: Date, limit: number): Promise<EndpointRow | undefined> {
  await tx.query(lockEndpoints, [e.partnerId, e.env]);
  return (await tx.query<EndpointRow>(insertEndpoint, [e.endpointId, e.partnerId, e.env, e.url, e.events, e.secret, now, limit]))[0];
}

const byPartner = sql(`select ${ENDPOINT} from webhook_endpoints where partner_id = $1 and env = $2 and status <> 'deleted' order by created_at, endpoint_id`);

export async function listPartnerEndpoints(db: Sql, partnerId: string, env: Env): Promise<EndpointRow[]> {
  return db.query<EndpointRow>(byPartner, [partnerId, env]);
}

const oneOfPartner = sql(`select ${ENDPOINT} from webhook_endpoints where endpoint_id = $1 and partner_id = $2 and env = $3 and status <> 'deleted'`);
const oneOfPartnerLocked = sql(`${oneOfPartner.text} for no key update`);

/** A partner's endpoint in one environment (deleted ones are gone). */
export async function findPartnerEndpoint(db: Sql, endpointId: string, partnerId: string, env: Env, lock = false): Promise<EndpointRow | undefined> {
  return (await db.query<EndpointRow>(lock ? oneOfPartnerLocked : oneOfPartner, [endpointId, partnerId, env]))[0];
}

// Row locks on endpoints are NO KEY UPDATE: they never block the KEY SHARE lock a new delivery's foreign key takes
// (the booking's statement), only other writers of the endpoint.
const oneLocked = sql(`select ${ENDPOINT} from webhook_endpoints where endpoint_id = $1 for no key update`);

/**
 * Holds an endpoint's row for the transaction. Every writer locks an endpoint before its deliveries (the one lock
 * order: no deadlock between recording attempts and disabling the endpoint).
 */
export async function findEndpointForUpdate(tx: Sql, endpointId: string): Promise<EndpointRow | undefined> {
  return (await tx.query<EndpointRow>(oneLocked, [endpointId]))[0];
}

export interface EndpointQuery {
  partnerId?: string;
  env?: Env;
  status?: EndpointStatus;
  limit: number;
}

/** Operators: every endpoint (deleted ones too when asked), newest first. */
export async function listEndpoints(db: Sql, q: EndpointQuery): Promise<EndpointRow[]> {
  const query = db.knex('webhook_endpoints').select(db.knex.raw(ENDPOINT)).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'endpoint_id', order: 'desc' }]).limit(q.limit);
  if (q.partnerId) query.where('partner_id', q.partnerId);
  if (q.env) query.where('env', q.env);
  if (q.status) query.where('status', q.status);
  else query.whereNot('status', 'deleted');
  return query;
}

const setStatus = sql(`
  update webhook_endpoints set status = $2, disabled_reason = $3, disabled_at = case when $2 = 'disabled' then $4::timestamptz end,
    failing_since = case when $2 = 'enabled' then null else failing_since end, updated_at = $4
  where endpoint_id = $1
  returning ${ENDPOINT}`);

/** Enables, disables (with the reason) or deletes an endpoint. */
export async function setEndpointStatus(tx: Sql, endpointId: string, status: EndpointStatus, reason: string | null, now: Date): Promise<EndpointRow> {
  return (await tx.query<EndpointRow>(setStatus, [endpointId, status, reason, now]))[0];
}

const rotate = sql(`
  update webhook_endpoints set previous_secret = secret, previous_secret_expires_at = $3, secret = $2, updated_at = $4
  where endpoint_id = $1
  returning ${ENDPOINT}`);

/** The new secret signs from now on; the old one also signs until `previousUntil`. */
export async function rotateSecret(tx: Sql, endpointId: string, secret: string, previousUntil: Date, now: Date): Promise<EndpointRow> {
  return (await tx.query<EndpointRow>(rotate, [endpointId, secret, previousUntil, now]))[0];
}

const failPending = sql(`
  update outbox set status = 'failed', last_error = $2, locked_until = null, updated_at = $3
  where endpoint_id = $1 and status = 'pending'`);

/**
 * Deliveries still waiting for an endpoint that no longer receives: failed, with the reason (an operator may retry
 * them). The caller holds the endpoint's row (findEndpointForUpdate).
 */
export async function failPendingDeliveries(tx: Sql, endpointId: string, reason: string, now: Date): Promise<void> {
  await tx.query(failPending, [endpointId, reason, now]);
}

// ---- events ------------------------------------------------------------------------------------------------------

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

/** A delivery (outbox message of kind `webhook`) per endpoint of the event's partner and environment that `target` selects. */
const deliveries = (source: string, target: string, maxAttempts: string, now: string) => `
  insert into outbox (kind, payload, status, attempts, max_attempts, next_attempt_at, created_at, updated_at, event_id, endpoint_id)
  select 'webhook', '{}'::jsonb, 'pending', 0, ${maxAttempts}::int, ${now}::timestamptz, ${now}::timestamptz, ${now}::timestamptz, v.event_id, w.endpoint_id
  from ${source} v join webhook_endpoints w on w.partner_id = v.partner_id and w.env = v.env and w.status = 'enabled' and ${target}
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
      `event_in as (insert into webhook_events (event_id, partner_id, env, type, booking_ref, sequence, payload, created_at) select ${EVENT_VALUES}${after ? ` from ${after}` : ''} returning event_id, partner_id, env, type)`,
      `event_out as (${deliveries('event_in', SUBSCRIBED, '$9', '$8')})`,
    ],
    params: [...eventParams(e), maxAttempts],
  };
}

const insertEventStmt = (target: string) =>
  sql(`
  with event_in as (insert into webhook_events (event_id, partner_id, env, type, booking_ref, sequence, payload, created_at) values (${EVENT_VALUES}) returning event_id, partner_id, env, type),
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
  with event as (select event_id, partner_id, env, type from webhook_events where event_id = $1)
  ${deliveries('event', target, '$2', '$3')}`);
const redeliverToSubscribers = redeliverTo(SUBSCRIBED);
const redeliverToEndpoint = redeliverTo('w.endpoint_id = $4');

/** New deliveries of a stored event: to every subscribed endpoint, or to the one named. */
export async function enqueueDeliveries(tx: Sql, eventId: string, maxAttempts: number, now: Date, endpointId?: string): Promise<Array<{ id: string; endpointId: string }>> {
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

// ---- delivery ----------------------------------------------------------------------------------------------------

export interface DeliveryTarget {
  eventId: string;
  partnerId: string;
  env: Env;
  type: string;
  payload: string;
  url: string;
  status: EndpointStatus;
  /** The secrets that sign now: the current one, and the previous one until it expires. */
  secrets: string[];
}

const target = sql(`
  select e.event_id as "eventId", e.partner_id as "partnerId", e.env, e.type, e.payload::text as payload, w.url, w.status,
         array_remove(array[w.secret, case when w.previous_secret_expires_at > $3 then w.previous_secret end], null) as secrets
  from webhook_events e, webhook_endpoints w
  where e.event_id = $1 and w.endpoint_id = $2`);

export async function deliveryTarget(db: Sql, eventId: string, endpointId: string, now: Date): Promise<DeliveryTarget | undefined> {
  return (await db.query<DeliveryTarget>(target, [eventId, endpointId, now]))[0];
}

const recovered = sql(`update webhook_endpoints set failing_since = null where endpoint_id = $1 and failing_since is not null`);

/** A delivery succeeded: the endpoint is not failing (any more). */
export async function endpointSucceeded(tx: Sql, endpointId: string): Promise<void> {
  await tx.query(recovered, [endpointId]);
}

const failed = sql(`
  update webhook_endpoints w set
    failing_since = coalesce(w.failing_since, $2),
    status = case when w.status = 'enabled' and coalesce(w.failing_since, $2) <= $3 then 'disabled' else w.status end,
    disabled_at = case when w.status = 'enabled' and coalesce(w.failing_since, $2) <= $3 then $2 else w.disabled_at end,
    disabled_reason = case when w.status = 'enabled' and coalesce(w.failing_since, $2) <= $3 then $4 else w.disabled_reason end,
    updated_at = $2
  from (select endpoint_id, status from webhook_endpoints where endpoint_id = $1 for no key update) old
  where w.endpoint_id = old.endpoint_id
  returning ${endpointColumns('w')}, (old.status = 'enabled' and w.status = 'disabled') as "disabledNow"`);

/**
 * A delivery failed: the endpoint has been failing since its first failure after a success. Failing since
 * `disableIfFailingSince` or earlier, an enabled endpoint is disabled now with `reason` (`disabledNow`).
 */
export async function endpointFailed(tx: Sql, endpointId: string, now: Date, disableIfFailingSince: Date, reason: string): Promise<EndpointRow & { disabledNow: boolean }> {
  return (await tx.query<EndpointRow & { disabledNow: boolean }>(failed, [endpointId, now, disableIfFailingSince, reason]))[0];
}
