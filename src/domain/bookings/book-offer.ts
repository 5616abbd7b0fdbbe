import { newSubjectKeys } from '../kernel/data-keys';
import type { Sql, Tx } from '../../data/database';
import { bookingFacts, insertNewBooking, newBookingWrite, type BookingRow, type NewBooking } from '../../data/repositories/bookings-repository';
import { hasRoom } from '../../data/repositories/fleet-repository';
import * as keys from '../../data/repositories/idempotency-repository';
import { AppError } from '../../shared/errors';
import type { Plan } from '../kernel/plan';
import { newBookingEvent } from './booking-events';
import { decideBooking, type BookingDecision, type BookingInput, type DecisionContext, type Scope } from './booking-decision';
import { claim, fingerprint, keptUntil, keyOf, refused, replayOf, storableError, type Answer, type Refused, type Replayed } from './idempotency';
import type { RecentBookingFacts } from './recent';

export type { Answer };

export interface BookOffer {
  scope: Scope;
  input: BookingInput;
  idempotencyKey?: string;
}

export type BookOfferOutcome =
  /** A new confirmed booking. */
  | { kind: 'created'; booking: BookingRow }
  /** The booking already made under this partner_reference; `differs` names how this request differs from it. */
  | { kind: 'existing'; booking: BookingRow; differs: Array<'offer_id' | 'cancelled'> }
  | Refused
  /** The answer stored against this Idempotency-Key by an earlier request, to be sent again byte for byte. */
  | Replayed;

export type BookingPlan = Plan<BookOfferOutcome>;

/** What booking needs of the request that serves it. */
export interface BookingSession extends DecisionContext {
  requestId: string;
  /** How long a request waits for another holding the same key before answering in_progress. */
  keyWaitMs: number;
  db: Sql;
  recent: RecentBookingFacts;
  /** The request's transaction: what runs in it commits with the request's audit row. */
  tx(): Promise<Tx>;
  /**
   * The bytes an outcome is answered with, as stored against its key: the surface's serialisation, a pure function
   * of the outcome and the environment.
   */
  serialise(outcome: BookOfferOutcome, env: Scope['env']): Answer;
}

/**
 * Books an offer (POST /transfers/v1/bookings), with Stripe-style idempotency enforced by the database, in as few
 * round trips as correctness allows. It decides; the request pipeline commits what it decided:
 *
 * 1. A key this instance saw completed replays its stored answer without a read.
 * 2. The fast path reads everything the decision needs in one statement (none for an offer this instance quoted),
 *    decides, and plans the booking, its job, its event, the key with its answer as one guarded write, committed
 *    with the audit row in one statement.
 * 3. If that statement loses a race (the offer, the reference or the key taken meanwhile), nothing of it counts and
 *    the careful path decides in the request's transaction: it claims the key first (a concurrent request with the
 *    same key waits for the first to commit, bounded by lock_timeout → in_progress), then books with the
 *    database's uniqueness as the referee.
 *
 * An invalid request is never stored against its key, so retrying it with the same key is safe.
 */
export async function bookOffer(req: BookOffer, s: BookingSession): Promise<BookingPlan> {
  const key = keyOf(req.scope, 'createBooking', req.idempotencyKey);
  const print = key ? fingerprint(req.input) : '';

  const known = key && s.recent.completedKey(req.scope, key.key);
  if (known) return { outcome: replayOf(known, print, s.keyWaitMs) };

  // An offer this instance quoted books without a read when the rules say "book". What memory cannot know (the
  // offer booked or the reference used elsewhere, the key stored by another request, the expiry moved) is settled by
  // the guarded write; a refusal is never decided from memory.
  const remembered = s.recent.offer(req.scope, req.input.offer_id);
  let decision = remembered && decideBooking({ offer: remembered, consumed: false }, req.scope, req.input, s);
  const fromMemory = decision?.kind === 'book';
  if (!decision || !fromMemory) {
    const facts = await bookingFacts(s.db, req.scope, { idempotencyKey: key?.key, partnerReference: req.input.partner_reference, offerId: req.input.offer_id });
    if (key && facts.stored) {
      s.recent.rememberKey(req.scope, key.key, facts.stored);
      return { outcome: replayOf(facts.stored, print, s.keyWaitMs) };
    }
    decision = decideBooking(facts, req.scope, req.input, s);
  }

  const outcome = outcomeOf(decision, req.input);
  const stored = key && storedAnswer(key, print, outcome, req, s);
  const write =
    decision.kind === 'book'
      ? newBookingWrite(newBooking(decision, s, stored, fromMemory))
      : stored && keys.storeWrite(stored.scope, print, s.requestId, s.now, stored.completion);
  if (!write) return { outcome };
  return {
    outcome,
    write,
    // A new booking's data key, stored with it (see domain/privacy).
    ...(decision.kind === 'book' ? { dataKeys: newSubjectKeys([`booking:${decision.booking.bookingRef}`]) } : {}),
    ifLost: () => bookCarefully(req, key, print, s),
    ...(stored ? { afterCommit: () => remember(stored, s) } : {}),
  };
}

