import { createQuote as quote, type QuoteInput } from '../../../domain/quotes/create-quote';
import type { TransfersHandler } from './types';

export const createQuote: TransfersHandler<'createQuote'> = async (call, ctx) => {
  const { quote: body, write, bookable } = await quote(ctx.partner, ctx.env, call.body as QuoteInput, {
    now: ctx.deps.clock.now(),
    fx: ctx.deps.config.fxFromUsd,
    freeClasses: (from, to) => ctx.deps.fleet.freeClasses(ctx.sql, from, to),
  });
  const scope = { partnerId: ctx.partner.partnerId, env: ctx.env };
  return { status: 200, body, write, afterCommit: () => ctx.deps.recent.rememberOffers(scope, bookable) };
};
