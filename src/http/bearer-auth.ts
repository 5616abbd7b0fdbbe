import { AppError } from '../shared/errors';
import type { BearerVerdict } from '../domain/operators/operator-auth';
import type { SurfaceOptions } from './surface';
import type { RequestContext } from './types';

/**
 * A surface's bearer-token authentication (operators, drivers): `check` says whose token it is; a wrong token's 401
 * is held as long as the verdict says (the slowdown), and a client being refused is told when to come back.
 * `accept` keeps who the caller is on the request.
 */
export function bearerAuth<T>(
  check: (ctx: RequestContext) => Promise<BearerVerdict<T>>,
  accept: (ctx: RequestContext, who: T) => void,
  message: string,
): Pick<SurfaceOptions, 'authenticate' | 'unauthorized'> {
  const retryAfter = new WeakMap<RequestContext, number>();
  return {
    authenticate: (ctx) =>
      (ctx.authenticated ??= (async () => {
        const verdict = await check(ctx);
        if (verdict.ok) {
          accept(ctx, verdict.who);
          return true;
        }
        if (verdict.retryAfterSeconds) retryAfter.set(ctx, verdict.retryAfterSeconds);
        if (verdict.delayMs) await new Promise((resolve) => setTimeout(resolve, verdict.delayMs));
        return false;
      })()),
    unauthorized: (ctx) => {
      const seconds = retryAfter.get(ctx);
      return new AppError('unauthorized', message, {}, seconds ? { retryAfterSeconds: seconds } : {});
    },
  };
}
