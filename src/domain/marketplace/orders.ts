import type { Sql, Tx } from '../../data/database';
import * as repo from '../../data/repositories/marketplace-repository';
import { cancelJob, insertJob, rescheduleJob, type JobPlace, type JobRecord } from '../../data/repositories/jobs-repository';
import { hasRoom } from '../../data/repositories/fleet-repository';
import { routeBetween } from '../geo/route';
import { journeyType } from '../pricing/price-journey';
import { jobEndsAt } from '../fleet/job-window';
import { meetingInstructions } from '../bookings/meeting-instructions';
import { getVehicle } from '../fleet/fleet';
import { formatMinor, parseDecimalToMinor } from '../pricing/money';
import { formatLocal } from './local-time';
import type { FxRates } from '../pricing/price-journey';
import { resolvePlace } from '../geo/resolve-place';
import type { ResolvedPlace } from '../geo/types';
import { decideJourney } from '../quotes/decide';
import { enqueueOutbound } from '../outbox/outbox';
import { AppError } from '../../shared/errors';
import { canonical, jsonFingerprint } from '../../shared/canonical-json';
import { BOOKING_REF_ALPHABET, randomString } from '../../shared/ids';
import { findLockedQuote, noVehicle, pickupAtOf, seatsNeeded, type SearchInput } from './supplier';

/** A marketplace order as it travels on the wire (inbound POST /booking/ and the authenticated re-fetch). */
export interface MarketplaceOrder extends SearchInput {
  order_id: string;
  state?: string;
  price_mark?: string;
  vehicle_id: string;
  price: string;
  currency: 'EUR';
  meeting_type?: 'MG' | 'MAC' | 'NMG';
  flight_number?: string;
  customer: { name: string; phone?: string; email?: string };
  passengers?: Record<string, { name_surname?: string; passport?: string }>;
  extras?: Array<{ code: string; qty: number }>;
  payment_scheme?: 1 | 2;
  driver_collects?: string;
  comment?: string;
  updated_at?: string;
}

export type DeclineReason = 'no_vehicle' | 'price_mark_expired' | 'price_mismatch' | 'route_unknown' | 'short_notice' | 'below_min_rate' | 'invalid_order';

type OrderRow = repo.OrderRecord<MarketplaceOrder>;

/**
 * Confirm, decline and change answers have a deadline at the marketplace (60 min, 2 h): they get more attempts
 * than the default, so the backoff keeps trying for about 37 minutes.
 */
const DEADLINE_ATTEMPTS = 11;

interface Ctx {
  now: Date;
  fx: FxRates;
}

/** What the order says, independent of bookkeeping fields (state, updated_at) and key order. */
const dataHash = (o: MarketplaceOrder) => {
  const { state: _s, updated_at: _u, ...data } = o;
  return jsonFingerprint(data);
};

const ack = (row: Pick<OrderRow, 'orderId' | 'supplierOrderId' | 'state' | 'declineReason'>, state?: string) => ({
  status: 'OK' as const,
  order_id: row.orderId,
  supplier_order_id: row.supplierOrderId,
  order_state: (state ?? row.state) as 'confirmed' | 'declined' | 'cancelled' | 'change_confirmed' | 'acknowledged',
  ...(row.declineReason ? { decline_reason: row.declineReason } : {}),
});

/**
 * The marketplace's own time of an order's state (`updated_at`, local time `YYYY-MM-DD HH:MM:SS`, so the strings
 * compare in time order): an order or change stamped before the one we hold is older news. Without a stamp on
 * either side there is no telling, and arrival order decides.
 */
const isOlder = (incoming: { updated_at?: string }, stored: { updated_at?: string }) =>
  !!incoming.updated_at && !!stored.updated_at && incoming.updated_at < stored.updated_at;

/** The answer to older news: acknowledged (a retry would not make it newer), nothing changed, `stale: true`. */
const staleAck = (row: OrderRow) => ({ ...ack(row), stale: true as const });

/** Data unchanged but stamped later: the stored stamp moves on, so news older than this one stays older. */
async function noteOrderTime(tx: Sql, row: OrderRow, incoming: { updated_at?: string }, now: Date) {
  if (!incoming.updated_at || (row.order.updated_at && incoming.updated_at <= row.order.updated_at)) return;
  await repo.setOrderDocument(tx, row.orderId, { ...row.order, updated_at: incoming.updated_at }, now);
}

const orderNotFound = (orderId: string) => new AppError('not_found', `order ${orderId} not found`, { order_id: orderId });

