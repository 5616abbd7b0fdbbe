import { AppError } from '../../shared/errors';
import { createSurface } from '../surface';
import type { Deps } from '../../deps';
import { opsError } from '../ops/api';
import { opsConsoleOperations } from './operations';

/** Where the console is mounted: next to the operator API it is a client of (/ops/v1). */
export const OPS_CONSOLE_ROOT = '/ops';

/**
 * The operator console (contracts/ops-console.yaml): a page, a script and style sheets, served by the service and
 * audited like every other request (surface `ops-console`). Reading them needs no token; every piece of data the
 * page shows comes from the operator API, which does.
 */
export function createOpsConsoleSurface(deps: Deps, opts: { root: string }) {
  return createSurface(
    {
      name: 'ops-console',
      contract: 'ops-console.yaml',
      apiRoot: OPS_CONSOLE_ROOT,
      operations: opsConsoleOperations(opts.root),
      authenticate: async () => true,
      unauthorized: () => new AppError('unauthorized', 'unauthorized'),
      publicRouteMisses: true,
      errorResult: opsError,
    },
    deps,
  );
}
