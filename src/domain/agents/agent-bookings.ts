import type { Sql, Tx } from '../../data/database';
import {
  addToDailyAmount,
  agentPolicyOf,
  confirmationUsed,
  confirmationWrite,
  dailyAmountOf,
  lockedConfirmation,
} from '../../data/repositories/agents-repository';
import { bookingFacts, type BookingRow } from '../../data/repositories/bookings-repository';
import type { AppError } from '../../shared/errors';
import { decideBooking, type BookingInput, type DecisionContext, type Scope } from '../bookings/booking-decision';
import type { Plan } from '../kernel/plan';
import { formatLocal } from '../kernel/sri-lanka-time';
import { toDecimal } from '../kernel/money';
import { CONFIRMATION_MINUTES, confirmationHash, confirmationRefusal, newConfirmationToken } from './confirmations';
import { bookingAllowed, dailyLimitExceeded, DEFAULT_AGENT_POLICY, type AgentPolicy, type AgentRefusal } from './policy';

/** The partner's policy for its agents (the defaults when no operator set one). */
export async function agentPolicy(db: Sql, partnerId: string): Promise<AgentPolicy> {
  const row = await agentPolicyOf(db, partnerId);
  return row
    ? { enabled: row.enabled, liveBookings: row.liveBookings, maxBookingAmount: row.maxBookingAmount, maxDailyAmount: row.maxDailyAmount }
    : DEFAULT_AGENT_POLICY;
}

export interface AgentScope extends Scope {
  keyId: string;
}

export type PrepareOutcome =
  /** Bookable as asked: a token to confirm it with, and the booking it would make. */
  | { kind: 'prepared'; token: string; expiresAt: Date; booking: BookingRow }
  /** The partner_reference was used before: that booking (nothing to confirm). */
  | { kind: 'existing'; booking: BookingRow }
  /** The booking rules refuse it, as POST /bookings would. */
  | { kind: 'refused'; error: AppError }
  /** The operator's limits refuse it. */
  | { kind: 'limited'; refusal: AgentRefusal };

/**
 * prepare_booking: the booking decision as POST /bookings would take it, with nothing booked. When it would book,
 * and the partner's agents may book that much here, a confirmation token bound to the key and these exact details
 * (kept until it is used or expires), committed with the request's audit row.
 */
export async function prepareBooking(db: Sql, scope: AgentScope, input: BookingInput, ctx: DecisionContext): Promise<Plan<PrepareOutcome>> {
  const facts = await bookingFacts(db, scope, { partnerReference: input.partner_reference, offerId: input.offer_id });
  const d = decideBooking(facts, scope, input, ctx);
  if (d.kind === 'existing') return { outcome: { kind: 'existing', booking: d.booking } };
  if (d.kind === 'refused') return { outcome: { kind: 'refused', error: d.error } };
  const amount = toDecimal(d.booking.amountMinor, d.booking.currency);
  const limited = bookingAllowed(await agentPolicy(db, scope.partnerId), scope.env, amount, d.booking.currency);
  if (limited) return { outcome: { kind: 'limited', refusal: limited } };
  const { token, hash } = newConfirmationToken();
  const expiresAt = new Date(ctx.now.getTime() + CONFIRMATION_MINUTES * 60_000);
  return {
    outcome: { kind: 'prepared', token, expiresAt, booking: d.booking },
    write: confirmationWrite(hash, {
      partnerId: scope.partnerId,
      env: scope.env,
      keyId: scope.keyId,
      kind: 'book',
      request: { ...input },
      bookingRef: null,
      amount,
      currency: d.booking.currency,
      expiresAt,
    }),
  };
}

/** What booking through the Transfers API's use case made of a confirmed request (the port confirmBooking books with). */
export type Booked<R> =
  /** A new booking, at this amount. */
  | { kind: 'created'; bookingRef: string; amount: number; result: R }
  /** An answer that books nothing new (the booking already made under the reference, or a replay of the key). */
  | { kind: 'answered'; bookingRef: string; result: R }
  /** A refusal (offer expired, already booked…): nothing is kept. */
  | { kind: 'failed'; result: R };

