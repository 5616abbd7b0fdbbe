import * as orders from '../../../domain/marketplace/orders';
import { supplierCtx, type MarketplaceBody, type MarketplaceHandler } from './types';

export const createOrder: MarketplaceHandler<'createOrder'> = async (c, ctx) => ({
  status: 200,
  body: (await orders.createOrder(ctx.trx, c.request.requestBody as orders.MarketplaceOrder, { ...supplierCtx(ctx), source: 'booking' })) as never,
});

export const cancelOrder: MarketplaceHandler<'cancelOrder'> = async (c, ctx) => ({
  status: 200,
  body: (await orders.cancelOrder(ctx.trx, (c.request.requestBody as MarketplaceBody<'cancelOrder'>).order_id, ctx.deps.clock.now())) as never,
});

export const updateOrder: MarketplaceHandler<'updateOrder'> = async (c, ctx) => ({
  status: 200,
  body: (await orders.updateOrder(ctx.trx, c.request.requestBody as orders.OrderChange, supplierCtx(ctx))) as never,
});

export const acknowledgeOrder: MarketplaceHandler<'acknowledgeOrder'> = async (c, ctx) => ({
  status: 200,
  body: (await orders.acknowledgeOrder(ctx.trx, (c.request.requestBody as MarketplaceBody<'acknowledgeOrder'>).order_id, ctx.deps.clock.now())) as never,
});
