import { AppError } from '../../shared/errors';
import { checkDriverToken } from '../../domain/drivers/driver-tokens';
import { createSurface } from '../surface';
import type { Deps } from '../../deps';
import type { RequestContext } from '../types';
import { driverError } from './errors';
import { driverOperations } from './operations';

export { driverError };

/**
 * The driver API (contracts/driver-v1.yaml), mounted at /driver/v1: a driver's phone, signed in with a driver token,
 * reads its own jobs and moves their rides. Wrong tokens are counted per client as operators' are (one count for
 * both). Every request is audited, the token redacted (its `drv_` shape is one the redaction knows).
 */
export function createDriverSurface(deps: Deps) {
  const retryAfter = new WeakMap<RequestContext, number>();
  return createSurface(
    {
      name: 'driver',
      contract: 'driver-v1.yaml',
      apiRoot: '/driver/v1',
      operations: driverOperations,
      authenticate: (ctx) =>
        (ctx.authenticated ??= (async () => {
          const verdict = await checkDriverToken(ctx.sql, {
            clientAddress: ctx.clientAddress,
            authorization: ctx.headers['authorization'] as string | undefined,
            now: deps.clock.now(),
          });
          if (verdict.ok) {
            ctx.driver = verdict.who;
            return true;
          }
          if (verdict.retryAfterSeconds) retryAfter.set(ctx, verdict.retryAfterSeconds);
          if (verdict.delayMs) await new Promise((resolve) => setTimeout(resolve, verdict.delayMs));
          return false;
        })()),
      unauthorized: (ctx) => {
        const seconds = retryAfter.get(ctx);
        return new AppError('unauthorized', 'Send Authorization: Bearer <driver token>.', {}, seconds ? { retryAfterSeconds: seconds } : {});
      },
      errorResult: driverError,
    },
    deps,
  );
}
