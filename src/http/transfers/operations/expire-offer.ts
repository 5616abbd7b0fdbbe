import { expireOffer as expire } from '../../../domain/quotes/sandbox';
import type { TransfersHandler } from './types';

/** Sandbox test helper: the offer expires now, so integrations can exercise 410 offer_expired. Live keys get 404. */
export const expireOffer: TransfersHandler<'expireOffer'> = async (call, ctx) => ({
  status: 200,
  body: await expire(await ctx.tx(), { partnerId: ctx.partner.partnerId, env: ctx.env }, call.params.offer_id, ctx.deps.clock.now()),
});
