import express from 'express';
import { AppError } from '../shared/errors';
import { printable } from './decode';
import type { Deps } from '../deps';
import { pipeline } from './pipeline';
import { anonymousLimit } from './rate-limits';
import type { Surface } from './surface';
import { createTransfersSurface, transfersError } from './transfers/api';
import { createOpsSurface, opsError } from './ops/api';
import { createOpsConsoleSurface, OPS_CONSOLE_ROOT } from './ops-console/api';
import { basePath } from './documents';
import { createMarketplaceSurface, marketplaceMountPath } from './marketplace/api';
import { CONSOLE_ROOT, createConsoleSurface } from './console/api';
import { createDriverSurface } from './driver/api';
import { createDriverAppSurface, DRIVER_APP_ROOT } from './driver-app/api';
import { createTrackingSurface, TRACKING_ROOT } from './tracking/api';
import { createMetricsSurface } from './metrics-surface/api';
import { createMcpSurface, MCP_PATH, PROTECTED_RESOURCE_PATHS } from './mcp/api';
import { operationalSample, probes, readiness } from './probes';

/** Requests outside every surface: 404 in the Transfers envelope, audited like everything else. */
const unknownRoute: Surface = {
  name: 'none',
  handle: async (ctx, early) =>
    transfersError(
      ctx,
      (await anonymousLimit(ctx)) ??
        early ??
        new AppError('not_found', `No route ${ctx.method} ${printable(ctx.url.split('?')[0])}. The Transfers API lives under /transfers/v1.`),
    ),
  errorResult: transfersError,
  commonHeaders: () => ({ 'X-Service-Env': 'none' }),
};

/** The same on the operator listener (OPS_LISTEN), in the operator API's envelope. */
const unknownOpsRoute: Surface = {
  name: 'none',
  handle: async (ctx, early) =>
    opsError(
      ctx,
      (await anonymousLimit(ctx)) ??
        early ??
        new AppError(
          'not_found',
          `No route ${ctx.method} ${printable(ctx.url.split('?')[0])}. This address serves the operator API (/ops/v1) and its console (/ops/).`,
        ),
    ),
  errorResult: opsError,
};

/**
 * The service's HTTP apps. By default one app serves every surface. With OPS_LISTEN the operator API and its
 * console move to an app of their own (served on that address only) and the main app no longer knows /ops at all.
 */
export async function createApp(deps: Deps, opts: { operatorToken: string }) {
  const separateOps = !!deps.config.opsListen;
  const transfers = await createTransfersSurface(deps);
  const ops = await createOpsSurface(deps, opts.operatorToken);
  const marketplace = await createMarketplaceSurface(deps);
  const referenceConsole = await createConsoleSurface(deps);
  const driver = await createDriverSurface(deps);
  const tracking = await createTrackingSurface(deps);
  const driverApp = await createDriverAppSurface(deps, { root: basePath(deps.config.publicBaseUrl) });
  const opsConsole = await createOpsConsoleSurface(deps, { root: separateOps ? '' : basePath(deps.config.publicBaseUrl) });
  const mcp = await createMcpSurface(deps, transfers);
  const ready = readiness(deps);
  const metrics = await createMetricsSurface(deps, opts.operatorToken, operationalSample(deps, ready));

  const mountOps = (a: express.Express) => {
    a.use('/ops/v1', pipeline(ops, deps));
    a.use(OPS_CONSOLE_ROOT, pipeline(opsConsole, deps));
    a.use('/metrics', pipeline(metrics, deps));
  };
  const newApp = () => {
    const a = express();
    a.disable('x-powered-by');
    a.set('etag', false);
    // Who may name the client in X-Forwarded-For (TRUST_PROXY): read by req.ip, for the limits, the lockout and the audit log.
    a.set('trust proxy', deps.config.trustProxy);
    a.use(probes(deps, ready));
    return a;
  };
  const app = newApp();
  // The console sits below the API it documents: mounted first.
  app.use(CONSOLE_ROOT, pipeline(referenceConsole, deps));
  app.use('/transfers/v1', pipeline(transfers, deps));
  // AI agents (MCP): the partner keys, the Transfers operations, as tools.
  app.use([MCP_PATH, ...PROTECTED_RESOURCE_PATHS], pipeline(mcp, deps));
  // The driver API first: the app's mount (/driver) would otherwise see its paths.
  app.use('/driver/v1', pipeline(driver, deps));
  app.use(DRIVER_APP_ROOT, pipeline(driverApp, deps));
  app.use(TRACKING_ROOT, pipeline(tracking, deps));
  if (!separateOps) mountOps(app);
  app.use(marketplaceMountPath(deps.config.marketplace.inUrl), pipeline(marketplace, deps));
  app.use(pipeline(unknownRoute, deps));

  let opsApp: express.Express | undefined;
  if (separateOps) {
    opsApp = newApp();
    mountOps(opsApp);
    opsApp.use(pipeline(unknownOpsRoute, deps));
  }
  return { app, opsApp, surfaces: { transfers, mcp, ops, marketplace, console: referenceConsole, opsConsole, driver, driverApp, tracking, metrics } };
}
