/**
 * One error for everything a client can cause. It carries a stable snake_case `code` (clients branch on it) and
 * `details` safe to show the caller, never a transport status: each surface maps codes to statuses in its one
 * table (src/http/errors.ts). Anything that is not an AppError is a bug and is answered `internal_error` without
 * detail.
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
  | 'precondition_failed'
  | 'precondition_required'
  | 'payload_too_large'
  | 'uri_too_long'
  | 'request_timeout'
  | 'already_exists'
  | 'assignment_conflict'
  | 'vehicle_too_small'
  | 'vehicle_lacks_equipment'
  | 'job_conflict'
  | 'endpoint_disabled'
  | 'rate_limited'
  | 'service_unavailable'
  | 'internal_error';

export interface ErrorHints {
  /** When to try again (a transient refusal). */
  retryAfterSeconds?: number;
  /** The limit a `rate_limited` refusal applied: a name, its quota and its window (the HTTP layer's RateLimit headers). */
  rateLimit?: { policy: string; quota: number; windowSeconds: number };
}

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
    readonly hints: ErrorHints = {},
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const invalidRequest = (message: string, fields: Array<{ field: string; message: string }> = []) =>
  new AppError('invalid_request', message, fields.length ? { fields } : {});

export const notFound = (message: string, details: Record<string, unknown> = {}) => new AppError('not_found', message, details);

export const serviceUnavailable = (retryAfterSeconds = 2) =>
  new AppError('service_unavailable', 'The service is temporarily unavailable; retry with backoff.', {}, { retryAfterSeconds });
