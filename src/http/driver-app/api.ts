import { AppError } from '../../shared/errors';
import { createSurface } from '../surface';
import type { Deps } from '../../deps';
import { opsError } from '../ops/api';
import { driverAppOperations } from './operations';

/**
 * Where the driver app is mounted: above the driver API it is a client of (/driver/v1). Its routes are only `/` and
 * `/assets/{asset}`, so the API must be mounted first (`/driver/v1`, then `/driver`): this surface answers 404 for
 * anything else below /driver.
 */
export const DRIVER_APP_ROOT = '/driver';

/**
 * The driver app (contracts/driver-app.yaml): a page, its scripts and a style sheet, served by the service and
 * audited like every other request (surface `driver-app`). Reading them needs no token; every piece of data the
 * page shows comes from the driver API, which does.
 */
export function createDriverAppSurface(deps: Deps, opts: { root: string }) {
  return createSurface(
    {
      name: 'driver-app',
      contract: 'driver-app.yaml',
      apiRoot: DRIVER_APP_ROOT,
      operations: driverAppOperations(opts.root),
      authenticate: async () => true,
      unauthorized: () => new AppError('unauthorized', 'unauthorized'),
      publicRouteMisses: true,
      errorResult: opsError,
    },
    deps,
  );
}
