import { sql, type Sql, type Tx } from '../database';
import { isLockTimeout } from '../errors';
import type { Write } from '../write';

export interface IdempotencyScope {
  partnerId: string;
  env: 'sandbox' | 'production';
  operation: string;
  key: string;
}

export interface StoredResponse {
  fingerprint: string;
  /** Null while the first request is still deciding (its claim is uncommitted to everyone else). */
  responseStatus: number | null;
  responseBody: string | null;
  requestId: string;
}

export interface Completion {
  status: number;
  body: string;
  bookingRef: string | null;
  expiresAt: Date;
}

const scopeParams = (s: IdempotencyScope) => [s.partnerId, s.env, s.operation, s.key];

const read = sql(`
  select fingerprint, response_status as "responseStatus", response_body as "responseBody", request_id as "requestId"
  from idempotency_keys where partner_id = $1 and env = $2 and operation = $3 and idempotency_key = $4`);

export async function findStored(db: Sql, scope: IdempotencyScope): Promise<StoredResponse | undefined> {
  return (await db.query<StoredResponse>(read, scopeParams(scope)))[0];
}

/**
 * The key with its outcome, as part of a one-statement write. A plain insert: if another request stored this key
 * first, the whole statement fails on the primary key and nothing of it counts. With `after`, the key is stored only
 * if that CTE produced a row (the booking it answers).
 */
export function storeWrite(scope: IdempotencyScope, fingerprint: string, requestId: string, now: Date, done: Completion, after?: string): Write {
  const values = '$1::text, $2::text, $3::text, $4::text, $5::text, $6::int, $7::text, $8::text, $9::text, $10::timestamptz, $11::timestamptz';
  return {
    ctes: [
      `key_in as (insert into idempotency_keys (partner_id, env, operation, idempotency_key, fingerprint, response_status, response_body, request_id, booking_ref, created_at, expires_at)
        select ${values}${after ? ` from ${after}` : ''} returning 1)`,
    ],
    params: [...scopeParams(scope), fingerprint, done.status, done.body, requestId, done.bookingRef, now, done.expiresAt],
  };
}

const claim = sql(`
  insert into idempotency_keys (partner_id, env, operation, idempotency_key, fingerprint, request_id, created_at, expires_at)
  values ($1, $2, $3, $4, $5, $6, $7, $8)
  on conflict (partner_id, env, operation, idempotency_key) do nothing
  returning 1`);

/**
 * Claims the key in the caller's transaction. A concurrent request with the same key blocks on the primary key
 * until the first commits (then this returns 'taken') or rolls back (then this claims it); past lock_timeout the
 * answer is 'busy'.
 */
export async function claimKey(
  tx: Tx,
  scope: IdempotencyScope,
  fingerprint: string,
  requestId: string,
  now: Date,
  expiresAt: Date,
): Promise<'claimed' | 'taken' | 'busy'> {
  try {
    // In a savepoint: a lock timeout aborts only it, and the request's transaction goes on to record the answer.
    const rows = await tx.savepoint((sp) => sp.query(claim, [...scopeParams(scope), fingerprint, requestId, now, expiresAt]));
    return rows.length ? 'claimed' : 'taken';
  } catch (e) {
    if (isLockTimeout(e)) return 'busy';
    throw e;
  }
}

const complete = sql(`
  update idempotency_keys set response_status = $5, response_body = $6, booking_ref = $7, expires_at = $8
  where partner_id = $1 and env = $2 and operation = $3 and idempotency_key = $4`);

export async function completeKey(tx: Sql, scope: IdempotencyScope, done: Completion): Promise<void> {
  await tx.query(complete, [...scopeParams(scope), done.status, done.body, done.bookingRef, done.expiresAt]);
}

const release = sql('delete from idempotency_keys where partner_id = $1 and env = $2 and operation = $3 and idempotency_key = $4');

/** Gives the key back (its outcome is not to be replayed, e.g. a 400). */
export async function releaseKey(tx: Sql, scope: IdempotencyScope): Promise<void> {
  await tx.query(release, scopeParams(scope));
}

const purge = sql('with gone as (delete from idempotency_keys where expires_at < $1 returning 1) select count(*)::int as n from gone');

export async function purgeExpiredKeys(db: Sql, now: Date): Promise<number> {
  return (await db.query<{ n: number }>(purge, [now]))[0].n;
}
