import { sql, type Sql } from '../database';

export type OutboxStatus = 'pending' | 'delivered' | 'failed';

export interface OutboxRow {
  id: string;
  kind: string;
  orderId: string | null;
  payload: Record<string, unknown>;
  dedupeKey: string | null;
  status: OutboxStatus;
  attempts: number;
  maxAttempts: number;
  nextAttemptAt: Date;
  lockedUntil: Date | null;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: Date;
  updatedAt: Date;
  deliveredAt: Date | null;
  /** A webhook delivery's endpoint and event (null for marketplace calls). */
  webhook: {
    endpoint_id: string;
    url: string;
    partner_id: string;
    env: 'sandbox' | 'production';
    event_id: string;
    event_type: string;
    booking_ref: string | null;
  } | null;
}

const COLUMNS = `o.id::text as id, o.kind, o.order_id as "orderId", o.payload, o.dedupe_key as "dedupeKey", o.status, o.attempts, o.max_attempts as "maxAttempts",
  o.next_attempt_at as "nextAttemptAt", o.locked_until as "lockedUntil", o.last_status as "lastStatus", o.last_error as "lastError",
  o.created_at as "createdAt", o.updated_at as "updatedAt", o.delivered_at as "deliveredAt",
  case when o.endpoint_id is null then null else json_build_object('endpoint_id', o.endpoint_id, 'url', w.url, 'partner_id', w.partner_id, 'env', w.env,
    'event_id', o.event_id, 'event_type', e.type, 'booking_ref', e.booking_ref) end as webhook`;
const JOINS = 'left join webhook_endpoints w on w.endpoint_id = o.endpoint_id left join webhook_events e on e.event_id = o.event_id';
const FROM = `outbox o ${JOINS}`;

export interface NewMessage {
  kind: string;
  orderId: string | null;
  payload: Record<string, unknown>;
  dedupeKey: string | null;
  maxAttempts: number;
}

const enqueue = sql(`
  with ins as (
    insert into outbox (kind, order_id, payload, dedupe_key, status, attempts, max_attempts, next_attempt_at, created_at, updated_at)
    values ($1, $2, $3::jsonb, $4, 'pending', 0, $5, $6, $6, $6)
    on conflict (dedupe_key) do nothing
    returning id)
  select id::text as id, true as enqueued from ins
  union all
  select id::text, false from outbox where dedupe_key = $4 and not exists (select 1 from ins)`);

/**
 * Adds a message in the caller's transaction (it commits or rolls back with the state change that causes it).
 * With a dedupe key already used, nothing is inserted and the existing message's id is returned.
 */
export async function enqueueMessage(tx: Sql, m: NewMessage, now: Date): Promise<{ id: string; enqueued: boolean }> {
  const rows = await tx.query<{ id: string; enqueued: boolean }>(enqueue, [m.kind, m.orderId, JSON.stringify(m.payload), m.dedupeKey, m.maxAttempts, now]);
  return rows[0];
}

const latest = sql(`
  with superseded as (
    delete from outbox
    where kind = $1 and order_id = $2 and dedupe_key <> $4 and status = 'pending' and (locked_until is null or locked_until < $6))
  insert into outbox (kind, order_id, payload, dedupe_key, status, attempts, max_attempts, next_attempt_at, created_at, updated_at)
  values ($1, $2, $3::jsonb, $4, 'pending', 0, $5, $6, $6, $6)
  on conflict (dedupe_key) do update set payload = excluded.payload, updated_at = excluded.updated_at
    where outbox.status = 'pending' and outbox.attempts = 0 and (outbox.locked_until is null or outbox.locked_until < excluded.updated_at)
  returning id::text as id`);

/**
 * For a stream where only the newest matters (driver positions): adds a message, or replaces the payload of the one
 * with the same dedupe key while it has not been tried yet; once tried, a newer one under the same key is dropped.
 * Older messages of the same kind for the same order still waiting are superseded (removed unsent), so an outage
 * leaves one position waiting per order, not a backlog of stale ones.
 */
export async function enqueueOrReplace(tx: Sql, m: NewMessage, now: Date): Promise<{ id: string } | undefined> {
  return (await tx.query<{ id: string }>(latest, [m.kind, m.orderId, JSON.stringify(m.payload), m.dedupeKey, m.maxAttempts, now]))[0];
}

/** What a claim returns of each message it leased (webhook-delivery-repository's claim too). */
export const CLAIMED = `id::text as id, kind, payload, attempts, max_attempts as "maxAttempts", event_id as "eventId", endpoint_id as "endpointId",
  locked_until as "leaseUntil"`;

