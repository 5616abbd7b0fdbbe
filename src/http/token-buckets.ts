/**
 * The token buckets this instance keeps in memory (rate-limits.ts applies them): the anonymous limit's, per client
 * address, and what the database said of partners' buckets. Plain state: it imports nothing of the service, so the
 * composition root's types (src/deps.ts) can name it.
 */
export interface Bucket {
  requestsPerSecond: number;
  burst: number;
}

/**
 * The anonymous limit per client address: this instance's buckets (MemoryTokenBuckets), or, with REDIS_URL, buckets
 * every instance shares (src/adapters/rate-limits/shared-buckets.ts), which answer after a round trip to Redis.
 */
export interface AnonymousLimiter {
  readonly bucket: Bucket;
  /** Takes a token for `key` at `nowMs`: 0 when one was there, else the seconds until one will be. */
  take(key: string, nowMs: number): number | Promise<number>;
}

/**
 * Token buckets per key in memory, for the anonymous limit. Bounded: at most `maxKeys` addresses are remembered (two
 * generations, the older dropped whole, as BoundedMemory does); an address forgotten starts with a full bucket,
 * which is what an address that stopped sending long ago would have anyway.
 */
export class MemoryTokenBuckets implements AnonymousLimiter {
  private young = new Map<string, { tokens: number; at: number }>();
  private old = new Map<string, { tokens: number; at: number }>();

  constructor(
    readonly bucket: Bucket,
    private readonly maxKeys = 100_000,
  ) {}

  /** Takes a token for `key` at `nowMs`: 0 when one was there, else the seconds until one will be. */
  take(key: string, nowMs: number): number {
    const { requestsPerSecond: rate, burst } = this.bucket;
    let e = this.young.get(key);
    if (!e) {
      const aged = this.old.get(key);
      if (this.young.size >= this.maxKeys / 2) {
        this.old = this.young;
        this.young = new Map();
      }
      e = aged ? { ...aged } : { tokens: burst, at: nowMs };
      this.young.set(key, e);
    }
    const tokens = Math.min(burst, e.tokens + (Math.max(0, nowMs - e.at) / 1000) * rate);
    e.at = Math.max(e.at, nowMs);
    if (tokens >= 1) {
      e.tokens = tokens - 1;
      return 0;
    }
    e.tokens = tokens;
    return (1 - tokens) / rate;
  }
}

/** What this instance learned from the database: a partner's bucket is empty until a time (no round trip to refuse). */
export class EmptyBuckets {
  private readonly until = new Map<string, number>();

  remember(scope: string, untilMs: number): void {
    if (this.until.size > 10_000) this.until.clear();
    this.until.set(scope, untilMs);
  }

  /** Seconds until `scope` may have a token again, or 0. */
  emptyFor(scope: string, nowMs: number): number {
    const t = this.until.get(scope);
    if (t === undefined) return 0;
    if (t <= nowMs) {
      this.until.delete(scope);
      return 0;
    }
    return (t - nowMs) / 1000;
  }
}
