import type { Sql } from '../../data/database';
import { markAcknowledged } from '../../data/repositories/marketplace-repository';
import { answer, requireOrder, type OrderAnswer } from './orders';

/**
 * The marketplace acknowledges our confirmation (inbound POST /booking/confirm/): the order notes when, nothing else
 * changes. The answer is acknowledged, however often it is repeated.
 */
export async function acknowledgeOrder(tx: Sql, orderId: string, now: Date): Promise<OrderAnswer> {
  const row = await requireOrder(tx, orderId);
  await markAcknowledged(tx, orderId, now);
  return answer(row, 'acknowledged');
}
