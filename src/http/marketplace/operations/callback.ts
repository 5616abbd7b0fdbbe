import { applyRefetchedOrder } from '../../../domain/marketplace/apply-refetched-order';
import type { MarketplaceOrder } from '../../../domain/marketplace/orders';
import type { OutboundExchange } from '../../../domain/kernel/outbound-exchange';
import { isOutboundFailure } from '../../../domain/outbox/outbox';
import { exchangeAudit } from '../../../domain/audit/exchange-audit';
import { appendAudit } from '../../../data/repositories/audit-repository';
import type { RequestContext } from '../../types';
import { orderAck } from '../answers';
import { orderCtx, type MarketplaceHandler } from './types';

/** The re-fetch's own audit row, committed with the callback's (it carries the callback's request id). */
const auditExchange = async (ctx: RequestContext, x: OutboundExchange) => {
  const tx = await ctx.tx();
  await appendAudit(tx, await exchangeAudit(ctx.deps.dataKeys, tx, 'marketplace', x, { attempt: 1, requestId: ctx.requestId }));
};

const retryLater = (error: string) => ({
  status: 503 as const,
  body: { status: 'ERROR' as const, error },
  headers: { 'Retry-After': '5' },
});

/**
 * An order callback. The posted body only names the order: the order itself is re-fetched from the marketplace's
 * authenticated API and only that is written. The re-fetch runs with no transaction open (it may take up to the
 * client's timeout, and on the embedded database an open transaction would hold the only connection); then a short
 * transaction writes the order and both audit rows. If the re-fetch fails, nothing but the audit rows is written and
 * the marketplace is told to retry (503), unless its API said the order does not exist (404: a retry cannot help).
 * Applying the same order twice changes nothing.
 */
export const receiveCallback: MarketplaceHandler<'receiveCallback'> = async (call, ctx) => {
  const { type, order_id } = call.body;
  const source = ctx.deps.orderSource;
  if (!source) return retryLater('the marketplace connection is not configured (MARKETPLACE_URL)');
  let order: MarketplaceOrder;
  try {
    const fetched = await source.getOrder(order_id, { requestId: ctx.requestId });
    await auditExchange(ctx, fetched.exchange);
    order = fetched.order as MarketplaceOrder;
  } catch (e) {
    if (!isOutboundFailure(e)) throw e;
    await auditExchange(ctx, e.exchange);
    // The marketplace says there is no such order: a retry will not change that.
    if (e.status === 404) return { status: 404, body: { status: 'ERROR', error: `order ${order_id} does not exist at the marketplace` } };
    return retryLater(`order ${order_id} could not be re-fetched from the marketplace; retry`);
  }
  if (order.order_id !== order_id) return retryLater(`the marketplace returned order ${order.order_id} for ${order_id}; retry`);
  return { status: 200, body: orderAck(await applyRefetchedOrder(await ctx.tx(), type, order, orderCtx(ctx))) };
};