export type ConfirmOutcome<R> =
  | { kind: 'booked'; booked: Exclude<Booked<R>, { kind: 'failed' }> }
  /** This token was used with this idempotency key before: read that booking again. */
  | { kind: 'again'; bookingRef: string }
  /** Refused: the request's transaction must be rolled back (a booking made in it undone). */
  | { kind: 'refused'; refusal: AgentRefusal }
  | { kind: 'failed'; result: R };

/**
 * confirm_booking, in the request's transaction: the token locked (two confirms of it run one after the other),
 * checked, the booking made by the Transfers use case (`book`, with the details the token holds and the caller's
 * idempotency key), then the day's amount added within its limit under that row's lock, and the token marked used.
 * A refusal after the booking was made means the caller rolls the transaction back: nothing is booked.
 */
export async function confirmBooking<R>(
  tx: Tx,
  scope: AgentScope,
  req: { token: string; idempotencyKey: string; now: Date },
  book: (request: BookingInput, idempotencyKey: string) => Promise<Booked<R>>,
): Promise<ConfirmOutcome<R>> {
  const hash = confirmationHash(req.token);
  const row = await lockedConfirmation(tx, hash);
  const refusal = confirmationRefusal(row, { keyId: scope.keyId, kind: 'book', idempotencyKey: req.idempotencyKey, now: req.now });
  if (refusal) return { kind: 'refused', refusal };
  if (row!.usedAt) return { kind: 'again', bookingRef: row!.bookingRef! };
  const policy = await agentPolicy(tx, scope.partnerId);
  const amount = row!.amount ?? 0;
  const currency = row!.currency ?? '';
  const limited = bookingAllowed(policy, scope.env, amount, currency);
  if (limited) return { kind: 'refused', refusal: limited };
  const booked = await book(row!.request as unknown as BookingInput, req.idempotencyKey);
  if (booked.kind === 'failed') return booked;
  if (booked.kind === 'created') {
    const day = formatLocal(req.now).slice(0, 10);
    const total = await addToDailyAmount(tx, scope.partnerId, scope.env, day, booked.amount, policy.maxDailyAmount);
    if (total === undefined) {
      const today = await dailyAmountOf(tx, scope.partnerId, scope.env, day);
      return { kind: 'refused', refusal: dailyLimitExceeded(policy, booked.amount, today.amount, currency) };
    }
  }
  await confirmationUsed(tx, hash, req.now, req.idempotencyKey, booked.bookingRef);
  return { kind: 'booked', booked };
}

/** preview_cancellation's token: bound to the key and the booking, for the fee previewed. */
export function cancellationToken(scope: AgentScope, bookingRef: string, fee: { amount: number | null; currency: string }, now: Date) {
  const { token, hash } = newConfirmationToken();
  const expiresAt = new Date(now.getTime() + CONFIRMATION_MINUTES * 60_000);
  const write = confirmationWrite(hash, {
    partnerId: scope.partnerId,
    env: scope.env,
    keyId: scope.keyId,
    kind: 'cancel',
    request: null,
    bookingRef,
    amount: fee.amount,
    currency: fee.currency,
    expiresAt,
  });
  return { token, expiresAt, write };
}

/**
 * cancel_booking's check, in the request's transaction: the token locked and checked for this key and booking.
 * Returns the fee the traveller was shown, and marks the token used (rolled back with the rest if the cancel fails).
 */
export async function claimCancellation(
  tx: Tx,
  scope: AgentScope,
  req: { token: string; bookingRef: string; now: Date },
): Promise<{ refusal: AgentRefusal } | { previewedFee: number | null }> {
  const hash = confirmationHash(req.token);
  const row = await lockedConfirmation(tx, hash);
  const refusal = confirmationRefusal(row, { keyId: scope.keyId, kind: 'cancel', bookingRef: req.bookingRef, now: req.now });
  if (refusal) return { refusal };
  await confirmationUsed(tx, hash, req.now, 'cancel', req.bookingRef);
  return { previewedFee: row!.amount };
}
