import { randomBytes } from 'node:crypto';
import { cancellationToken, claimCancellation, confirmBooking, prepareBooking, type Booked } from '../../domain/agents/agent-bookings';
import type { BookingInput } from '../../domain/bookings/booking-decision';
import { bookingView } from '../../domain/bookings/booking-view';
import { formatLocal } from '../../domain/kernel/sri-lanka-time';
import { transfersError } from '../transfers/errors';
import { errorOf, type Answer, type ToolSession } from './session';
import { extended, optional } from './tool-schemas';
import { bookingSubject, hints, M, ok, refusal, T, type Tool } from './tool';
import { bookingText, cancellationWords, localWords, previewText, say } from './words';

/** The tools that book, cancel and change: each act confirmed by a token, or checked against the booking's version. */

const bookingRequest = T('BookingRequest');

export const prepareBookingTool: Tool = {
  name: 'prepare_booking',
  description:
    'Prepare a booking of one offer from quote_transfer. It books nothing: it checks the booking would succeed and returns a summary for the traveller (who, from where to where, when in Sri Lanka time, the vehicle, the price, what cancelling costs until when) and a confirmation_token valid 10 minutes. Show the summary to the human and get their agreement, then call confirm_booking with the token. flight_number is required for a pickup at an airport.',
  inputSchema: optional(bookingRequest, ['partner_reference']),
  output: M('PreparedBooking'),
  annotations: hints('Prepare a booking (books nothing)', {}),
  acts: true,
  run: async (args, s) => {
    const input = {
      ...args,
      partner_reference: (args.partner_reference as string | undefined) ?? `agent-${randomBytes(5).toString('hex')}`,
    } as unknown as BookingInput;
    const plan = await prepareBooking(s.ctx.sql, s.scope, input, {
      now: s.now,
      paused: s.partner.paused,
      emergencyPhone: s.ctx.deps.config.emergencyPhone,
      publicBaseUrl: s.ctx.deps.config.publicBaseUrl,
    });
    s.subject = `quote:${input.quote_id}`;
    const o = plan.outcome;
    if (o.kind === 'limited') return refusal(o.refusal);
    if (o.kind === 'refused') return errorOf(asAnswer(s, o.error));
    if (o.kind === 'existing')
      return refusal({
        code: 'booking_conflict',
        message: `partner_reference ${input.partner_reference} already belongs to booking ${o.booking.bookingRef}: read it with get_booking, or prepare with another partner_reference.`,
        details: { reason: 'partner_reference_used', booking_ref: o.booking.bookingRef },
      });
    s.plan(plan);
    const view = bookingView(o.booking);
    const summary = {
      passenger: view.passenger,
      passengers: view.passengers,
      pickup: view.pickup,
      dropoff: view.dropoff,
      pickup_datetime: view.pickup_datetime,
      pickup_local: localWords(o.booking.pickupAt),
      vehicle: view.vehicle,
      price: view.price,
      currency: view.currency,
      ...(view.flight_number ? { flight_number: view.flight_number } : {}),
      partner_reference: view.partner_reference,
      cancellation_policy: view.cancellation_policy,
      cancellation: cancellationWords(view.cancellation_policy, view.currency),
    };
    const structured = { env: s.env, confirmation_token: o.token, expires_at: o.expiresAt.toISOString(), summary };
    return ok(
      structured,
      `${bookingText(summary)}\nTo book it, call confirm_booking with this confirmation_token before ${formatLocal(o.expiresAt).slice(11, 16)} Sri Lanka time.`,
    );
  },
};

export const confirmBookingTool: Tool = {
  name: 'confirm_booking',
  description:
    'Book what prepare_booking prepared, once the human agreed: pass its confirmation_token and an idempotency_key of your choosing (any unique string). A token works once, for 10 minutes, and only with the key that prepared it. Calling again with the same idempotency_key returns the same booking, so retry with the same key after a timeout. Operator limits (production access, amount per booking, amount per day) may refuse it with limit_exceeded: nothing is booked then.',
  inputSchema: M('ConfirmBookingInput'),
  output: T('Booking'),
  annotations: hints('Confirm a booking', { idempotentHint: true }),
  acts: true,
  run: async (args, s) => {
    const tx = await s.ctx.tx();
    const book = async (request: BookingInput, key: string): Promise<Booked<Answer>> => {
      const a = await s.carry(await s.invoke('createBooking', { header: { 'idempotency-key': key }, body: request }), true);
      if (a.status === 201) return { kind: 'created', bookingRef: say(a.body.booking_ref), amount: Number(a.body.price), result: a };
      if (a.status === 200) return { kind: 'answered', bookingRef: say(a.body.booking_ref), result: a };
      return { kind: 'failed', result: a };
    };
    const o = await confirmBooking(tx, s.scope, { token: say(args.confirmation_token), idempotencyKey: say(args.idempotency_key), now: s.now }, book);
    if (o.kind === 'refused') {
      await s.abandon();
      return refusal(o.refusal);
    }
    if (o.kind === 'failed') {
      await s.abandon();
      return errorOf(o.result);
    }
    const a = o.kind === 'again' ? await s.run('getBooking', { path: { booking_ref: o.bookingRef } }) : o.booked.result;
    if (a.status >= 400) return errorOf(a);
    s.subject = bookingSubject(a.body.booking_ref);
    return ok(a.body, `Booked: ${say(a.body.booking_ref)} (${say(a.body.status)}).\n${bookingText(a.body)}`);
  },
};

