import { acknowledgeOrder as acknowledge } from '../../../domain/marketplace/acknowledge-order';
import { cancelOrder as cancel } from '../../../domain/marketplace/cancel-order';
import { updateOrder as change } from '../../../domain/marketplace/change-order';
import { createOrder as create } from '../../../domain/marketplace/create-order';
import { changeAnswer, orderAck } from '../answers';
import { orderCtx, type MarketplaceHandler } from './types';

export const createOrder: MarketplaceHandler<'createOrder'> = async (call, ctx) => ({
  status: 200,
  body: orderAck(await create(await ctx.tx(), call.body, { ...orderCtx(ctx), source: 'booking' })),
});

export const cancelOrder: MarketplaceHandler<'cancelOrder'> = async (call, ctx) => ({
  status: 200,
  body: orderAck(await cancel(await ctx.tx(), call.body.order_id, ctx.deps.clock.now())),
});

export const updateOrder: MarketplaceHandler<'updateOrder'> = async (call, ctx) => ({
  status: 200,
  body: changeAnswer(await change(await ctx.tx(), call.body, orderCtx(ctx))),
});

export const acknowledgeOrder: MarketplaceHandler<'acknowledgeOrder'> = async (call, ctx) => ({
  status: 200,
  body: orderAck(await acknowledge(await ctx.tx(), call.body.order_id, ctx.deps.clock.now())),
});