/** The careful path, in the request's transaction, after the one-statement write lost a race. */
async function bookCarefully(req: BookOffer, key: keys.IdempotencyScope | undefined, print: string, s: BookingSession): Promise<BookingPlan> {
  const tx = await s.tx();
  if (key) {
    const earlier = await claim(tx, key, print, s);
    if (earlier) return { outcome: earlier };
  }
  const outcome = await bookInTransaction(tx, req, s);
  const stored = key && storedAnswer(key, print, outcome, req, s);
  if (stored) await keys.completeKey(tx, stored.scope, stored.completion);
  else if (key) await keys.releaseKey(tx, key);
  return stored ? { outcome, afterCommit: () => remember(stored, s) } : { outcome };
}

type Stored = { scope: keys.IdempotencyScope; fingerprint: string; completion: keys.Completion };

/** What the key keeps of an outcome worth replaying: its bytes, from the surface's pure serialisation. */
const storedAnswer = (key: keys.IdempotencyScope, print: string, o: BookOfferOutcome, req: BookOffer, s: BookingSession): Stored | undefined =>
  storable(o) ? { scope: key, fingerprint: print, completion: completion(s.serialise(o, req.scope.env), o, s.now) } : undefined;

/**
 * The facts are read again in the transaction and the booking inserted with the same write as the fast path's: a
 * uniqueness it loses becomes the right answer on the next read (the booking made under this partner_reference, or
 * offer_consumed); a booking_ref collision draws again.
 */
async function bookInTransaction(tx: Tx, req: BookOffer, s: BookingSession): Promise<BookOfferOutcome> {
  for (let attempt = 0; attempt < 4; attempt += 1) {
    const facts = await bookingFacts(tx, req.scope, { partnerReference: req.input.partner_reference, offerId: req.input.offer_id });
    const d = decideBooking(facts, req.scope, req.input, s);
    if (d.kind !== 'book') return outcomeOf(d, req.input);
    // Production: the class must have a vehicle free for the window (under the class's lock until commit).
    if (d.job && !(await hasRoom(tx, d.job.fleetCode, d.job.pickupAt, d.job.endsAt))) return refused(fleetFull(d));
    if (await insertNewBooking(tx, newBooking(d, s))) return { kind: 'created', booking: d.booking };
  }
  throw new Error('booking: no outcome after 4 attempts');
}

const newBooking = (d: Extract<BookingDecision, { kind: 'book' }>, s: BookingSession, key?: NewBooking['key'], offerFromMemory = false): NewBooking => ({
  booking: d.booking,
  job: d.job,
  event: newBookingEvent(d.booking, s.now),
  requestId: s.requestId,
  now: s.now,
  ...(offerFromMemory ? { offerLiveAt: s.now } : {}),
  ...(key ? { key } : {}),
});

function outcomeOf(d: BookingDecision, input: BookingInput): BookOfferOutcome {
  if (d.kind === 'refused') return d;
  if (d.kind === 'book') return { kind: 'created', booking: d.booking };
  // A partner_reference used before, said out loud: the partner must not mistake it for a new booking, least of all
  // when it was made for another offer or is cancelled.
  const differs = [
    ...(d.booking.offerId !== input.offer_id ? (['offer_id'] as const) : []),
    ...(d.booking.status === 'cancelled' ? (['cancelled'] as const) : []),
  ];
  return { kind: 'existing', booking: d.booking, differs };
}

/** Outcomes worth replaying are decisions: an invalid request is not, so retrying it with the same key is safe. */
const storable = (o: BookOfferOutcome) => o.kind !== 'replayed' && !(o.kind === 'refused' && !storableError(o.error));

const completion = (a: Answer, o: BookOfferOutcome, now: Date): keys.Completion => {
  const booking = o.kind === 'created' || o.kind === 'existing' ? o.booking : undefined;
  return { status: a.status, body: a.body, bookingRef: booking?.bookingRef ?? null, expiresAt: keptUntil(now, booking?.pickupAt) };
};

/** Once committed, this instance remembers the key's answer. */
function remember(stored: Stored, s: BookingSession): void {
  const { partnerId, env, key } = stored.scope;
  s.recent.rememberKey({ partnerId, env }, key, {
    fingerprint: stored.fingerprint,
    responseStatus: stored.completion.status,
    responseBody: stored.completion.body,
    requestId: s.requestId,
  });
}

const fleetFull = (d: Extract<BookingDecision, { kind: 'book' }>) =>
  new AppError(
    'booking_conflict',
    `Every ${d.booking.vehicleName.replace(/ or similar$/, '')} of our fleet is taken for this journey's time since the quote; quote again for another vehicle or time.`,
    { reason: 'fleet_full', offer_id: d.booking.offerId, vehicle_code: d.booking.vehicleCode },
  );
