import { listOutbox as list, retryOutbound } from '../../../domain/outbox/outbox';
import { requireEnabledEndpoint } from '../../../domain/webhooks/endpoints';
import type { OpsHandler } from './types';

export const listOutbox: OpsHandler<'listOutbox'> = async (call, ctx) => {
  const q = call.query;
  const data = await list(ctx.sql, {
    limit: Number(q.limit ?? 50),
    status: q.status,
    kind: q.kind,
    orderId: q.order_id,
    partnerId: q.partner_id,
    endpointId: q.endpoint_id,
    eventId: q.event_id,
  });
  return { status: 200, body: { data } };
};

export const retryOutboxMessage: OpsHandler<'retryOutboxMessage'> = async (call, ctx) => ({
  status: 200,
  body: await retryOutbound(await ctx.tx(), call.params.outbox_id, ctx.deps.clock.now(), requireEnabledEndpoint),
});
