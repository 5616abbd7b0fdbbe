import { bookOffer, type Answer, type BookOfferOutcome, type BookingSession } from '../../../domain/bookings/book-offer';
import { bookingView, type BookingView } from '../../../domain/bookings/booking-view';
import { isErrorStatus, type ErrorStatus } from '../../errors';
import { planned } from '../../plan';
import type { Env } from '../../types';
import { transfersError } from '../errors';
import { etag } from './booking-changes';
import type { PartnerContext, TransfersHandler, TransfersReply } from './types';

/** POST /bookings: the request as the use case's input, its plan as the answer (the pipeline commits it). */
export const createBooking: TransfersHandler<'createBooking'> = async (call, ctx) => {
  const key = call.headers['idempotency-key'];
  const scope = { partnerId: ctx.partner.partnerId, env: ctx.env };
  const plan = await bookOffer({ scope, input: call.body, idempotencyKey: typeof key === 'string' ? key : undefined }, session(ctx));
  return planned(plan, (outcome) => reply(ctx.env, outcome));
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
    serialise: answerOf,
  };
}

/**
 * The bytes of an outcome, as sent and as stored against the key: a booking's view, or the error envelope. Pure:
 * the outcome and the environment are all it reads (so an outcome is serialised once, for the key and the answer).
 */
export function answerOf(o: BookOfferOutcome, env: Env): Answer {
  if (o.kind === 'replayed') return o.answer;
  if (o.kind !== 'refused') return booked(o).answer;
  let a = refusals.get(o);
  if (!a) {
    const r = transfersError({ env }, o.error);
    refusals.set(o, (a = { status: r.status, body: JSON.stringify(r.body) }));
  }
  return a;
}

type Booked = Extract<BookOfferOutcome, { kind: 'created' | 'existing' }>;

/** A booking's answer, and the view it was made from (the audit row seals the view: no parse of the bytes). */
function booked(o: Booked): { answer: Answer; view: BookingView } {
  let b = bookings.get(o);
  if (!b) {
    const view = bookingView(o.booking);
    bookings.set(o, (b = { view, answer: { status: o.kind === 'created' ? 201 : 200, body: JSON.stringify(view) } }));
  }
  return b;
}

const refusals = new WeakMap<BookOfferOutcome, Answer>();
const bookings = new WeakMap<Booked, { answer: Answer; view: BookingView }>();

function reply(env: Env, o: BookOfferOutcome): TransfersReply<'createBooking'> {
  switch (o.kind) {
    case 'created': {
      const { answer, view } = booked(o);
      return { status: 201, body: view, rawBody: answer.body, headers: { ETag: etag(o.booking.version) } };
    }
    case 'existing': {
      const { answer, view } = booked(o);
      return {
        status: 200,
        body: view,
        rawBody: answer.body,
        headers: {
          ETag: etag(o.booking.version),
          'Partner-Reference-Reused': 'true',
          ...(o.differs.length ? { 'Partner-Reference-Mismatch': o.differs.join(', ') } : {}),
        },
      };
    }
    case 'refused': {
      const r = transfersError({ env }, o.error);
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

function replayStatus(stored: number): 200 | ErrorStatus {
  if (stored === 200 || stored === 201) return 200;
  if (isErrorStatus(stored)) return stored;
  throw new Error(`an Idempotency-Key stored status ${stored}, which no answer has`);
}
