import type { AppError } from '../../shared/errors';
import { ERROR_STATUS, errorHeaders } from '../errors';
import type { HandlerResult, RequestContext } from '../types';

/** The operator surfaces (API, console, metrics) answer every code with the common status. */
export const OPS_ERROR_STATUS = ERROR_STATUS;

export function opsError(_ctx: RequestContext | undefined, err: AppError): HandlerResult {
  return { status: OPS_ERROR_STATUS[err.code], body: { error: { code: err.code, message: err.message, details: err.details } }, headers: errorHeaders(err) };
}
