import type { Sql, Tx } from '../../data/database';
import type { components } from '../../generated/marketplace-inbound';
import * as repo from '../../data/repositories/marketplace-repository';
import { cancelJob, insertJob, rescheduleJob, type JobPlace, type JobRecord } from '../../data/repositories/jobs-repository';
import { hasRoom } from '../../data/repositories/fleet-repository';
import { routeBetween } from '../geo/route';
import { journeyType } from '../pricing/price-journey';
import { jobEndsAt } from '../fleet/job-window';
import { meetingInstructions } from '../bookings/meeting-instructions';
import { getVehicle, storedFleetCode, vehicleOf, type FleetVehicle } from '../fleet/fleet';
import { formatMinor, parseDecimalToMinor } from '../pricing/money';
import { formatLocal } from './local-time';
import type { FxRates } from '../pricing/price-journey';
import { resolvePlace } from '../geo/resolve-place';
import type { ResolvedPlace } from '../geo/types';
import { AppError } from '../../shared/errors';
import { canonical, jsonFingerprint } from '../../shared/canonical-json';
import { BOOKING_REF_ALPHABET, randomString } from '../../shared/ids';
import { decideForMarketplace, findLockedQuote, pickupAtOf, seatsNeeded, type SearchInput } from './supplier';
import { notify, type NoticeBody, type OrderDeclineReason } from './notices';

/** A marketplace order as it reaches us (inbound POST /booking/, and the re-fetch behind a callback). */
export type MarketplaceOrder = components['schemas']['Order'];
/** Changed details of an order (inbound POST /booking/update/); a re-fetched order is applied as one too. */
export type OrderChange = components['schemas']['OrderChange'];

export type { OrderDeclineReason };

/** The state an answer reports: what the call did (change_confirmed, acknowledged), else the order's own. */
export type AnsweredState = repo.OrderState | 'change_confirmed' | 'acknowledged';

/** What a call on an order comes to: the order, the state to report, and whether the call was older news. */
export interface OrderAnswer {
  kind: 'order';
  orderId: string;
  supplierOrderId: string;
  state: AnsweredState;
  declineReason: string | null;
  /** The order or change was stamped before the order we hold: nothing was changed. */
  stale: boolean;
}

/** A change to an order we cannot take (the refusal is sent to the marketplace too). */
export interface ChangeRefused {
  kind: 'change_refused';
  reason: 'no_vehicle' | 'route_unknown';
  message: string;
}

type OrderRow = repo.OrderRecord<MarketplaceOrder>;

/**
 * Confirm, decline and change answers have a deadline at the marketplace (60 min, 2 h): they get more attempts
 * than the default, so the backoff keeps trying for about 37 minutes.
 */
const DEADLINE_ATTEMPTS = 11;

interface Ctx {
  now: Date;
  fx: FxRates;
  /** Makes the bodies of what we send the marketplace (its adapter). */
  noticeBody: NoticeBody;
}

/** What the order says, independent of bookkeeping fields (state, updated_at) and key order. */
const dataHash = (o: MarketplaceOrder) => {
  const { state: _s, updated_at: _u, ...data } = o;
  return jsonFingerprint(data);
};

const answer = (row: Pick<OrderRow, 'orderId' | 'supplierOrderId' | 'state' | 'declineReason'>, state: AnsweredState = row.state, stale = false): OrderAnswer => ({
  kind: 'order',
  orderId: row.orderId,
  supplierOrderId: row.supplierOrderId,
  state,
  declineReason: row.declineReason,
  stale,
});

/**
 * The marketplace's own time of an order's state (`updated_at`, local time `YYYY-MM-DD HH:MM:SS`, so the strings
 * compare in time order): an order or change stamped before the one we hold is older news. Without a stamp on
 * either side there is no telling, and arrival order decides.
 */
const isOlder = (incoming: { updated_at?: string }, stored: { updated_at?: string }) =>
  !!incoming.updated_at && !!stored.updated_at && incoming.updated_at < stored.updated_at;

/** The answer to older news: acknowledged (a retry would not make it newer), nothing changed, stale. */
const staleAnswer = (row: OrderRow) => answer(row, row.state, true);

/** Data unchanged but stamped later: the stored stamp moves on, so news older than this one stays older. */
async function noteOrderTime(tx: Sql, row: OrderRow, incoming: { updated_at?: string }, now: Date) {
  if (!incoming.updated_at || (row.order.updated_at && incoming.updated_at <= row.order.updated_at)) return;
  await repo.setOrderDocument(tx, row.orderId, { ...row.order, updated_at: incoming.updated_at }, now);
}

