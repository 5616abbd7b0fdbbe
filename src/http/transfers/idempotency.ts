import { AppError } from '../../shared/errors';
import { jsonFingerprint } from '../../shared/canonical-json';
import { combine, type Write } from '../../data/write';
import * as keys from '../../data/repositories/idempotency-repository';
import { bookingView } from '../../domain/bookings/booking-view';
import { bookInTransaction, bookingWrites, decideBooking, readBookingFacts, type BookingCtx, type BookingDecision, type BookingInput } from '../../domain/bookings/place-booking';
import type { HandlerResult } from '../types';
import { transfersError } from './envelope';
import type { PartnerContext } from './operations/types';

/** How long a key is kept at the least, whatever the booking. */
export const MIN_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
/** Kept until this long after the pickup time. */
export const AFTER_PICKUP_MS = 24 * 60 * 60 * 1000;
const OPERATION = 'createBooking';

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

const mismatch = (originalRequestId: string) =>
  new AppError('idempotency_conflict', 409, 'This Idempotency-Key was already used with a different request body.', {
    reason: 'body_mismatch',
    original_request_id: originalRequestId,
  });

/** An answer as the exact bytes sent (and stored against the key). */
interface Answer {
  status: number;
  rawBody: string;
  headers?: Record<string, string>;
  pickupAt?: Date;
  bookingRef?: string;
}

function errorAnswer(ctx: PartnerContext, err: AppError): Answer {
  const r = transfersError(ctx, err);
  return { status: r.status, rawBody: JSON.stringify(r.body), headers: r.headers };
}

function bookingAnswer(created: boolean, booking: Parameters<typeof bookingView>[0], input: BookingInput): Answer {
  const answer = { status: created ? 201 : 200, rawBody: JSON.stringify(bookingView(booking)), pickupAt: booking.pickupAt, bookingRef: booking.bookingRef };
  return created ? answer : { ...answer, headers: reusedReference(booking, input) };
}

/**
 * The booking already made under this partner_reference, said out loud: the partner must not mistake it for a new
 * one, least of all when it was made for another offer or is cancelled.
 */
function reusedReference(booking: Parameters<typeof bookingView>[0], input: BookingInput): Record<string, string> {
  const differs = [...(booking.offerId !== input.offer_id ? ['offer_id'] : []), ...(booking.status === 'cancelled' ? ['cancelled'] : [])];
  return { 'Partner-Reference-Reused': 'true', ...(differs.length ? { 'Partner-Reference-Mismatch': differs.join(', ') } : {}) };
}

function replay(ctx: PartnerContext, stored: keys.StoredResponse, print: string): HandlerResult {
  if (stored.fingerprint !== print) return errorAnswer(ctx, mismatch(stored.requestId));
  if (stored.responseStatus === null || stored.responseBody === null) return errorAnswer(ctx, inProgress(ctx.deps.config.idempotencyWaitMs));
  return {
    status: stored.responseStatus === 201 ? 200 : stored.responseStatus,
    rawBody: stored.responseBody,
    headers: { 'Idempotent-Replayed': 'true', 'Original-Request-Id': stored.requestId },
  };
}

const completion = (a: Answer, now: Date): keys.Completion => ({
  status: a.status,
  body: a.rawBody,
  bookingRef: a.bookingRef ?? null,
  expiresAt: new Date(Math.max(now.getTime() + MIN_RETENTION_MS, (a.pickupAt?.getTime() ?? 0) + AFTER_PICKUP_MS)),
});

/**
 * POST /bookings with Stripe-style idempotency, enforced by the database, in as few round trips as correctness
 * allows:
 *
 * - The optimistic path reads everything the decision needs in one statement (the key's stored outcome, the
 *   partner_reference, the offer and whether it is taken), decides, and commits the booking, its job, the key with
 *   its response and the audit row in one guarded statement. A stored key replays its exact bytes (200,
 *   `Idempotent-Replayed: true`); the same key with another body is 409 body_mismatch.
 * - If that statement loses a race (the offer, the reference, the booking_ref or the key taken meanwhile), nothing
 *   of it counts and the careful path decides: in the request's transaction it claims the key first (a concurrent
 *   request with the same key waits for the first to commit, bounded by lock_timeout → 409 in_progress), then
 *   books with the database's uniqueness as the referee, and stores the answer against the key.
 *
 * Outcomes that are not a decision (400, 5xx) are never stored, so retrying them with the same key is safe.
 */
