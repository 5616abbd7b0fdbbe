/**
 * One error base for everything a client can cause. Each error carries a stable snake_case `code`
 * (clients branch on it), the HTTP status it maps to, and `details` safe to show the caller.
 * Anything that is not an AppError is a bug and is answered 500 `internal_error` without detail.
 */
export type ErrorCode =
  | 'invalid_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'idempotency_conflict'
  | 'booking_conflict'
  | 'offer_expired'
  | 'payload_too_large'
  | 'uri_too_long'
  | 'request_timeout'
  | 'already_exists'
  | 'assignment_conflict'
  | 'vehicle_too_small'
  | 'job_conflict'
  | 'endpoint_disabled'
  | 'rate_limited'
  | 'service_unavailable'
  | 'internal_error';

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly status: number,
    message: string,
    readonly details: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const invalidRequest = (message: string, fields: Array<{ field: string; message: string }> = []) =>
  new AppError('invalid_request', 400, message, fields.length ? { fields } : {});

export const notFound = (message: string, details: Record<string, unknown> = {}) =>
  new AppError('not_found', 404, message, details);

export const serviceUnavailable = (retryAfterSeconds = 2) =>
  new AppError(
    'service_unavailable',
    503,
    'The service is temporarily unavailable; retry with backoff.',
    {},
    { 'Retry-After': String(retryAfterSeconds) },
  );