const orderNotFound = (orderId: string) => new AppError('not_found', `order ${orderId} not found`, { order_id: orderId });

const findOrder = (db: Sql, orderId: string, lock = false) => repo.findOrder<MarketplaceOrder>(db, orderId, lock);

/** The party is checked against the vehicle separately, so a lock holds for the same route and time. */
const journeyKey = (s: SearchInput) => JSON.stringify(canonical({ from: s.from, to: s.to, date: s.date }));

type Refusal = { ok: false; reason: OrderDeclineReason; message: string };
type Serve = { ok: true; vehicle: FleetVehicle; pickup: ResolvedPlace; dropoff: ResolvedPlace; durationMin: number } | Refusal;

/** The drive time between two located places (the route engine the quotes use). */
const driveMin = (pickup: ResolvedPlace, dropoff: ResolvedPlace) => routeBetween(pickup, dropoff).duration_min;

/**
 * Can we serve this order? With a live price mark for the same journey the locked price holds; otherwise the
 * journey is priced again by the same engine and the order's price must cover ours.
 */
async function canServe(db: Sql, o: MarketplaceOrder, ctx: Omit<Ctx, 'noticeBody'>): Promise<Serve> {
  const vehicle = getVehicle(o.vehicle_id);
  if (!vehicle) return { ok: false, reason: 'invalid_order', message: `vehicle ${o.vehicle_id} is not in our fleet` };
  if (seatsNeeded(o) > vehicle.max_passengers || (o.luggage ?? 0) > vehicle.max_luggage) {
    return { ok: false, reason: 'no_vehicle', message: `the party does not fit a ${vehicle.name}` };
  }
  const pickup = resolvePlace(o.from);
  const dropoff = resolvePlace(o.to);
  if (!pickup.ok || !dropoff.ok) return { ok: false, reason: 'route_unknown', message: 'pickup or drop-off could not be located' };
  const offered = parseDecimalToMinor(o.price, 'EUR');
  const locked = o.price_mark ? await findLockedQuote(db, o.vehicle_id, o.price_mark, ctx.now) : null;
  if (locked && journeyKey(locked.search) === journeyKey(o)) {
    if (offered !== locked.amountMinor) {
      return { ok: false, reason: 'price_mismatch', message: `the order price ${o.price} differs from the locked ${formatMinor(locked.amountMinor, 'EUR')}` };
    }
    return { ok: true, vehicle, pickup: pickup.place, dropoff: dropoff.place, durationMin: locked.durationMin };
  }
  if (o.price_mark && !locked) {
    return { ok: false, reason: 'price_mark_expired', message: 'the locked quote expired or does not exist' };
  }
  const decision = await decideForMarketplace(
    { pickup: o.from, dropoff: o.to, pickupAt: pickupAtOf(o), adults: seatsNeeded(o), luggage: o.luggage ?? 0, vehicleFilter: [o.vehicle_id], currency: 'EUR' },
    { now: ctx.now, fx: ctx.fx },
  );
  if (!decision.ok) return { ok: false, reason: decision.reason, message: decision.message };
  const ours = decision.offers.find((x) => x.vehicle.code === o.vehicle_id);
  if (!ours) return { ok: false, reason: 'no_vehicle', message: `no ${vehicle.name} for this journey` };
  if (offered < ours.amount_minor) {
    return { ok: false, reason: 'price_mismatch', message: `the order price ${o.price} is below our price ${formatMinor(ours.amount_minor, 'EUR')}` };
  }
  return { ok: true, vehicle, pickup: decision.pickup, dropoff: decision.dropoff, durationMin: decision.duration_min };
}

const place = (p: ResolvedPlace, given: { name?: string }): JobPlace => ({
  name: given.name?.trim() || p.name,
  resolved_name: p.name,
  ...(p.iata ? { iata: p.iata } : {}),
  lat: p.lat,
  lon: p.lon,
});

