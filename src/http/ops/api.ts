import { AppError } from '../../shared/errors';
import { sameSecret } from '../../shared/secrets';
import { createSurface, type Operation } from '../surface';
import type { Deps } from '../../deps';
import type { HandlerResult, RequestContext } from '../types';
import { operations } from './operations';

export function opsError(_ctx: RequestContext | undefined, err: AppError): HandlerResult {
  return { status: err.status, body: { error: { code: err.code, message: err.message, details: err.details } }, headers: err.headers };
}

export function createOpsSurface(deps: Deps, operatorToken: string) {
  return createSurface(
    {
      name: 'ops',
      contract: 'ops-v1.yaml',
      apiRoot: '/ops/v1',
      operations: operations as unknown as Record<string, Operation>,
      async authenticate(ctx) {
        const m = /^Bearer\s+(\S+)\s*$/i.exec(String(ctx.headers['authorization'] ?? ''));
        const ok = !!m && sameSecret(m[1], operatorToken);
        ctx.operator = ok;
        return ok;
      },
      unauthorized: () => new AppError('unauthorized', 401, 'Send Authorization: Bearer <OPERATOR_TOKEN>.'),
      errorResult: opsError,
    },
    deps,
  );
}