const findOrder = (db: Sql, orderId: string, lock = false) => repo.findOrder<MarketplaceOrder>(db, orderId, lock);

/** The party is checked against the vehicle separately, so a lock holds for the same route and time. */
const journeyKey = (s: SearchInput) => JSON.stringify(canonical({ from: s.from, to: s.to, date: s.date }));

type Serve = { ok: true; pickup: ResolvedPlace; dropoff: ResolvedPlace; durationMin: number } | { ok: false; reason: DeclineReason; message: string };

/** The drive time between two located places (the route engine the quotes use). */
const driveMin = (pickup: ResolvedPlace, dropoff: ResolvedPlace) => routeBetween(pickup, dropoff).duration_min;

/**
 * Can we serve this order? With a live price mark for the same journey the locked price holds; otherwise the
 * journey is priced again by the same engine and the order's price must cover ours.
 */
async function canServe(db: Sql, o: MarketplaceOrder, ctx: Ctx): Promise<Serve> {
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
    return { ok: true, pickup: pickup.place, dropoff: dropoff.place, durationMin: locked.durationMin };
  }
  if (o.price_mark && !locked) {
    return { ok: false, reason: 'price_mark_expired', message: 'the locked quote expired or does not exist' };
  }
  const decision = decideJourney(
    { pickup: o.from, dropoff: o.to, pickupAt: pickupAtOf(o), adults: seatsNeeded(o), luggage: o.luggage ?? 0, vehicleFilter: [o.vehicle_id], currency: 'EUR' },
    ctx,
  );
  if (!decision.ok) return { ok: false, reason: decision.reason as DeclineReason, message: decision.message };
  const ours = decision.offers.find((x) => x.vehicle.code === o.vehicle_id);
  if (!ours) return { ok: false, reason: 'no_vehicle', message: `no ${vehicle.name} for this journey` };
  if (offered < ours.amount_minor) {
    return { ok: false, reason: 'price_mismatch', message: `the order price ${o.price} is below our price ${formatMinor(ours.amount_minor, 'EUR')}` };
  }
  return { ok: true, pickup: decision.pickup, dropoff: decision.dropoff, durationMin: decision.duration_min };
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
    fleetCode: o.vehicle_id,
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
export async function createOrder(tx: Sql, o: MarketplaceOrder, ctx: Ctx & { source: 'booking' | 'callback' }) {
  return (await placeOrder(tx, o, ctx)).answer;
}

