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
}

const COLUMNS = `id::text as id, kind, order_id as "orderId", payload, dedupe_key as "dedupeKey", status, attempts, max_attempts as "maxAttempts",
  next_attempt_at as "nextAttemptAt", locked_until as "lockedUntil", last_status as "lastStatus", last_error as "lastError",
  created_at as "createdAt", updated_at as "updatedAt", delivered_at as "deliveredAt"`;

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

const claim = sql(`
  update outbox set locked_until = $2, attempts = attempts + 1, updated_at = $1
  where id in (
    select id from outbox
    where status = 'pending' and next_attempt_at <= $1 and (locked_until is null or locked_until < $1)
    order by id limit $3
    for update skip locked)
  returning id::text as id, kind, payload, attempts, max_attempts as "maxAttempts"`);

export interface ClaimedRow {
  id: string;
  kind: string;
  payload: Record<string, unknown>;
  attempts: number;
  maxAttempts: number;
}

/** One short statement: due messages are leased (locked_until) and their attempt counted before anything is sent. */
export async function claimDue(db: Sql, now: Date, leaseUntil: Date, limit: number): Promise<ClaimedRow[]> {
  return db.query<ClaimedRow>(claim, [now, leaseUntil, limit]);
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
  status?: OutboxStatus;
  orderId?: string;
}

/** Newest first. */
export async function listMessages(db: Sql, q: OutboxQuery): Promise<OutboxRow[]> {
  const query = db.knex('outbox').select(db.knex.raw(COLUMNS)).orderBy('id', 'desc').limit(q.limit);
  if (q.status) query.where('status', q.status);
  if (q.orderId) query.where('order_id', q.orderId);
  return query;
}

const lockOne = sql(`select ${COLUMNS} from outbox where id = $1 for update`);
const makeDue = sql(`update outbox set status = 'pending', next_attempt_at = $2, updated_at = $2 where id = $1 returning ${COLUMNS}`);

export async function findMessageForUpdate(tx: Sql, id: string): Promise<OutboxRow | undefined> {
  return (await tx.query<OutboxRow>(lockOne, [id]))[0];
}

export async function makeMessageDue(tx: Sql, id: string, now: Date): Promise<OutboxRow> {
  return (await tx.query<OutboxRow>(makeDue, [id, now]))[0];
}