// A webhook delivery waits while an earlier event of its booking (lower sequence; a redelivery of the same one
// sent earlier) is still pending for the same endpoint: being tried, or waiting for its retry. Delivered or given up
// (failed), it no longer holds the next one back. The probe reads the statement's snapshot: an earlier delivery
// whose outcome commits meanwhile is seen pending, so the next one waits for the following pass, never the reverse.
const claim = sql(`
  update outbox set locked_until = $2, attempts = attempts + 1, updated_at = $1
  where id in (
    select o.id from outbox o
    where o.status = 'pending' and o.next_attempt_at <= $1 and (o.locked_until is null or o.locked_until < $1) and o.kind = any ($4::text[])
      and o.id <> all ($5::bigint[])
      and (o.booking_ref is null or not exists (
        select 1 from outbox e
        where e.endpoint_id = o.endpoint_id and e.booking_ref = o.booking_ref and e.status = 'pending'
          and (e.sequence < o.sequence or (e.sequence = o.sequence and e.id < o.id))))
    order by o.id limit $3
    for update of o skip locked)
  returning ${CLAIMED}`);

export interface ClaimedRow {
  id: string;
  kind: string;
  payload: Record<string, unknown>;
  attempts: number;
  maxAttempts: number;
  eventId: string | null;
  endpointId: string | null;
  leaseUntil: Date;
}

/**
 * One short statement: due messages of these kinds (but those in `exclude`) are leased (locked_until) and their
 * attempt counted before anything is sent.
 */
export async function claimDue(
  db: Sql,
  now: Date,
  leaseUntil: Date,
  limit: number,
  kinds: readonly string[],
  exclude: readonly string[] = [],
): Promise<ClaimedRow[]> {
  return db.query<ClaimedRow>(claim, [now, leaseUntil, limit, kinds, exclude]);
}

export type Outcome =
  | { status: 'delivered'; deliveredAt: Date; lastStatus: number | null }
  | { status: 'failed'; lastStatus: number | null; lastError: string }
  | { status: 'pending'; nextAttemptAt: Date; lastStatus: number | null; lastError: string };

const record = sql(`
  update outbox set status = $3, delivered_at = $4, next_attempt_at = coalesce($5, next_attempt_at), last_status = $6, last_error = $7,
    locked_until = null, updated_at = $8
  where id = $1 and attempts = $2 and status = 'pending'
  returning 1`);

/**
 * Records an attempt's outcome, fenced on the attempt number: if the lease expired and another worker claimed the
 * message meanwhile, its claim wins and this returns false.
 */
export async function recordOutcome(tx: Sql, id: string, attempt: number, o: Outcome, now: Date): Promise<boolean> {
  const rows = await tx.query(record, [
    id,
    attempt,
    o.status,
    o.status === 'delivered' ? o.deliveredAt : null,
    o.status === 'pending' ? o.nextAttemptAt : null,
    o.lastStatus,
    o.status === 'delivered' ? null : o.lastError,
    now,
  ]);
  return rows.length > 0;
}

export interface OutboxQuery {
  limit: number;
  /** A status, or `retrying` (pending after a failed attempt), or `attention` (failed or retrying). */
  status?: OutboxStatus | 'retrying' | 'attention';
  orderId?: string;
  kind?: string;
  partnerId?: string;
  endpointId?: string;
  eventId?: string;
}

const RETRYING = `(o.status = 'pending' and o.last_error is not null)`;

/** Newest first. */
export async function listMessages(db: Sql, q: OutboxQuery): Promise<OutboxRow[]> {
  const where: string[] = [];
  const values: unknown[] = [];
  const add = (clause: string, value: unknown) => {
    values.push(value);
    where.push(clause.replace('?', `$${values.length}`));
  };
  if (q.status === 'retrying') where.push(RETRYING);
  else if (q.status === 'attention') where.push(`(o.status = 'failed' or ${RETRYING})`);
  else if (q.status) add('o.status = ?', q.status);
  if (q.orderId) add('o.order_id = ?', q.orderId);
  if (q.kind) add('o.kind = ?', q.kind);
  if (q.partnerId) add('w.partner_id = ?', q.partnerId);
  if (q.endpointId) add('o.endpoint_id = ?', q.endpointId);
  if (q.eventId) add('o.event_id = ?', q.eventId);
  values.push(q.limit);
  return db.query<OutboxRow>(
    sql(`select ${COLUMNS} from ${FROM}${where.length ? ` where ${where.join(' and ')}` : ''} order by o.id desc limit $${values.length}`),
    values,
  );
}

const one = sql(`select ${COLUMNS} from ${FROM} where o.id = $1`);
const lockOne = sql(`${one.text} for update of o`);
const makeDue = sql(`
  with o as (update outbox set status = 'pending', next_attempt_at = $2, updated_at = $2 where id = $1 returning *)
  select ${COLUMNS} from o ${JOINS}`);

export async function findMessage(db: Sql, id: string): Promise<OutboxRow | undefined> {
  return (await db.query<OutboxRow>(one, [id]))[0];
}

export async function findMessageForUpdate(tx: Sql, id: string): Promise<OutboxRow | undefined> {
  return (await tx.query<OutboxRow>(lockOne, [id]))[0];
}

export async function makeMessageDue(tx: Sql, id: string, now: Date): Promise<OutboxRow> {
  return (await tx.query<OutboxRow>(makeDue, [id, now]))[0];
}
