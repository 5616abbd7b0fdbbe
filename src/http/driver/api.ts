import { checkDriverToken } from '../../domain/drivers/driver-tokens';
import { createSurface } from '../surface';
import type { Deps } from '../../deps';
import { bearerAuth } from '../bearer-auth';
import { driverError } from './errors';
import { driverOperations } from './operations';

export { driverError };

/**
 * The driver API (contracts/driver-v1.yaml), mounted at /driver/v1: a driver's phone, signed in with a driver token,
 * reads its own jobs and moves their rides. Wrong tokens are counted per client as operators' are (one count for
 * both). Every request is audited, the token redacted (its `drv_` shape is one the redaction knows).
 */
export function createDriverSurface(deps: Deps) {
  return createSurface(
    {
      name: 'driver',
      contract: 'driver-v1.yaml',
      apiRoot: '/driver/v1',
      operations: driverOperations,
      ...bearerAuth(
        (ctx) =>
          checkDriverToken(ctx.sql, {
            clientAddress: ctx.clientAddress,
            authorization: ctx.headers['authorization'] as string | undefined,
            now: deps.clock.now(),
          }),
        (ctx, driver) => {
          ctx.driver = driver;
        },
        'Send Authorization: Bearer <driver token>.',
      ),
      errorResult: driverError,
    },
    deps,
  );
}
