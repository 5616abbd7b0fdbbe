import type { Knex } from 'knex';
import { AppError } from '../../shared/errors';
import { jsonFingerprint } from '../../shared/canonical-json';
import type { HandlerResult } from '../types';
import { transfersError } from './envelope';
import type { PartnerContext } from './operations/types';

/** How long a key is kept at the least, whatever the booking. */
export const MIN_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
/** Kept until this long after the pickup time. */
export const AFTER_PICKUP_MS = 24 * 60 * 60 * 1000;

export interface IdempotentOutcome extends HandlerResult {
  /** The pickup time the stored response concerns; the key is kept until 24 h after it. */
  pickupAt?: Date;
  bookingRef?: string;
}


/** Outcomes worth replaying: the decision was made. Validation failures and 5xx are not stored, so retrying them is safe. */
const storable = (status: number) => status < 500 && status !== 400;

const inProgress = (waitMs: number) =>
  new AppError(
    'idempotency_conflict',
    409,
    `A request with this Idempotency-Key is still in progress after ${Math.round(waitMs / 1000)} s; retry with the same key to receive its result.`,
    { reason: 'in_progress' },
    { 'Retry-After': '1' },
  );

/**
 * Stripe-style idempotency, enforced by the database. The first request claims (partner, env, operation, key)
 * with an INSERT in its own transaction; a concurrent request with the same key blocks on that row's unique index
 * until the first commits (then replays its stored response) or rolls back (then proceeds itself). The wait is
 * bounded by lock_timeout; past it the caller gets a retryable 409 in_progress. The stored response is the exact
 * bytes first sent, replayed with status 200 (for a 201) and `Idempotent-Replayed: true`.
 */
export async function withIdempotency(
  ctx: PartnerContext,
  operation: string,
  key: string | undefined,
  body: unknown,
  run: (trx: Knex.Transaction) => Promise<IdempotentOutcome>,
): Promise<HandlerResult> {
  const execute = async (): Promise<IdempotentOutcome> => {
    try {
      const r = await ctx.trx.transaction(run);
      return { ...r, rawBody: r.rawBody ?? JSON.stringify(r.body) };
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      const r = transfersError(ctx, e);
      return { ...r, rawBody: JSON.stringify(r.body) };
    }
  };
  if (!key) return execute();

  const trx = ctx.trx;
  const now = ctx.deps.clock.now();
  const scope = { partnerId: ctx.partner.partnerId, env: ctx.env, operation, idempotencyKey: key };
  // Same body = same JSON value: key order and whitespace do not matter.
  const print = jsonFingerprint(body);
  const waitMs = ctx.deps.config.idempotencyWaitMs;
  let claimed: boolean;
  try {
    claimed = await trx.transaction(async (sp) => {
      await sp.raw(`set local lock_timeout = ${Math.max(1, waitMs)}`);
      const rows = await sp('idempotency_keys')
        .insert({ ...scope, fingerprint: print, requestId: ctx.requestId, createdAt: now, expiresAt: new Date(now.getTime() + MIN_RETENTION_MS) })
        .onConflict(['partner_id', 'env', 'operation', 'idempotency_key'])
        .ignore()
        .returning('idempotency_key');
      await sp.raw('set local lock_timeout to default');
      return rows.length === 1;
    });
  } catch (e) {
    if ((e as { code?: string }).code === '55P03') return transfersError(ctx, inProgress(waitMs));
    throw e;
  }

  if (!claimed) {
    const stored = await trx('idempotency_keys').where(scope).first('fingerprint', 'responseStatus', 'responseBody', 'requestId');
    if (!stored || stored.responseStatus === null) return transfersError(ctx, inProgress(waitMs));
    if (stored.fingerprint !== print) {
      return transfersError(
        ctx,
        new AppError('idempotency_conflict', 409, 'This Idempotency-Key was already used with a different request body.', {
          reason: 'body_mismatch',
          original_request_id: stored.requestId,
        }),
      );
    }
    return {
      status: stored.responseStatus === 201 ? 200 : stored.responseStatus,
      body: JSON.parse(stored.responseBody),
      rawBody: stored.responseBody,
      headers: { 'Idempotent-Replayed': 'true', 'Original-Request-Id': stored.requestId },
    };
  }

  const outcome = await execute();
  if (!storable(outcome.status)) {
    await trx('idempotency_keys').where(scope).delete();
    return outcome;
  }
  const retainUntil = Math.max(now.getTime() + MIN_RETENTION_MS, (outcome.pickupAt?.getTime() ?? 0) + AFTER_PICKUP_MS);
  await trx('idempotency_keys')
    .where(scope)
    .update({ responseStatus: outcome.status, responseBody: outcome.rawBody, bookingRef: outcome.bookingRef ?? null, expiresAt: new Date(retainUntil) });
  return { status: outcome.status, body: outcome.body, rawBody: outcome.rawBody, headers: outcome.headers };
}

/** Removes keys past their retention (see MIN_RETENTION_MS and AFTER_PICKUP_MS). */
export async function purgeExpiredIdempotencyKeys(db: Knex, now: Date): Promise<number> {
  const deleted = await db('idempotency_keys').where('expiresAt', '<', now).delete().returning('idempotency_key');
  return deleted.length;
}
