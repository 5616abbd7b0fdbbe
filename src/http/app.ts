import express from 'express';
import { AppError } from '../shared/errors';
import { printable } from './decode';
import type { Deps } from '../deps';
import { pipeline } from './pipeline';
import type { Surface } from './surface';
import { createTransfersSurface, transfersError } from './transfers/api';
import { createOpsSurface } from './ops/api';
import { createMarketplaceSurface, marketplaceMountPath } from './marketplace/api';

/** Requests outside every surface: 404 in the Transfers envelope, audited like everything else. */
const unknownRoute: Surface = {
  name: 'none',
  api: undefined as never,
  handle: async (ctx) =>
    transfersError(ctx, new AppError('not_found', 404, `No route ${ctx.method} ${printable(ctx.url.split('?')[0])}. The Transfers API lives under /transfers/v1.`)),
  errorResult: transfersError,
  commonHeaders: () => ({ 'X-Service-Env': 'none' }),
};

export async function createApp(deps: Deps, opts: { operatorToken: string }) {
  const transfers = await createTransfersSurface(deps);
  const ops = await createOpsSurface(deps, opts.operatorToken);
  const marketplace = await createMarketplaceSurface(deps);
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use('/transfers/v1', pipeline(transfers, deps));
  app.use('/ops/v1', pipeline(ops, deps));
  app.use(marketplaceMountPath(deps.config.marketplace.inUrl), pipeline(marketplace, deps));
  app.use(pipeline(unknownRoute, deps));
  return { app, surfaces: { transfers, ops, marketplace } };
}
