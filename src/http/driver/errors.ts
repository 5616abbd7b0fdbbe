import type { AppError } from '../../shared/errors';
import { ERROR_STATUS, errorHeaders } from '../errors';
import type { HandlerResult, RequestContext } from '../types';

/** The driver API's envelope: `{error: {code, message, details}}`, every code at the common status. */
export function driverError(_ctx: RequestContext | undefined, err: AppError): HandlerResult {
  return { status: ERROR_STATUS[err.code], body: { error: { code: err.code, message: err.message, details: err.details } }, headers: errorHeaders(err) };
}
