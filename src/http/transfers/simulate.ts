import { AppError } from '../../shared/errors';
import type { HandlerResult, RequestContext } from '../types';
import { transfersError } from './errors';

export const SIMULATE_HEADER = 'sandbox-simulate';

const faults: Record<string, () => AppError> = {
  service_unavailable: () =>
    new AppError(
      'service_unavailable',
      'The service is temporarily unavailable; retry with backoff. (Simulated: Sandbox-Simulate: service_unavailable.)',
      { simulated: true },
      { retryAfterSeconds: 2 },
    ),
  rate_limited: () =>
    new AppError(
      'rate_limited',
      'Too many requests; retry after 2 seconds, with backoff. (Simulated: Sandbox-Simulate: rate_limited.)',
      { simulated: true },
      { retryAfterSeconds: 2 },
    ),
  idempotency_in_progress: () =>
    new AppError(
      'idempotency_conflict',
      'A request with this Idempotency-Key is still in progress; retry with the same key to receive its result. (Simulated: Sandbox-Simulate: idempotency_in_progress.)',
      { reason: 'in_progress', simulated: true },
      { retryAfterSeconds: 1 },
    ),
};

/**
 * Sandbox faults on demand: with a test key, `Sandbox-Simulate` answers the request with a fault a partner cannot
 * otherwise provoke, before anything runs (nothing is stored; the request is audited like any other), or, for
 * `slow`, runs it normally after SANDBOX_SLOW_MS (10 s). With a live key it does nothing: production never
 * simulates. The value is checked against the contract first, so only the known faults arrive here.
 */
export async function simulateFault(ctx: RequestContext): Promise<HandlerResult | undefined> {
  const asked = ctx.headers[SIMULATE_HEADER];
  if (ctx.env !== 'sandbox' || typeof asked !== 'string') return undefined;
  ctx.simulated = asked;
  if (asked === 'slow') {
    await new Promise((resolve) => setTimeout(resolve, ctx.deps.config.sandboxSlowMs));
    return undefined;
  }
  const fault = faults[asked];
  return fault ? transfersError(ctx, fault()) : undefined;
}
