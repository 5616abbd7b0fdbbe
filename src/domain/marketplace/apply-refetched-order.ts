import type { Tx } from '../../data/database';
import { cancelOrder } from './cancel-order';
import { updateOrder } from './change-order';
import { placeOrder } from './create-order';
import { answer, dataHash, findOrder, isOlder, noteOrderTime, staleAnswer, type MarketplaceOrder, type OrderAnswer, type OrderCtx } from './orders';

/**
 * An order callback, applied from the re-fetched order only (the posted body is never trusted): a new order is
 * created; a change is applied (or a cancellation, when the marketplace says so); an unchanged order is a no-op.
 * Re-fetches can overtake each other (two callbacks close together, a slow answer): one stamped (`updated_at`)
 * before the order we hold never overwrites it — it is acknowledged with `stale: true`. The order's row is locked
 * first, so concurrent callbacks are judged one after the other against what the other committed.
 */
export async function applyRefetchedOrder(tx: Tx, type: 'new' | 'change', o: MarketplaceOrder, ctx: OrderCtx): Promise<OrderAnswer> {
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