/** The order as a job on the shared schedule: one mapping for creation and changes. */
function orderJob(o: MarketplaceOrder, serve: Extract<Serve, { ok: true }>): JobRecord {
  const pickupAt = pickupAtOf(o);
  const type = journeyType(serve.pickup, serve.dropoff);
  const pickup = place(serve.pickup, o.from);
  const dropoff = place(serve.dropoff, o.to);
  return {
    source: 'marketplace_order',
    sourceRef: o.order_id,
    fleetCode: serve.vehicle.code,
    pickupAt,
    endsAt: jobEndsAt(pickupAt, serve.durationMin, type),
    durationMin: serve.durationMin,
    pickup,
    dropoff,
    adults: seatsNeeded(o),
    luggage: o.luggage ?? 0,
    passenger: { name: o.customer.name, phone: o.customer.phone ?? null },
    flightNumber: o.flight_number ?? null,
    meetingInstructions: meetingInstructions({
      journeyType: type,
      pickupName: pickup.name,
      dropoffName: dropoff.name,
      iata: serve.pickup.iata,
      passengerName: o.customer.name,
      flightNumber: o.flight_number ?? null,
      pickupDatetime: formatLocal(pickupAt).replace(' ', 'T') + '+05:30',
    }),
  };
}

/**
 * Stores a marketplace order once (idempotent on order_id: a resend, a concurrent duplicate or a repeated
 * callback never makes a second row or job), projects it to a job on the shared schedule, and enqueues the
 * confirmation — or the decline, when we cannot serve it — in the same transaction.
 */
export async function createOrder(tx: Sql, o: MarketplaceOrder, ctx: Ctx & { source: 'booking' | 'callback' }): Promise<OrderAnswer> {
  return (await placeOrder(tx, o, ctx)).answer;
}

/** The order's job when we can serve it and the fleet has a vehicle of its class free for the job's window. */
async function scheduled(tx: Sql, o: MarketplaceOrder, ctx: Ctx): Promise<{ ok: true; job: JobRecord } | Refusal> {
  const serve = await canServe(tx, o, ctx);
  if (!serve.ok) return serve;
  const job = orderJob(o, serve);
  // Under the class's lock until commit: of two orders racing for the last vehicle, the second sees the first.
  if (!(await hasRoom(tx, job.fleetCode, job.pickupAt, job.endsAt))) {
    return { ok: false, reason: 'no_vehicle', message: `every ${serve.vehicle.name} of our fleet is taken at that time` };
  }
  return { ok: true, job };
}

/** createOrder, saying whether this call stored the order (false: it was stored before, or meanwhile). */
async function placeOrder(tx: Sql, o: MarketplaceOrder, ctx: Ctx & { source: 'booking' | 'callback' }): Promise<{ placed: boolean; answer: OrderAnswer }> {
  const existing = await findOrder(tx, o.order_id);
  if (existing) return { placed: false, answer: answer(existing) };

  const serve = await scheduled(tx, o, ctx);
  const state: repo.OrderState = serve.ok ? 'confirmed' : 'declined';
  const row = {
    orderId: o.order_id,
    state,
    vehicle: o.vehicle_id,
    priceMark: o.price_mark ?? null,
    order: o,
    source: ctx.source,
    pickupAt: serve.ok ? pickupAtOf(o) : null,
    amountMinor: parseDecimalToMinor(o.price, 'EUR'),
    supplierOrderId: `MO-${randomString(BOOKING_REF_ALPHABET, 8)}`,
    declineReason: serve.ok ? null : serve.reason,
    dataHash: dataHash(o),
  };
  if (!(await repo.insertOrder(tx, row, ctx.now))) return { placed: false, answer: answer((await findOrder(tx, o.order_id))!) };

  if (serve.ok) {
    await insertJob(tx, serve.job, ctx.now);
    const notice = { kind: 'confirm_order', orderId: o.order_id, supplierOrderId: row.supplierOrderId } as const;
    await notify(tx, ctx.noticeBody, notice, { dedupeKey: `confirm:${o.order_id}`, maxAttempts: DEADLINE_ATTEMPTS }, ctx.now);
  } else {
    const notice = { kind: 'decline_order', orderId: o.order_id, reason: serve.reason, comment: serve.message } as const;
    await notify(tx, ctx.noticeBody, notice, { dedupeKey: `decline:${o.order_id}`, maxAttempts: DEADLINE_ATTEMPTS }, ctx.now);
  }
  return { placed: true, answer: answer(row) };
}

export async function cancelOrder(tx: Sql, orderId: string, now: Date): Promise<OrderAnswer> {
  const row = await findOrder(tx, orderId, true);
  if (!row) throw orderNotFound(orderId);
  if (row.state !== 'cancelled') {
    await repo.setOrderState(tx, orderId, 'cancelled', now);
    await cancelJob(tx, 'marketplace_order', orderId, now);
  }
  return answer(row, 'cancelled');
}

