import { bookOffer, type Answer, type BookOfferOutcome, type BookingSession } from '../../../domain/bookings/book-offer';
import { bookingView } from '../../../domain/bookings/booking-view';
import { isErrorStatus, type ErrorStatus } from '../../errors';
import { transfersError } from '../errors';
import { etag } from './booking-changes';
import type { PartnerContext, TransfersHandler, TransfersReply } from './types';

/** POST /bookings: the request as the use case's input, its outcome as the answer. */
export const createBooking: TransfersHandler<'createBooking'> = async (call, ctx) => {
  const key = call.headers['idempotency-key'];
  const outcome = await bookOffer(
    { scope: { partnerId: ctx.partner.partnerId, env: ctx.env }, input: call.body, idempotencyKey: typeof key === 'string' ? key : undefined },
    session(ctx),
  );
  return reply(ctx, outcome);
};

function session(ctx: PartnerContext): BookingSession {
  return {
    now: ctx.deps.clock.now(),
    paused: ctx.partner.paused,
    emergencyPhone: ctx.deps.config.emergencyPhone,
    publicBaseUrl: ctx.deps.config.publicBaseUrl,
    requestId: ctx.requestId,
    keyWaitMs: ctx.deps.config.idempotencyWaitMs,
    db: ctx.sql,
    recent: ctx.deps.recent,
    tx: () => ctx.tx(),
    answer: (outcome) => answer(ctx, outcome),
    commit: (outcome, write) => ctx.commitNow({ ...reply(ctx, outcome), ...(write ? { write } : {}) }),
  };
}

/** The bytes of an outcome, as stored against the key: a booking's view, or the error envelope. */
function answer(ctx: PartnerContext, o: BookOfferOutcome): Answer {
  if (o.kind === 'replayed') return o.answer;
  if (o.kind === 'refused') {
    const r = transfersError(ctx, o.error);
    return { status: r.status, body: JSON.stringify(r.body) };
  }
  return { status: o.kind === 'created' ? 201 : 200, body: JSON.stringify(bookingView(o.booking)) };
}

function reply(ctx: PartnerContext, o: BookOfferOutcome): TransfersReply<'createBooking'> {
  switch (o.kind) {
    case 'created':
      return { status: 201, body: bookingView(o.booking), rawBody: answer(ctx, o).body, headers: { ETag: etag(o.booking.version) } };
    case 'existing':
      return {
        status: 200,
        body: bookingView(o.booking),
        rawBody: answer(ctx, o).body,
        headers: {
          ETag: etag(o.booking.version),
          'Partner-Reference-Reused': 'true',
          ...(o.differs.length ? { 'Partner-Reference-Mismatch': o.differs.join(', ') } : {}),
        },
      };
    case 'refused': {
      const r = transfersError(ctx, o.error);
      return { status: r.status, rawBody: JSON.stringify(r.body), headers: r.headers };
    }
    case 'replayed':
      return {
        status: replayStatus(o.answer.status),
        rawBody: o.answer.body,
        headers: { 'Idempotent-Replayed': 'true', 'Original-Request-Id': o.originalRequestId },
      };
  }
}

/** A stored status as replayed: a replay is never "created". */
function replayStatus(stored: number): 200 | ErrorStatus {
  if (stored === 200 || stored === 201) return 200;
  if (isErrorStatus(stored)) return stored;
  throw new Error(`an Idempotency-Key stored status ${stored}, which no answer has`);
}
