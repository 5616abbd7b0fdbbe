import type { operations as Ops } from '../../generated/metrics';
import type { ReplyOf } from '../contract-types';
import { createSurface } from '../surface';
import type { Deps } from '../../deps';
import type { OperationalSample } from '../metrics';
import { operatorAccess } from '../ops/api';
import type { OperationCall, RequestContext } from '../types';

type MetricsHandler<O extends keyof Ops> = (call: OperationCall, ctx: RequestContext) => Promise<ReplyOf<Ops, O>>;

/** `GET /metrics` (contracts/metrics.yaml): this instance's metrics for Prometheus, to any operator token. */
export function createMetricsSurface(deps: Deps, operatorToken: string, sample: () => Promise<OperationalSample>) {
  const getMetrics: MetricsHandler<'getMetrics'> = async () => ({
    status: 200,
    document: { contentType: deps.metrics.registry.contentType, bytes: Buffer.from(await deps.metrics.scrape(sample)) },
  });
  return createSurface(
    {
      name: 'metrics',
      contract: 'metrics.yaml',
      apiRoot: '/',
      operations: { getMetrics },
      ...operatorAccess(deps, operatorToken),
    },
    deps,
  );
}
