import * as orders from '../../../domain/marketplace/orders';
import { changeAnswer, orderAck } from '../answers';
import { orderCtx, type MarketplaceHandler } from './types';

export const createOrder: MarketplaceHandler<'createOrder'> = async (call, ctx) => ({
  status: 200,
  body: orderAck(await orders.createOrder(await ctx.tx(), call.body, { ...orderCtx(ctx), source: 'booking' })),
});

export const cancelOrder: MarketplaceHandler<'cancelOrder'> = async (call, ctx) => ({
  status: 200,
  body: orderAck(await orders.cancelOrder(await ctx.tx(), call.body.order_id, ctx.deps.clock.now())),
});

export const updateOrder: MarketplaceHandler<'updateOrder'> = async (call, ctx) => ({
  status: 200,
  body: changeAnswer(await orders.updateOrder(await ctx.tx(), call.body, orderCtx(ctx))),
});

export const acknowledgeOrder: MarketplaceHandler<'acknowledgeOrder'> = async (call, ctx) => ({
  status: 200,
  body: orderAck(await orders.acknowledgeOrder(await ctx.tx(), call.body.order_id, ctx.deps.clock.now())),
});
