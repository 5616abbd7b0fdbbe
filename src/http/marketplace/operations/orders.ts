import * as orders from '../../../domain/marketplace/orders';
import { supplierCtx, type MarketplaceHandler } from './types';

export const createOrder: MarketplaceHandler<'createOrder'> = async (call, ctx) => ({
  status: 200,
  body: (await orders.createOrder(await ctx.tx(), call.body as orders.MarketplaceOrder, { ...supplierCtx(ctx), source: 'booking' })) as never,
});

export const cancelOrder: MarketplaceHandler<'cancelOrder'> = async (call, ctx) => ({
  status: 200,
  body: (await orders.cancelOrder(await ctx.tx(), call.body.order_id, ctx.deps.clock.now())) as never,
});

export const updateOrder: MarketplaceHandler<'updateOrder'> = async (call, ctx) => ({
  status: 200,
  body: (await orders.updateOrder(await ctx.tx(), call.body as orders.OrderChange, supplierCtx(ctx))) as never,
});

export const acknowledgeOrder: MarketplaceHandler<'acknowledgeOrder'> = async (call, ctx) => ({
  status: 200,
  body: (await orders.acknowledgeOrder(await ctx.tx(), call.body.order_id, ctx.deps.clock.now())) as never,
});
