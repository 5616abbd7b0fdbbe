import { AppError } from '../../shared/errors';
import { authClient, checkOperatorToken } from '../../domain/operators/operator-auth';
import { createSurface, type Operation } from '../surface';
import type { Deps } from '../../deps';
import type { HandlerResult, RequestContext } from '../types';
import { operations } from './operations';

export function opsError(_ctx: RequestContext | undefined, err: AppError): HandlerResult {
  return { status: err.status, body: { error: { code: err.code, message: err.message, details: err.details } }, headers: err.headers };
}

export function createOpsSurface(deps: Deps, operatorToken: string) {
  // Set for a request whose client is refused outright: its 401 says when to come back.
  const retryAfter = new WeakMap<RequestContext, number>();
  return createSurface(
    {
      name: 'ops',
      contract: 'ops-v1.yaml',
      apiRoot: '/ops/v1',
      operations: operations as unknown as Record<string, Operation>,
      // The check counts wrong tokens per client in the database (it runs once per request: one scheme, or the
      // route-miss check). A slowed answer is the same 401, only later; a refused client's also says Retry-After.
      async authenticate(ctx) {
        const verdict = await checkOperatorToken(deps.db, {
          client: authClient(ctx.clientAddress),
          authorization: ctx.headers['authorization'] as string | undefined,
          token: operatorToken,
          now: deps.clock.now(),
        });
        ctx.operator = verdict.ok;
        if (!verdict.ok) {
          if (verdict.retryAfterSeconds) retryAfter.set(ctx, verdict.retryAfterSeconds);
          if (verdict.delayMs) await new Promise((resolve) => setTimeout(resolve, verdict.delayMs));
        }
        return verdict.ok;
      },
      unauthorized: (ctx) => {
        const seconds = retryAfter.get(ctx);
        return new AppError('unauthorized', 401, 'Send Authorization: Bearer <OPERATOR_TOKEN>.', {}, seconds ? { 'Retry-After': String(seconds) } : {});
      },
      errorResult: opsError,
    },
    deps,
  );
}