export async function acknowledgeOrder(tx: Sql, orderId: string, now: Date): Promise<OrderAnswer> {
  const row = await findOrder(tx, orderId, true);
  if (!row) throw orderNotFound(orderId);
  await repo.markAcknowledged(tx, orderId, now);
  return answer(row, 'acknowledged');
}

/**
 * Applies changed details to a confirmed order and its job, and enqueues the change confirmation (accepted, or
 * refused when the vehicle no longer fits or the route cannot be located). Repeating the same change is harmless.
 * A change stamped (`updated_at`) before the order we hold is older news: acknowledged with `stale: true`, nothing
 * changed and nothing sent. The order's row is locked first, so concurrent changes are judged one after the other.
 */
export async function updateOrder(tx: Tx, change: OrderChange, ctx: Ctx): Promise<OrderAnswer | ChangeRefused> {
  const row = await findOrder(tx, change.order_id, true);
  if (!row) throw orderNotFound(change.order_id);
  if (isOlder(change, row.order)) return staleAnswer(row);
  if (row.state !== 'confirmed') throw new AppError('invalid_request', `order ${row.orderId} is ${row.state} and cannot be changed`);
  const next: MarketplaceOrder = { ...row.order, ...change, state: row.order.state };
  const hash = dataHash(next);
  if (hash === row.dataHash) {
    await noteOrderTime(tx, row, change, ctx.now);
    return answer(row, 'change_confirmed');
  }

  const vehicle = vehicleOf(storedFleetCode(row.vehicle));
  const pickup = resolvePlace(next.from);
  const dropoff = resolvePlace(next.to);
  const delivery = { dedupeKey: `change:${row.orderId}:${hash}`, maxAttempts: DEADLINE_ATTEMPTS };
  const refuse = async (reason: ChangeRefused['reason'], message: string): Promise<ChangeRefused> => {
    await notify(tx, ctx.noticeBody, { kind: 'change_confirmation', orderId: row.orderId, accepted: false, comment: message }, delivery, ctx.now);
    return { kind: 'change_refused', reason, message };
  };
  if (seatsNeeded(next) > vehicle.max_passengers || (next.luggage ?? 0) > vehicle.max_luggage) {
    return refuse('no_vehicle', `the changed party does not fit a ${vehicle.name}`);
  }
  if (!pickup.ok || !dropoff.ok) return refuse('route_unknown', 'the changed pickup or drop-off could not be located');
  await repo.applyOrderChange(tx, row.orderId, next, hash, pickupAtOf(next), ctx.now);
  await rescheduleJob(tx, orderJob(next, { ok: true, vehicle, pickup: pickup.place, dropoff: dropoff.place, durationMin: driveMin(pickup.place, dropoff.place) }), ctx.now);
  await notify(tx, ctx.noticeBody, { kind: 'change_confirmation', orderId: row.orderId, accepted: true }, delivery, ctx.now);
  return answer(row, 'change_confirmed');
}

/**
 * An order callback, applied from the re-fetched order only (the posted body is never trusted): a new order is
 * created; a change is applied (or a cancellation, when the marketplace says so); an unchanged order is a no-op.
 * Re-fetches can overtake each other (two callbacks close together, a slow answer): one stamped (`updated_at`)
 * before the order we hold never overwrites it — it is acknowledged with `stale: true`. The order's row is locked
 * first, so concurrent callbacks are judged one after the other against what the other committed.
 */
export async function applyRefetchedOrder(tx: Tx, type: 'new' | 'change', o: MarketplaceOrder, ctx: Ctx): Promise<OrderAnswer> {
  let row = await findOrder(tx, o.order_id, true);
  if (!row) {
    const placed = await placeOrder(tx, o, { ...ctx, source: 'callback' });
    if (placed.placed) return placed.answer;
    // Stored meanwhile by a concurrent callback: what this one fetched is judged against that, like any change.
    row = (await findOrder(tx, o.order_id, true))!;
  }
  if (isOlder(o, row.order)) return staleAnswer(row);
  if (o.state === 'cancelled') return cancelOrder(tx, o.order_id, ctx.now);
  if (type === 'new' || row.state !== 'confirmed') return answer(row);
  if (dataHash(o) === row.dataHash) {
    await noteOrderTime(tx, row, o, ctx.now);
    return answer(row);
  }
  const result = await updateOrder(tx, o, ctx);
  return result.kind === 'order' ? result : answer(row);
}
