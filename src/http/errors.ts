import { AppError, type ErrorCode, type ErrorHints } from '../shared/errors';

/**
 * The HTTP status of each error code: the one table every surface starts from (a surface that answers a code
 * otherwise says so in its own errors.ts). The Transfers contract lists these codes in its Error schema; a unit
 * test holds the two together.
 */
export type ErrorStatus = 400 | 401 | 403 | 404 | 405 | 408 | 409 | 410 | 412 | 413 | 414 | 428 | 429 | 500 | 503;

export const ERROR_STATUS: Readonly<Record<ErrorCode, ErrorStatus>> = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  idempotency_conflict: 409,
  booking_conflict: 409,
  already_exists: 409,
  assignment_conflict: 409,
  vehicle_too_small: 409,
  vehicle_lacks_equipment: 409,
  job_conflict: 409,
  endpoint_disabled: 409,
  offer_expired: 410,
  precondition_failed: 412,
  precondition_required: 428,
  payload_too_large: 413,
  uri_too_long: 414,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
};

const STATUSES = new Set<number>(Object.values(ERROR_STATUS));
/** Whether a status (e.g. one stored against an Idempotency-Key) is one an error is answered with. */
export const isErrorStatus = (n: number): n is ErrorStatus => STATUSES.has(n);

/** A refusal made by the HTTP layer itself that names headers of its own (a rate limit's policy). */
export class HttpRefusal extends AppError {
  constructor(
    code: ErrorCode,
    message: string,
    details: Record<string, unknown>,
    hints: ErrorHints,
    readonly headers: Readonly<Record<string, string>>,
  ) {
    super(code, message, details, hints);
  }
}

/** The headers an error's answer carries: `Retry-After` for a transient refusal, and any the HTTP layer named. */
export function errorHeaders(err: AppError): Record<string, string> {
  const limit = err.hints.rateLimit;
  return {
    ...(err.hints.retryAfterSeconds !== undefined ? { 'Retry-After': String(err.hints.retryAfterSeconds) } : {}),
    // A limit the domain applied (draft-ietf-httpapi-ratelimit-headers, as rate-limits.ts writes the HTTP layer's own).
    ...(limit
      ? {
          'RateLimit-Policy': `"${limit.policy}";q=${limit.quota};w=${limit.windowSeconds}`,
          RateLimit: `"${limit.policy}";r=0;t=${err.hints.retryAfterSeconds ?? 1}`,
        }
      : {}),
    ...(err instanceof HttpRefusal ? err.headers : {}),
  };
}
