import { applyRefetchedOrder, type MarketplaceOrder } from '../../../domain/marketplace/orders';
import { isOutboundFailure, type OutboundExchange } from '../../../domain/outbox/outbox';
import { appendAudit } from '../../../domain/audit/audit-log';
import type { RequestContext } from '../../types';
import { supplierCtx, type MarketplaceBody, type MarketplaceHandler } from './types';

const auditExchange = (ctx: RequestContext, x: OutboundExchange) =>
  appendAudit(ctx.trx, {
    surface: 'marketplace',
    direction: 'outbound',
    method: x.method,
    path: x.path,
    status: x.status,
    partnerId: null,
    env: null,
    requestId: ctx.requestId,
    requestHeaders: x.requestHeaders,
    requestBody: x.requestBody,
    responseHeaders: x.responseHeaders,
    responseBody: x.responseBody,
    durationMs: x.durationMs,
    attempt: 1,
    error: x.error,
  });

const retryLater = (error: string) => ({
  status: 503 as const,
  body: { status: 'ERROR' as const, error },
  headers: { 'Retry-After': '5' },
});

/**
 * An order callback. The posted body only names the order: the order itself is re-fetched from the marketplace's
 * authenticated API and only that is written. If the re-fetch fails, nothing but its audit row is written and the
 * marketplace is told to retry (503). Applying the same order twice changes nothing.
 */
export const receiveCallback: MarketplaceHandler<'receiveCallback'> = async (c, ctx) => {
  const { type, order_id } = c.request.requestBody as MarketplaceBody<'receiveCallback'>;
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
    return retryLater(`order ${order_id} could not be re-fetched from the marketplace; retry`);
  }
  if (order.order_id !== order_id) return retryLater(`the marketplace returned order ${order.order_id} for ${order_id}; retry`);
  return { status: 200, body: (await applyRefetchedOrder(ctx.trx, type, order, supplierCtx(ctx))) as never };
};
