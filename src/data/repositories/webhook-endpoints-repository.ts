/**
 * Partners' webhook endpoints: registering, listing, enabling, disabling, deleting and rotating their secrets, and
 * what deliveries to an endpoint need of it: where a delivery goes and signs with, the waiting deliveries an endpoint
 * that stops receiving leaves failed, and the endpoint's health after each attempt (failing since, disabled after
 * failing too long). The events and the deliveries they enqueue: webhook-events-repository.ts.
 */
import { sql, type Sql } from '../database';

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
  const query = db
    .knex('webhook_endpoints')
    .select(db.knex.raw(ENDPOINT))
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'endpoint_id', order: 'desc' },
    ])
    .limit(q.limit);
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

// ---- delivery ----------------------------------------------------------------------------------------------------

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
export async function endpointFailed(
  tx: Sql,
  endpointId: string,
  now: Date,
  disableIfFailingSince: Date,
  reason: string,
): Promise<EndpointRow & { disabledNow: boolean }> {
  return (await tx.query<EndpointRow & { disabledNow: boolean }>(failed, [endpointId, now, disableIfFailingSince, reason]))[0];
}