export const previewCancellation: Tool = {
  name: 'preview_cancellation',
  description:
    'What cancelling a booking would cost now, without cancelling it. When it can be cancelled, returns a confirmation_token (10 minutes, once) for cancel_booking: tell the human the fee first.',
  inputSchema: M('BookingRefInput'),
  output: extended(T('CancellationPreview'), M('CancellationConfirmation')),
  annotations: hints('Preview a cancellation', { readOnlyHint: false, idempotentHint: false }),
  acts: true,
  run: async (args, s) => {
    const ref = say(args.booking_ref);
    const a = await s.run('getCancellation', { path: { booking_ref: ref } });
    if (a.status >= 400) return errorOf(a);
    s.subject = bookingSubject(ref);
    if (!a.body.cancellable) return ok(a.body, previewText(a.body));
    const fee = a.body.fee === null || a.body.fee === undefined ? null : Number(a.body.fee);
    const t = cancellationToken(s.scope, ref, { amount: fee, currency: say(a.body.currency) }, s.now);
    s.plan({ write: t.write });
    return ok({ ...a.body, confirmation_token: t.token, expires_at: t.expiresAt.toISOString() }, previewText(a.body));
  },
};

export const cancelBooking: Tool = {
  name: 'cancel_booking',
  description:
    'Cancel a booking, with the confirmation_token preview_cancellation gave for it (so the fee was seen first). If the fee has risen since the preview (a fee tier began meanwhile), nothing is cancelled: preview again. Cancelling again returns the same cancelled booking.',
  inputSchema: M('CancelBookingInput'),
  output: T('Booking'),
  annotations: hints('Cancel a booking', { destructiveHint: true, idempotentHint: true }),
  acts: true,
  run: async (args, s) => {
    const ref = say(args.booking_ref);
    const tx = await s.ctx.tx();
    const claim = await claimCancellation(tx, s.scope, { token: say(args.confirmation_token), bookingRef: ref, now: s.now });
    s.subject = bookingSubject(ref);
    if ('refusal' in claim) {
      await s.abandon();
      return refusal(claim.refusal);
    }
    const now = await s.run('getCancellation', { path: { booking_ref: ref } });
    const fee = now.body.fee === null || now.body.fee === undefined ? 0 : Number(now.body.fee);
    if (now.status < 400 && now.body.cancellable && fee > (claim.previewedFee ?? 0)) {
      await s.abandon();
      return refusal({
        code: 'confirmation_invalid',
        message: `Cancelling now costs ${fee} ${say(now.body.currency)}, more than the ${claim.previewedFee ?? 0} previewed: nothing was cancelled. Call preview_cancellation again and show the new fee.`,
        details: { reason: 'fee_changed', fee, previewed_fee: claim.previewedFee },
      });
    }
    const a = await s.run('cancelBooking', { path: { booking_ref: ref } });
    if (a.status >= 400) {
      await s.abandon();
      return errorOf(a);
    }
    return ok(a.body, `Cancelled ${ref}; the fee is ${say(a.body.cancellation_fee ?? 0)} ${say(a.body.currency)}.\n${bookingText(a.body)}`);
  },
};

export const amendBooking: Tool = {
  name: 'amend_booking',
  description:
    "Make free changes to a booking: the passenger's name, e-mail or phone, the flight number, notes for the driver (`changes`, as PATCH /bookings/{booking_ref} takes them). Changing the time, places or party needs a new price and is not offered here. If the booking changed meanwhile the result says so: read it and try again.",
  inputSchema: { ...M('AmendBookingInput') },
  output: T('Booking'),
  annotations: hints('Amend a booking', { destructiveHint: true, idempotentHint: true }),
  acts: true,
  run: async (args, s) => {
    const ref = say(args.booking_ref);
    s.subject = bookingSubject(ref);
    const current = await s.run('getBooking', { path: { booking_ref: ref } });
    if (current.status >= 400) return errorOf(current);
    const a = await s.run('amendBooking', { path: { booking_ref: ref }, header: { 'if-match': current.headers.ETag ?? '' }, body: args.changes });
    if (a.status === 412)
      return refusal({
        code: 'precondition_failed',
        message: `Booking ${ref} changed while this change was being made: nothing was changed. Read it with get_booking and try again.`,
        details: (a.body.error as { details?: Record<string, unknown> } | undefined)?.details ?? {},
      });
    if (a.status >= 400) return errorOf(a);
    return ok(a.body, `Changed ${ref} (version ${say(a.body.version)}).\n${bookingText(a.body)}`);
  },
};

/** A domain refusal in the Transfers API's words (the same code, message and details as POST /bookings). */
function asAnswer(s: ToolSession, e: Parameters<typeof transfersError>[1]): Answer {
  const r = transfersError({ env: s.env }, e);
  return { status: r.status, body: r.body as unknown as Record<string, unknown>, headers: r.headers, result: r };
}
