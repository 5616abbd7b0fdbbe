import express from 'express';
import { AppError } from '../shared/errors';
import type { Deps } from '../deps';
import { pipeline, type PipelineSurface } from './pipeline';
import { createTransfersSurface, transfersError } from './transfers/api';
import { createOpsSurface } from './ops/api';
import { createMarketplaceSurface, marketplaceMountPath } from './marketplace/api';

/** Requests outside every surface: 404 in the Transfers envelope, audited like everything else. */
const unknownRoute: PipelineSurface = {
  name: 'none',
  handle: async (req) => {
    throw new AppError('not_found', 404, `No route ${req.method} ${req.path}. The Transfers API lives under /transfers/v1.`);
  },
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
