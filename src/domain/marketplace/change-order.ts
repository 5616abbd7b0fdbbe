import type { Tx } from '../../data/database';
import { applyOrderChange } from '../../data/repositories/marketplace-repository';
import { storedFleetCode, vehicleOf } from '../kernel/fleet';
import { resolvePlace } from '../geo/resolve-place';
import { AppError } from '../../shared/errors';
import { notify } from './notices';
import { driveMin, orderJob, type Served } from './order-job';
import {
  answer,
  beforeDeadline,
  dataHash,
  isOlder,
  noteOrderTime,
  requireOrder,
  staleAnswer,
  type ChangeRefused,
  type MarketplaceOrder,
  type OrderAnswer,
  type OrderChange,
  type OrderCtx,
  type OrderRow,
} from './orders';
import { pickupAtOf, seatsNeeded } from './supplier';

type ChangeServed = ({ ok: true } & Served) | { ok: false; reason: ChangeRefused['reason']; message: string };

/**
 * Applies changed details to a confirmed order and its job (which follows it as a partner booking's does: an
 * assignment that no longer fits is released), and enqueues the change confirmation (accepted, or refused when the
 * vehicle no longer fits or the route cannot be located). Repeating the same change is harmless.
 * A change stamped (`updated_at`) before the order we hold is older news: acknowledged with `stale: true`, nothing
 * changed and nothing sent. The order's row is locked first, so concurrent changes are judged one after the other.
 */
export async function updateOrder(tx: Tx, change: OrderChange, ctx: OrderCtx): Promise<OrderAnswer | ChangeRefused> {
  const row = await requireOrder(tx, change.order_id);
  if (isOlder(change, row.order)) return staleAnswer(row);
  if (row.state !== 'confirmed') throw new AppError('invalid_request', `order ${row.orderId} is ${row.state} and cannot be changed`);

  const next: MarketplaceOrder = { ...row.order, ...change, state: row.order.state };
  const hash = dataHash(next);
  if (hash === row.dataHash) {
    await noteOrderTime(tx, row, change, ctx.now);
    return answer(row, 'change_confirmed');
  }
  const serve = serveChange(row, next);
  const delivery = beforeDeadline(`change:${row.orderId}:${hash}`);

  if (!serve.ok) {
    await notify(tx, ctx.noticeBody, { kind: 'change_confirmation', orderId: row.orderId, accepted: false, comment: serve.message }, delivery, ctx.now);
    return { kind: 'change_refused', reason: serve.reason, message: serve.message };
  }
  await applyOrderChange(tx, row.orderId, next, hash, pickupAtOf(next), ctx.now);
  await ctx.followJob(tx, { source: 'marketplace_order', sourceRef: row.orderId }, () => orderJob(next, serve), ctx.now);
  await notify(tx, ctx.noticeBody, { kind: 'change_confirmation', orderId: row.orderId, accepted: true }, delivery, ctx.now);
  return answer(row, 'change_confirmed');
}

/** The changed order stays on the vehicle it was confirmed for: the party must still fit it, and both places be located. */
function serveChange(row: OrderRow, next: MarketplaceOrder): ChangeServed {
  const vehicle = vehicleOf(storedFleetCode(row.vehicle));
  const pickup = resolvePlace(next.from);
  const dropoff = resolvePlace(next.to);
  if (seatsNeeded(next) > vehicle.max_passengers || (next.luggage ?? 0) > vehicle.max_luggage) {
    return { ok: false, reason: 'no_vehicle', message: `the changed party does not fit a ${vehicle.name}` };
  }
  if (!pickup.ok || !dropoff.ok) return { ok: false, reason: 'route_unknown', message: 'the changed pickup or drop-off could not be located' };
  return { ok: true, vehicle, pickup: pickup.place, dropoff: dropoff.place, durationMin: driveMin(pickup.place, dropoff.place) };
}
