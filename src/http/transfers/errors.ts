import type { AppError } from '../../shared/errors';
import { ERROR_STATUS, errorHeaders, type ErrorStatus } from '../errors';
import type { RequestContext } from '../types';

/** The Transfers API answers every code with the common status (the contract's Error.code list). */
export const TRANSFERS_ERROR_STATUS = ERROR_STATUS;

export interface TransfersErrorBody {
  env: 'sandbox' | 'production' | null;
  error: { code: AppError['code']; message: string; details: Record<string, unknown> };
}

/** The envelope of every Transfers API error. `env` is null when no valid key chose an environment. */
export function transfersError(
  ctx: Pick<RequestContext, 'env'> | undefined,
  err: AppError,
): { status: ErrorStatus; body: TransfersErrorBody; headers: Record<string, string> } {
  return {
    status: TRANSFERS_ERROR_STATUS[err.code],
    body: { env: ctx?.env ?? null, error: { code: err.code, message: err.message, details: err.details } },
    headers: errorHeaders(err),
  };
}
