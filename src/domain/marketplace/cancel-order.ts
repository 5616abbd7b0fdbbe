import type { Sql } from '../../data/database';
import { setOrderState } from '../../data/repositories/marketplace-repository';
import { cancelJob } from '../../data/repositories/jobs-repository';
import { answer, requireOrder, type OrderAnswer } from './orders';

/**
 * The marketplace cancels an order (inbound POST /booking/cancel/, or a re-fetched order it says is cancelled): the
 * order and its job are cancelled, which frees the job's vehicle for the window. Cancelling it again changes nothing;
 * the answer is cancelled either way.
 */
export async function cancelOrder(tx: Sql, orderId: string, now: Date): Promise<OrderAnswer> {
  const row = await requireOrder(tx, orderId);
  if (row.state !== 'cancelled') {
    await setOrderState(tx, orderId, 'cancelled', now);
    await cancelJob(tx, 'marketplace_order', orderId, now);
  }
  return answer(row, 'cancelled');
}
