import { amendBooking as amend, type Amended } from '../../../domain/bookings/amend-booking';
import { applyChange, type Changed } from '../../../domain/bookings/apply-change';
import { bookingView } from '../../../domain/bookings/booking-view';
import { followChange } from '../../../domain/fleet/follow-change';
import type { Answer, KeyedSession, Replayed } from '../../../domain/bookings/idempotency';
import { previewCancellation } from '../../../domain/bookings/preview-cancellation';
import { quoteChange } from '../../../domain/bookings/quote-change';
import { isErrorStatus } from '../../errors';
import { transfersError } from '../errors';
import type { PartnerContext, TransfersHandler, TransfersReply } from './types';

/** A booking's ETag: its version, quoted. */
export const etag = (version: number) => `"${version}"`;

/**
 * The version an If-Match names: undefined when the header is absent, NaN when it names no version (`"3"`, `3` and
 * `W/"3"` name 3; several, or `*`, name none: a change must say which version it was decided on).
 */
export function ifMatchVersion(header: string | string[] | undefined): number | undefined {
  if (header === undefined) return undefined;
  const m = /^\s*(?:W\/)?"?([0-9]{1,9})"?\s*$/.exec(Array.isArray(header) ? header.join(',') : header);
  return m ? Number(m[1]) : NaN;
}

const scopeOf = (ctx: PartnerContext) => ({ partnerId: ctx.partner.partnerId, env: ctx.env });
const keyOf = (ctx: PartnerContext) => {
  const key = ctx.headers['idempotency-key'];
  return typeof key === 'string' ? key : undefined;
};

/** What a keyed change needs of the request, and how its outcome is answered (and stored against its key). */
function session(ctx: PartnerContext): KeyedSession & { answer(o: Amended | Changed): Answer } {
  return {
    requestId: ctx.requestId,
    now: ctx.deps.clock.now(),
    keyWaitMs: ctx.deps.config.idempotencyWaitMs,
    answer: (o) => {
      if (o.kind === 'done') return { status: 200, body: JSON.stringify(bookingView(o.value)) };
      const r = transfersError(ctx, o.error);
      return { status: r.status, body: JSON.stringify(r.body) };
    },
  };
}

/** A keyed change's outcome as the answer: the booking with its ETag, the refusal, or the stored answer replayed. */
function reply(ctx: PartnerContext, o: Amended | Changed | Replayed): TransfersReply<'amendBooking'> {
  if (o.kind === 'replayed') {
    const status = o.answer.status;
    return {
      status: status === 200 || !isErrorStatus(status) ? 200 : status,
      rawBody: o.answer.body,
      headers: { 'Idempotent-Replayed': 'true', 'Original-Request-Id': o.originalRequestId },
    };
  }
  const answer = session(ctx).answer(o);
  if (o.kind === 'done') return { status: 200, rawBody: answer.body, headers: { ETag: etag(o.value.version) } };
  const r = transfersError(ctx, o.error);
  return { status: r.status, rawBody: answer.body, headers: r.headers };
}

/** PATCH /bookings/{booking_ref}: a free change of details. */
export const amendBooking: TransfersHandler<'amendBooking'> = async (call, ctx) => {
  const outcome = await amend(
    await ctx.tx(),
    {
      scope: scopeOf(ctx),
      bookingRef: call.params.booking_ref,
      amendment: call.body,
      expectedVersion: ifMatchVersion(call.headers['if-match']),
      idempotencyKey: keyOf(ctx),
    },
    session(ctx),
    followChange,
  );
  return reply(ctx, outcome);
};

/** POST /bookings/{booking_ref}/changes: a change quote's offer applied. */
export const applyBookingChange: TransfersHandler<'applyBookingChange'> = async (call, ctx) => {
  const outcome = await applyChange(
    await ctx.tx(),
    {
      scope: scopeOf(ctx),
      bookingRef: call.params.booking_ref,
      changeQuoteId: call.body.change_quote_id,
      offerId: call.body.offer_id,
      expectedVersion: ifMatchVersion(call.headers['if-match']),
      idempotencyKey: keyOf(ctx),
    },
    session(ctx),
    followChange,
  );
  return reply(ctx, outcome);
};

/** POST /bookings/{booking_ref}/change_quotes: what a change would cost (stored with the audit row). */
export const createChangeQuote: TransfersHandler<'createChangeQuote'> = async (call, ctx) => {
  const { changeQuote, write } = await quoteChange(ctx.sql, ctx.partner, scopeOf(ctx), call.params.booking_ref, call.body, {
    now: ctx.deps.clock.now(),
    fx: ctx.deps.config.fxFromUsd,
    freeClasses: (from, to, seats, exceptJob) => ctx.deps.fleet.freeClasses(ctx.sql, from, to, seats, exceptJob),
  });
  return { status: 200, body: changeQuote, write };
};

/** GET /bookings/{booking_ref}/cancellation: the fee a cancel would charge now. */
export const getCancellation: TransfersHandler<'getCancellation'> = async (call, ctx) => ({
  status: 200,
  body: await previewCancellation(ctx.sql, scopeOf(ctx), call.params.booking_ref, ctx.deps.clock.now()),
});
