import type { Sql } from '../../data/database';
import * as repo from '../../data/repositories/marketplace-repository';
import { insertJob, type JobRecord } from '../../data/repositories/jobs-repository';
import { hasRoom } from '../../data/repositories/fleet-repository';
import { getVehicle } from '../kernel/fleet';
import { resolvePlace } from '../geo/resolve-place';
import { formatMinor, parseDecimalToMinor } from '../kernel/money';
import { canonical } from '../../shared/canonical-json';
import { BOOKING_REF_ALPHABET, randomString } from '../../shared/ids';
import { notify } from './notices';
import {
  answer,
  beforeDeadline,
  dataHash,
  findOrder,
  type MarketplaceOrder,
  type OrderAnswer,
  type OrderCtx,
  type OrderDeclineReason,
  type OrderRow,
} from './orders';
import { orderJob, type Served } from './order-job';
import { decideForMarketplace, findLockedQuote, pickupAtOf, seatsNeeded, type SearchInput } from './supplier';

type Refusal = { ok: false; reason: OrderDeclineReason; message: string };
type Source = { source: 'booking' | 'callback' };

/**
 * Stores a marketplace order once (idempotent on order_id: a resend, a concurrent duplicate or a repeated
 * callback never makes a second row or job), projects it to a job on the shared schedule, and enqueues the
 * confirmation — or the decline, when we cannot serve it — in the same transaction.
 *
 * 1. An order stored before is answered as it stands.
 * 2. We serve it when its vehicle fits the party, both places are located, its price covers ours (or matches the
 *    price we locked for the same journey) and a vehicle of its class is free for the job's window.
 * 3. The order is stored confirmed or declined; if a concurrent call stored it meanwhile, that one is the answer.
 *    A confirmed order gets its job and the confirmation, a declined one the decline with our reason.
 */
export async function createOrder(tx: Sql, o: MarketplaceOrder, ctx: OrderCtx & Source): Promise<OrderAnswer> {
  return (await placeOrder(tx, o, ctx)).answer;
}

/** createOrder, saying whether this call stored the order (false: it was stored before, or meanwhile). */
export async function placeOrder(tx: Sql, o: MarketplaceOrder, ctx: OrderCtx & Source): Promise<{ placed: boolean; answer: OrderAnswer }> {
  const existing = await findOrder(tx, o.order_id);
  if (existing) return { placed: false, answer: answer(existing) };

  const serve = await scheduled(tx, o, ctx);
  const row = orderRow(o, serve, ctx.source);

  if (!(await repo.insertOrder(tx, row, ctx.now))) return { placed: false, answer: answer((await findOrder(tx, o.order_id))!) };
  if (serve.ok) {
    await insertJob(tx, serve.job, ctx.now);
    const notice = { kind: 'confirm_order', orderId: o.order_id, supplierOrderId: row.supplierOrderId } as const;
    await notify(tx, ctx.noticeBody, notice, beforeDeadline(`confirm:${o.order_id}`), ctx.now);
  } else {
    const notice = { kind: 'decline_order', orderId: o.order_id, reason: serve.reason, comment: serve.message } as const;
    await notify(tx, ctx.noticeBody, notice, beforeDeadline(`decline:${o.order_id}`), ctx.now);
  }
  return { placed: true, answer: answer(row) };
}

/** The order's job when we can serve it and the fleet has a vehicle of its class free for the job's window. */
async function scheduled(tx: Sql, o: MarketplaceOrder, ctx: OrderCtx): Promise<{ ok: true; job: JobRecord } | Refusal> {
  const serve = await canServe(tx, o, ctx);
  if (!serve.ok) return serve;
  const job = orderJob(o, serve);
  // Under the class's lock until commit: of two orders racing for the last vehicle, the second sees the first.
  if (!(await hasRoom(tx, job.fleetCode, job.pickupAt, job.endsAt))) {
    return { ok: false, reason: 'no_vehicle', message: `every ${serve.vehicle.name} of our fleet is taken at that time` };
  }
  return { ok: true, job };
}

/**
 * Can we serve this order? With a live price mark for the same journey the locked price holds; otherwise the
 * journey is priced again by the same engine and the order's price must cover ours.
 */
async function canServe(db: Sql, o: MarketplaceOrder, ctx: Omit<OrderCtx, 'noticeBody'>): Promise<({ ok: true } & Served) | Refusal> {
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

/** The party is checked against the vehicle separately, so a lock holds for the same route and time. */
const journeyKey = (s: SearchInput) => JSON.stringify(canonical({ from: s.from, to: s.to, date: s.date }));

/** The order's row: confirmed with its pickup time when served, else declined with the reason. */
function orderRow(o: MarketplaceOrder, serve: { ok: true } | Refusal, source: Source['source']): Omit<OrderRow, 'version' | 'createdAt' | 'updatedAt'> {
  return {
    orderId: o.order_id,
    state: serve.ok ? 'confirmed' : 'declined',
    vehicle: o.vehicle_id,
    priceMark: o.price_mark ?? null,
    order: o,
    source,
    pickupAt: serve.ok ? pickupAtOf(o) : null,
    amountMinor: parseDecimalToMinor(o.price, 'EUR'),
    supplierOrderId: `MO-${randomString(BOOKING_REF_ALPHABET, 8)}`,
    declineReason: serve.ok ? null : serve.reason,
    dataHash: dataHash(o),
  };
}
