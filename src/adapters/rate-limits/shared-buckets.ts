import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

/** The anonymous limit: ANON_RATE_PER_S a second on average, ANON_BURST at once. */
export interface SharedBucket {
  requestsPerSecond: number;
  burst: number;
}

/** What the limiter reports as it runs: Redis answering or not (the gauge), and each request decided without it. */
export interface SharedBucketsObserver {
  storeUp(up: boolean): void;
  fellBack(): void;
}

/**
 * The anonymous limit shared by every instance through Redis (REDIS_URL), with rate-limiter-flexible: per client
 * address, `burst` requests per window of `burst ÷ rate` seconds (at least 1), counted atomically in Redis, so N
 * instances behind a balancer hold one limit together instead of N.
 *
 * - **A stranger already over the limit costs no round trip**: once an address has used its window, this instance
 *   blocks it in memory until the window ends (inMemoryBlockOnConsumed), and refuses it from there.
 * - **Redis away**: the command fails at once (no offline queue, no retries per command) and the request is decided
 *   by this instance's own buckets (the insurance limiter: the same limit, per instance, as without REDIS_URL). It
 *   never becomes an error; the `rate_limit_store_up` gauge drops to 0, and ioredis reconnects in the background.
 *
 * A window counter is not a token bucket: at a window's edge an address can send up to twice `burst` in a short
 * moment; over any longer span it gets the same average rate.
 */
export class SharedAnonymousBuckets {
  private readonly redis: Redis;
  private readonly limiter: RateLimiterRedis;

  constructor(
    readonly bucket: SharedBucket,
    redis: { url: string; keyPrefix: string },
    private readonly observer: SharedBucketsObserver,
  ) {
    this.redis = new Redis(redis.url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: 2000,
      commandTimeout: 500,
      // Reconnect for ever, at most every 2 s: the limit comes back by itself when Redis does.
      retryStrategy: (times) => Math.min(times * 200, 2000),
    });
    this.redis.on('ready', () => observer.storeUp(true));
    for (const event of ['close', 'end'] as const) this.redis.on(event, () => observer.storeUp(false));
    // ioredis logs an unhandled 'error' event; the gauge and the fallback say it instead.
    this.redis.on('error', () => observer.storeUp(false));
    observer.storeUp(false);
    const points = bucket.burst;
    const duration = Math.max(1, Math.round(bucket.burst / bucket.requestsPerSecond));
    this.limiter = new RateLimiterRedis({
      storeClient: this.redis,
      keyPrefix: `${redis.keyPrefix}:anon`,
      points,
      duration,
      inMemoryBlockOnConsumed: points,
      rejectIfRedisNotReady: true,
      insuranceLimiter: new RateLimiterMemory({ keyPrefix: `${redis.keyPrefix}:anon:local`, points, duration }),
    });
  }

  /** Takes a token for `key`: 0 when there was one, else the seconds until there will be. */
  async take(key: string): Promise<number> {
    if (this.redis.status !== 'ready') this.observer.fellBack();
    try {
      await this.limiter.consume(key, 1);
      return 0;
    } catch (e) {
      if (e instanceof RateLimiterRes) return Math.max(0.001, e.msBeforeNext / 1000);
      // The insurance limiter answers whenever Redis fails: anything else is a bug, and must not refuse a client.
      return 0;
    }
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
