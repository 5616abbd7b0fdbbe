import { createQuote as quote } from '../../../domain/quotes/create-quote';
import type { TransfersHandler } from './types';

export const createQuote: TransfersHandler<'createQuote'> = async (call, ctx) => {
  const {
    quote: body,
    write,
    dataKeys,
    bookable,
  } = await quote(ctx.partner, ctx.env, call.body, {
    now: ctx.deps.clock.now(),
    fx: ctx.deps.config.fxFromUsd,
    freeClasses: (from, to, seats, exceptJob) => ctx.deps.fleet.freeClasses(ctx.sql, from, to, seats, exceptJob),
  });
  const scope = { partnerId: ctx.partner.partnerId, env: ctx.env };
  // Once committed, this instance remembers the offers, so booking one of them needs no read.
  return { status: 200, body, write, dataKeys, afterCommit: () => ctx.deps.recent.rememberOffers(scope, bookable) };
};
