import { AppError } from '../../shared/errors';
import { authenticateKey, keyFreshAtCommit, presentedKey } from '../../domain/partners/api-keys';
import { createSurface } from '../surface';
import type { Deps } from '../../deps';
import { transfersError } from './errors';
import { operations } from './operations';
import { simulateFault } from './simulate';
import { rateLimited } from '../rate-limits';
import type { RequestContext } from '../types';

/** The partner's bucket in its environment. */
const bucketOf = (ctx: RequestContext) => `partner:${ctx.partner!.partnerId}:${ctx.env}`;
/** What this instance remembers of an empty bucket is forgotten when the partner's limit changes (its auth version). */
const emptyKeyOf = (ctx: RequestContext) => `${bucketOf(ctx)}@${ctx.partner!.authVersion}`;

export { transfersError };

/**
 * The reference console marks every request it sends with this header; the server refuses such a request with the
 * uniform 401 when its key is a live one, so the console can never reach production (the page refuses live keys too).
 */
export const CONSOLE_HEADER = 'x-reference-console';

const UNAUTHORIZED_MESSAGE = 'A valid API key is required: send Authorization: Bearer <key> or X-Api-Key: <key>.';

/**
 * How a surface whose callers are partners with API keys authenticates, limits and commits them: the Transfers API,
 * and the MCP server (the same keys, the same environments, the same limits).
 */
export function partnerKeyAccess(deps: Deps) {
  return {
    // Both schemes (Bearer, X-Api-Key) ask; one lookup answers them.
    authenticate: (ctx: RequestContext) =>
      (ctx.authenticated ??= (async () => {
        const who = await authenticateKey(ctx.sql, presentedKey(ctx.headers), deps.clock.now(), deps.keys, ctx.freshCredentials);
        if (!who) return false;
        if (who.env === 'production' && ctx.headers[CONSOLE_HEADER] !== undefined) return false;
        ctx.partner = {
          partnerId: who.partnerId,
          name: who.name,
          currency: who.currency,
          paused: who.paused,
          keyId: who.keyId,
          vocabulary: who.vocabulary,
          terms: who.terms,
          // Sandbox keys have a limit unless an operator set one (SANDBOX_RATE_PER_S, SANDBOX_BURST): what a
          // test key can make the service store stays bounded. Production has none unless an operator sets one.
          rateLimit: who.rateLimit ?? (who.env === 'sandbox' ? deps.config.sandboxLimit : undefined),
          authVersion: who.authVersion,
        };
        ctx.env = who.env;
        if (who.touch) ctx.owed.push(who.touch);
        return true;
      })()),
    // A partner over its limit, as this instance last heard from the database: refused without a round trip.
    admit: (ctx: RequestContext) => {
      const limit = ctx.partner?.rateLimit;
      if (!limit) return undefined;
      const wait = deps.limits.emptyPartners.emptyFor(emptyKeyOf(ctx), deps.clock.now().getTime());
      return wait > 0 ? rateLimited('partner', limit, wait) : undefined;
    },
    // Whatever the request did, it commits only if its key is still unrevoked and its partner as it knew it, and
    // (when the partner has a limit) if its bucket had a token: one statement, on whichever instance.
    owedAtCommit: (ctx: RequestContext, refused: boolean) => {
      const p = ctx.partner;
      if (!p) return undefined;
      const bucket = p.rateLimit && !refused ? { scope: bucketOf(ctx), limit: p.rateLimit, now: deps.clock.now() } : undefined;
      return keyFreshAtCommit(p.keyId, p.authVersion, bucket);
    },
    rateLimitedAtCommit: (ctx: RequestContext, seconds: number) => {
      deps.limits.emptyPartners.remember(emptyKeyOf(ctx), deps.clock.now().getTime() + seconds * 1000);
      return rateLimited('partner', ctx.partner!.rateLimit!, seconds);
    },
  };
}

export function createTransfersSurface(deps: Deps) {
  return createSurface(
    {
      name: 'transfers',
      contract: 'transfers-v1.yaml',
      apiRoot: '/transfers/v1',
      operations: operations,
      ...partnerKeyAccess(deps),
      // The same bytes for every cause: no env, no request id, no hint of which check failed.
      unauthorized: () => new AppError('unauthorized', UNAUTHORIZED_MESSAGE),
      errorResult: transfersError,
      commonHeaders: (ctx) => ({ 'X-Service-Env': ctx?.env ?? 'none', ...(ctx?.simulated ? { 'Sandbox-Simulated': ctx.simulated } : {}) }),
      intercept: (ctx) => simulateFault(ctx),
      decorate: (ctx, body) => (body && typeof body === 'object' && !Array.isArray(body) ? { env: ctx.env ?? null, ...body } : body),
    },
    deps,
  );
}
