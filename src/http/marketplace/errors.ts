import type { AppError } from '../../shared/errors';
import { ERROR_STATUS, errorHeaders } from '../errors';
import type { HandlerResult, RequestContext } from '../types';

export const NOT_SUPPORTED = 'api method is not supported';

/** As the marketplace expects: a known path with another method is an unknown resource too. */
export const MARKETPLACE_ERROR_STATUS = { ...ERROR_STATUS, method_not_allowed: 404 } as const;

/** The marketplace's error style: `{"status":"ERROR","error":"…"}`. */
export function marketplaceError(_ctx: RequestContext | undefined, err: AppError): HandlerResult {
  return { status: MARKETPLACE_ERROR_STATUS[err.code], body: { status: 'ERROR', error: err.message }, headers: errorHeaders(err) };
}
