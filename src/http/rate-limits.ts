import { AppError } from '../shared/errors';
import { authClient } from '../domain/operators/operator-auth';
import type { Bucket } from './token-buckets';
import type { RequestContext } from './types';

/**
 * Rate limits, two kinds:
 *
 * - anonymous: requests without a valid credential, per client address (an IPv6 /64), in this instance's memory (a token
 *   bucket: ANON_RATE_PER_S a second, bursts of ANON_BURST). Refusing a stranger must cost less than serving
 *   them, so this takes no round trip to the database; with N instances behind a balancer an address would get N
 *   times the rate, so with REDIS_URL the buckets are shared through Redis (one round trip there, none for an
 *   address already over its limit; this instance's own buckets while Redis is away).
 * - per partner and environment, set by operators: a token bucket in the database, taken from in every request's
 *   final statement (take_rate_token), so several instances hold one limit together. Once the database has said
 *   a partner's bucket is empty, this instance refuses that partner locally until a token is due again.
 *
 * Both answer `429 rate_limited` with Retry-After and the IETF RateLimit and RateLimit-Policy headers
 * (draft-ietf-httpapi-ratelimit-headers: `"name";q=<quota>;w=<window seconds>` and `"name";r=<remaining>;t=<reset>`).
 * The buckets this instance keeps in memory are in token-buckets.ts.
 */
export type RateLimitScope = 'anonymous' | 'partner';

/** The 429 of a bucket that is empty for `retryAfterSeconds` more. */
export function rateLimited(scope: RateLimitScope, bucket: Bucket, retryAfterSeconds: number): AppError {
  const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
  const window = Math.max(1, Math.ceil(bucket.burst / bucket.requestsPerSecond));
  // Retry-After and the RateLimit headers are written from the hints, as for a limit the domain applies (errors.ts).
  return new AppError(
    'rate_limited',
    scope === 'anonymous'
      ? `Too many requests without a valid credential from this address; retry after ${seconds} s.`
      : `Too many requests: this key's limit is ${bucket.requestsPerSecond} a second with bursts of ${bucket.burst}; retry after ${seconds} s.`,
    { scope, requests_per_second: bucket.requestsPerSecond, burst: bucket.burst, retry_after_seconds: seconds },
    { retryAfterSeconds: seconds, rateLimit: { policy: scope, quota: bucket.burst, windowSeconds: window } },
  );
}

/** The anonymous limit for a request without a valid credential: the 429 when its address has no token left. */
export async function anonymousLimit(ctx: RequestContext): Promise<AppError | undefined> {
  const limiter = ctx.deps.limits.anonymous;
  // Per address, an IPv6 client per /64 (one host usually holds the whole /64).
  const wait = await limiter.take(authClient(ctx.clientAddress), ctx.deps.clock.now().getTime());
  return wait > 0 ? rateLimited('anonymous', limiter.bucket, wait) : undefined;
}
