import { createQuote as quote, type QuoteInput } from '../../../domain/quotes/create-quote';
import type { TransfersHandler } from './types';

export const createQuote: TransfersHandler<'createQuote'> = async (call, ctx) => {
  const { quote: body, write } = quote(ctx.partner, ctx.env, call.body as QuoteInput, { now: ctx.deps.clock.now(), fx: ctx.deps.config.fxFromUsd });
  return { status: 200, body, write };
};