export async function createBookingIdempotently(ctx: PartnerContext, input: BookingInput, key: string | undefined): Promise<HandlerResult> {
  const now = ctx.deps.clock.now();
  const scope = { partnerId: ctx.partner.partnerId, env: ctx.env };
  const bctx: BookingCtx = { now, paused: ctx.partner.paused, requestId: ctx.requestId, emergencyPhone: ctx.deps.config.emergencyPhone };
  const keyScope = key ? { ...scope, operation: OPERATION, key } : undefined;
  // Same body = same JSON value: key order and whitespace do not matter.
  const print = key ? jsonFingerprint(input) : '';
  const recent = ctx.deps.recent;

  // A key this instance saw completed: its response never changes, so it replays without a read.
  const known = key ? recent.completedKey(scope, key) : undefined;
  if (known) return replay(ctx, known, print);

  // An offer this instance quoted: booking it needs no read either, when the rules say "book". Whatever memory
  // cannot know (the offer booked or the reference used elsewhere, the key stored by another request, the expiry
  // moved) is settled by the guarded write; a refusal is never decided from memory (a reused reference comes first).
  const remembered = recent.offer(scope, input.offer_id);
  if (remembered) {
    const d = decideBooking({ offer: remembered, consumed: false }, scope, input, bctx);
    if (d.kind === 'book') return booked(ctx, input, d, keyScope, print, bctx, true);
  }

  const facts = await readBookingFacts(ctx.sql, scope, { idempotencyKey: key, partnerReference: input.partner_reference, offerId: input.offer_id });
  if (keyScope && facts.stored) {
    recent.rememberKey(scope, keyScope.key, facts.stored);
    return replay(ctx, facts.stored, print);
  }
  const d = decideBooking(facts, scope, input, bctx);
  if (d.kind === 'book') return booked(ctx, input, d, keyScope, print, bctx, false);
  const answer = d.kind === 'refused' ? errorAnswer(ctx, d.error) : bookingAnswer(false, d.booking, input);
  const write = keyScope && storable(answer.status) ? keys.storeWrite(keyScope, print, ctx.requestId, now, completion(answer, now)) : undefined;
  return { ...answer, write, otherwise: () => careful(ctx, input, keyScope, print, bctx), afterCommit: remember(ctx, keyScope, print, answer, write) };
}

/** A new booking: the booking, its job and the key's outcome, in one guarded statement with the audit row. */
function booked(
  ctx: PartnerContext,
  input: BookingInput,
  d: Extract<BookingDecision, { kind: 'book' }>,
  keyScope: keys.IdempotencyScope | undefined,
  print: string,
  bctx: BookingCtx,
  offerFromMemory: boolean,
): HandlerResult {
  const answer = bookingAnswer(true, d.booking, input);
  const stored = keyScope ? keys.storeWrite(keyScope, print, ctx.requestId, bctx.now, completion(answer, bctx.now), 'booking_in') : undefined;
  const write = combine(bookingWrites(d, bctx, offerFromMemory), stored);
  return { ...answer, write, otherwise: () => careful(ctx, input, keyScope, print, bctx), afterCommit: remember(ctx, keyScope, print, answer, stored) };
}

/** Once committed, the stored outcome of the key is remembered by this instance. */
function remember(ctx: PartnerContext, keyScope: keys.IdempotencyScope | undefined, print: string, a: Answer, stored: unknown) {
  if (!keyScope || !stored) return undefined;
  return () =>
    ctx.deps.recent.rememberKey({ partnerId: keyScope.partnerId, env: keyScope.env }, keyScope.key, {
      fingerprint: print,
      responseStatus: a.status,
      responseBody: a.rawBody,
      requestId: ctx.requestId,
    });
}

async function careful(ctx: PartnerContext, input: BookingInput, keyScope: keys.IdempotencyScope | undefined, print: string, bctx: BookingCtx): Promise<HandlerResult> {
  const tx = await ctx.tx();
  const scope = { partnerId: ctx.partner.partnerId, env: ctx.env };
  if (keyScope) {
    const claim = await keys.claimKey(tx, keyScope, print, ctx.requestId, bctx.now, new Date(bctx.now.getTime() + MIN_RETENTION_MS));
    if (claim === 'busy') return errorAnswer(ctx, inProgress(ctx.deps.config.idempotencyWaitMs));
    if (claim === 'taken') {
      const stored = await keys.findStored(tx, keyScope);
      return stored ? replay(ctx, stored, print) : errorAnswer(ctx, inProgress(ctx.deps.config.idempotencyWaitMs));
    }
  }
  let answer: Answer;
  try {
    const { created, booking } = await bookInTransaction(tx, scope, input, bctx);
    answer = bookingAnswer(created, booking, input);
  } catch (e) {
    if (!(e instanceof AppError) || e.status >= 500) throw e;
    answer = errorAnswer(ctx, e);
  }
  if (keyScope) {
    if (storable(answer.status)) await keys.completeKey(tx, keyScope, completion(answer, bctx.now));
    else await keys.releaseKey(tx, keyScope);
  }
  return { ...answer, afterCommit: remember(ctx, keyScope, print, answer, keyScope && storable(answer.status)) };
}
