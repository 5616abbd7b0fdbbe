import { notFound } from '../../../shared/errors';
import type { PartnerContext, TransfersHandler } from './types';

/** Sandbox test helpers: pause or resume quoting in sandbox only, so integrations can exercise partner_paused. */
async function setSandboxPaused(ctx: PartnerContext, paused: boolean) {
  if (ctx.env !== 'sandbox') throw notFound('Test helpers exist only in sandbox.', {});
  const [row] = await ctx.trx('partners').where({ partnerId: ctx.partner.partnerId }).update({ sandboxPaused: paused }).returning(['paused', 'sandboxPaused']);
  return { status: 200 as const, body: { paused: row.paused || row.sandboxPaused } };
}

export const pauseSandboxAccount: TransfersHandler<'pauseSandboxAccount'> = (_c, ctx) => setSandboxPaused(ctx, true);
export const resumeSandboxAccount: TransfersHandler<'resumeSandboxAccount'> = (_c, ctx) => setSandboxPaused(ctx, false);
