import type { Tx } from '../../data/database';
import * as keys from '../../data/repositories/idempotency-repository';
import { jsonFingerprint } from '../../shared/canonical-json';
import { AppError } from '../../shared/errors';
import type { Scope } from './booking-decision';

/**
 * Stripe's idempotency rules, as every booking operation that takes an `Idempotency-Key` keeps them: the same key
 * and the same request → the first answer again, byte for byte; the same key and another request →
 * idempotency_conflict (body_mismatch); the key still held by a request in flight → idempotency_conflict
 * (in_progress, retry). Keys are scoped to the partner, the environment and the operation.
 */

/** How long a key is kept at the least, whatever the booking. */
export const MIN_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
/** Kept until this long after the pickup time. */
export const AFTER_PICKUP_MS = 24 * 60 * 60 * 1000;

/** The bytes an outcome is answered with, as the caller will receive them (stored with the key, replayed as is). */
export interface Answer {
  status: number;
  body: string;
}

/** An answer stored against a key by an earlier request, to be sent again. */
export interface Replayed {
  kind: 'replayed';
  answer: Answer;
  originalRequestId: string;
}

export interface Refused {
  kind: 'refused';
  error: AppError;
}

export const refused = (error: AppError): Refused => ({ kind: 'refused', error });

/** The key of a request, in its scope; undefined when the request sent none. */
export const keyOf = (scope: Scope, operation: string, key: string | undefined): keys.IdempotencyScope | undefined =>
  key ? { ...scope, operation, key } : undefined;

/** Same request = same JSON value: key order and whitespace do not matter. */
export const fingerprint = (request: unknown): string => jsonFingerprint(request);

/** Refusals worth replaying are decisions; a request not understood (400, 428) is not, so retrying it with the same key is safe. */
export const storableError = (e: AppError): boolean => e.code !== 'invalid_request' && e.code !== 'precondition_required';

/** When a key's answer may be forgotten: a week from now at the least, else a day after the booking's pickup. */
export const keptUntil = (now: Date, pickupAt?: Date): Date =>
  new Date(Math.max(now.getTime() + MIN_RETENTION_MS, (pickupAt?.getTime() ?? 0) + AFTER_PICKUP_MS));

/** What an earlier request stored against the key means for this one. */
export function replayOf(stored: keys.StoredResponse, print: string, keyWaitMs: number): Replayed | Refused {
  if (stored.fingerprint !== print) return refused(mismatch(stored.requestId));
  if (stored.responseStatus === null || stored.responseBody === null) return refused(inProgress(keyWaitMs));
  return { kind: 'replayed', answer: { status: stored.responseStatus, body: stored.responseBody }, originalRequestId: stored.requestId };
}

/** Claims the key in the transaction: null when this request may go on, else what it answers instead. */
export async function claim(
  tx: Tx,
  key: keys.IdempotencyScope,
  print: string,
  s: { requestId: string; now: Date; keyWaitMs: number },
): Promise<Replayed | Refused | null> {
  const claimed = await keys.claimKey(tx, key, print, s.requestId, s.now, keptUntil(s.now));
  if (claimed === 'claimed') return null;
  if (claimed === 'busy') return refused(inProgress(s.keyWaitMs));
  const earlier = await keys.findStored(tx, key);
  return earlier ? replayOf(earlier, print, s.keyWaitMs) : refused(inProgress(s.keyWaitMs));
}

export interface KeyedSession {
  requestId: string;
  now: Date;
  keyWaitMs: number;
}

/**
 * Runs a change of a booking under its request's Idempotency-Key, in the request's transaction: the key is claimed
 * first (a concurrent request with the same key waits for this one, then replays its answer), the change runs in a
 * savepoint, and its outcome — the changed booking, or a refusal, whose writes the savepoint undoes — is stored
 * against the key as the bytes `answer` makes of it. A request not understood (invalid_request,
 * precondition_required) is thrown, and the key is given back with the rest of the transaction.
 */
export async function underKey<T extends { pickupAt: Date; bookingRef: string }>(
  tx: Tx,
  key: keys.IdempotencyScope | undefined,
  request: unknown,
  s: KeyedSession & { answer(o: { kind: 'done'; value: T } | Refused): Answer },
  change: (tx: Tx) => Promise<T>,
): Promise<{ kind: 'done'; value: T } | Refused | Replayed> {
  const print = key ? fingerprint(request) : '';
  if (key) {
    const earlier = await claim(tx, key, print, s);
    if (earlier) return earlier;
  }
  let outcome: { kind: 'done'; value: T } | Refused;
  try {
    outcome = { kind: 'done', value: await tx.savepoint(change) };
  } catch (e) {
    if (!(e instanceof AppError) || !storableError(e)) throw e;
    outcome = refused(e);
  }
  if (key) {
    const answer = s.answer(outcome);
    const booking = outcome.kind === 'done' ? outcome.value : undefined;
    await keys.completeKey(tx, key, { ...answer, bookingRef: booking?.bookingRef ?? null, expiresAt: keptUntil(s.now, booking?.pickupAt) });
  }
  return outcome;
}

export const inProgress = (waitMs: number) =>
  new AppError(
    'idempotency_conflict',
    `A request with this Idempotency-Key is still in progress after ${Math.round(waitMs / 1000)} s; retry with the same key to receive its result.`,
    { reason: 'in_progress' },
    { retryAfterSeconds: 1 },
  );

export const mismatch = (originalRequestId: string) =>
  new AppError('idempotency_conflict', 'This Idempotency-Key was already used with a different request body.', {
    reason: 'body_mismatch',
    original_request_id: originalRequestId,
  });
