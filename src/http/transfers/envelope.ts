import type { AppError } from '../../shared/errors';
import type { HandlerResult, RequestContext } from '../types';

/** The envelope of every Transfers API error. `env` is null when no valid key chose an environment. */
export function transfersError(ctx: Pick<RequestContext, 'env'> | undefined, err: AppError): HandlerResult {
  return {
    status: err.status,
    body: { env: ctx?.env ?? null, error: { code: err.code, message: err.message, details: err.details } },
    headers: err.headers,
  };
}
