import { AppError } from '../../shared/errors';
import { createSurface } from '../surface';
import type { Deps } from '../../deps';
import { transfersError } from '../transfers/errors';
import { consoleOperations } from './operations';

/** Where the console is mounted: below the Transfers API it documents. */
export const CONSOLE_ROOT = '/transfers/v1/console';

/**
 * The partner reference console and guide (contracts/console.yaml): pages anyone may read, served by the service
 * itself and audited like every other request. Errors use the Transfers envelope, answered by no environment.
 */
export function createConsoleSurface(deps: Deps) {
  return createSurface(
    {
      name: 'console',
      contract: 'console.yaml',
      apiRoot: CONSOLE_ROOT,
      operations: consoleOperations(deps),
      authenticate: async () => true,
      unauthorized: () => new AppError('unauthorized', 'unauthorized'),
      publicRouteMisses: true,
      errorResult: transfersError,
      commonHeaders: () => ({ 'X-Service-Env': 'none' }),
    },
    deps,
  );
}
