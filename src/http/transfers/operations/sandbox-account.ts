import { setSandboxPaused } from '../../../domain/partners/partners';
import { sandboxOnly } from '../../../domain/quotes/sandbox';
import type { PartnerContext, TransfersHandler } from './types';

/** Sandbox test helpers: pause or resume quoting in sandbox only, so integrations can exercise partner_paused. */
async function pause(ctx: PartnerContext, paused: boolean) {
  sandboxOnly(ctx.env);
  const r = await setSandboxPaused(await ctx.tx(), ctx.partner.partnerId, paused);
  // The request commits with the version its own change made, but only if it authenticated against the version that
  // change started from. Credentials older than that (an operator's new rate limit meanwhile, say) stay as they
  // were: the commit finds them stale, and the request runs again on fresh ones. Adopting the new version anyway
  // would commit them, and a rate limit since removed would be taken from once more.
  if (r.authVersionBefore === ctx.partner.authVersion) ctx.partner.authVersion = r.authVersion;
  ctx.deps.keys.forget(ctx.partner.keyId);
  return { status: 200 as const, body: { paused: r.paused } };
}

export const pauseSandboxAccount: TransfersHandler<'pauseSandboxAccount'> = (_call, ctx) => pause(ctx, true);
export const resumeSandboxAccount: TransfersHandler<'resumeSandboxAccount'> = (_call, ctx) => pause(ctx, false);
