import { createQuote as quote, type QuoteInput } from '../../../domain/quotes/create-quote';
import type { TransfersHandler } from './types';

export const createQuote: TransfersHandler<'createQuote'> = async (c, ctx) => ({
  status: 200,
  body: await quote(ctx.trx, ctx.partner, ctx.env, c.request.requestBody as QuoteInput, {
    now: ctx.deps.clock.now(),
    fx: ctx.deps.config.fxFromUsd,
  }),
});
