import { listOutbox as list, retryOutbound } from '../../../domain/outbox/outbox';
import type { OpsHandler, OpsParams, OpsQuery } from './types';

export const listOutbox: OpsHandler<'listOutbox'> = async (c, ctx) => {
  const q = c.request.query as unknown as OpsQuery<'listOutbox'>;
  const data = await list(ctx.trx, { limit: Number(q.limit ?? 50), status: q.status, orderId: q.order_id });
  return { status: 200, body: { data } };
};

export const retryOutboxMessage: OpsHandler<'retryOutboxMessage'> = async (c, ctx) => ({
  status: 200,
  body: await retryOutbound(ctx.trx, (c.request.params as OpsParams<'retryOutboxMessage'>).outbox_id, ctx.deps.clock.now()),
});