/** createOrder, saying whether this call stored the order (false: it was stored before, or meanwhile). */
async function placeOrder(tx: Sql, o: MarketplaceOrder, ctx: Ctx & { source: 'booking' | 'callback' }) {
  const existing = await findOrder(tx, o.order_id);
  if (existing) return { placed: false, answer: ack(existing) };

  let serve = await canServe(tx, o, ctx);
  // The fleet must have a vehicle of the class free for the job's window (under the class's lock until commit).
  const job = serve.ok ? orderJob(o, serve) : null;
  if (job && !(await hasRoom(tx, job.fleetCode, job.pickupAt, job.endsAt))) {
    serve = { ok: false, reason: 'no_vehicle', message: `every ${getVehicle(o.vehicle_id)!.name} of our fleet is taken at that time` };
  }
  const row = {
    orderId: o.order_id,
    state: (serve.ok ? 'confirmed' : 'declined') as OrderRow['state'],
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
  if (!(await repo.insertOrder(tx, row, ctx.now))) return { placed: false, answer: ack((await findOrder(tx, o.order_id))!) };

  if (serve.ok) {
    await insertJob(tx, job!, ctx.now);
    await enqueueOutbound(tx, { kind: 'confirm_order', orderId: o.order_id, payload: { order_id: o.order_id, supplier_order_id: row.supplierOrderId }, dedupeKey: `confirm:${o.order_id}`, maxAttempts: DEADLINE_ATTEMPTS }, ctx.now);
  } else {
    await enqueueOutbound(tx, { kind: 'decline_order', orderId: o.order_id, payload: { order_id: o.order_id, reason: serve.reason, comment: serve.message }, dedupeKey: `decline:${o.order_id}`, maxAttempts: DEADLINE_ATTEMPTS }, ctx.now);
  }
  return { placed: true, answer: ack(row) };
}

export async function cancelOrder(tx: Sql, orderId: string, now: Date) {
  const row = await findOrder(tx, orderId, true);
  if (!row) throw orderNotFound(orderId);
  if (row.state !== 'cancelled') {
    await repo.setOrderState(tx, orderId, 'cancelled', now);
    await cancelJob(tx, 'marketplace_order', orderId, now);
  }
  return ack({ ...row, state: 'cancelled' });
}

export async function acknowledgeOrder(tx: Sql, orderId: string, now: Date) {
  const row = await findOrder(tx, orderId, true);
  if (!row) throw orderNotFound(orderId);
  await repo.markAcknowledged(tx, orderId, now);
  return ack(row, 'acknowledged');
}

export type OrderChange = Partial<Omit<MarketplaceOrder, 'order_id'>> & { order_id: string };

/**
 * Applies changed details to a confirmed order and its job, and enqueues the change confirmation (accepted, or
 * refused when the vehicle no longer fits or the route cannot be located). Repeating the same change is harmless.
 * A change stamped (`updated_at`) before the order we hold is older news: acknowledged with `stale: true`, nothing
 * changed and nothing sent. The order's row is locked first, so concurrent changes are judged one after the other.
 */
export async function updateOrder(tx: Tx, change: OrderChange, ctx: Ctx) {
  const row = await findOrder(tx, change.order_id, true);
  if (!row) throw orderNotFound(change.order_id);
  if (isOlder(change, row.order)) return staleAck(row);
  if (row.state !== 'confirmed') throw new AppError('invalid_request', `order ${row.orderId} is ${row.state} and cannot be changed`);
  const next: MarketplaceOrder = { ...row.order, ...change, state: row.order.state };
  const hash = dataHash(next);
  if (hash === row.dataHash) {
    await noteOrderTime(tx, row, change, ctx.now);
    return ack(row, 'change_confirmed');
  }

  const vehicle = getVehicle(row.vehicle)!;
  const pickup = resolvePlace(next.from);
  const dropoff = resolvePlace(next.to);
  const dedupeKey = `change:${row.orderId}:${hash}`;
  const refuse = async (refusal: ReturnType<typeof noVehicle>) => {
    await enqueueOutbound(tx, { kind: 'change_confirmation', orderId: row.orderId, payload: { order_id: row.orderId, accepted: false, comment: refusal.error }, dedupeKey, maxAttempts: DEADLINE_ATTEMPTS }, ctx.now);
    return refusal;
  };
  if (seatsNeeded(next) > vehicle.max_passengers || (next.luggage ?? 0) > vehicle.max_luggage) {
    return refuse(noVehicle(`the changed party does not fit a ${vehicle.name}`, 'no_vehicle'));
  }
  if (!pickup.ok || !dropoff.ok) return refuse(noVehicle('the changed pickup or drop-off could not be located', 'route_unknown'));
  await repo.applyOrderChange(tx, row.orderId, next, hash, pickupAtOf(next), ctx.now);
  await rescheduleJob(tx, orderJob(next, { ok: true, pickup: pickup.place, dropoff: dropoff.place, durationMin: driveMin(pickup.place, dropoff.place) }), ctx.now);
  await enqueueOutbound(tx, { kind: 'change_confirmation', orderId: row.orderId, payload: { order_id: row.orderId, accepted: true }, dedupeKey, maxAttempts: DEADLINE_ATTEMPTS }, ctx.now);
  return ack(row, 'change_confirmed');
}

/**
 * An order callback, applied from the re-fetched order only (the posted body is never trusted): a new order is
 * created; a change is applied (or a cancellation, when the marketplace says so); an unchanged order is a no-op.
 * Re-fetches can overtake each other (two callbacks close together, a slow answer): one stamped (`updated_at`)
 * before the order we hold never overwrites it — it is acknowledged with `stale: true`. The order's row is locked
 * first, so concurrent callbacks are judged one after the other against what the other committed.
 */
export async function applyRefetchedOrder(tx: Tx, type: 'new' | 'change', o: MarketplaceOrder, ctx: Ctx) {
  let row = await findOrder(tx, o.order_id, true);
  if (!row) {
    const placed = await placeOrder(tx, o, { ...ctx, source: 'callback' });
    if (placed.placed) return placed.answer;
    // Stored meanwhile by a concurrent callback: what this one fetched is judged against that, like any change.
    row = (await findOrder(tx, o.order_id, true))!;
  }
  if (isOlder(o, row.order)) return staleAck(row);
  if (o.state === 'cancelled') return cancelOrder(tx, o.order_id, ctx.now);
  if (type === 'new' || row.state !== 'confirmed') return ack(row);
  if (dataHash(o) === row.dataHash) {
    await noteOrderTime(tx, row, o, ctx.now);
    return ack(row);
  }
  const result = await updateOrder(tx, o, ctx);
  return 'order_state' in result ? result : ack(row);
}
