import { sql, type Sql } from '../database';
import { pgCode } from '../errors';

export interface RateLimit {
  requestsPerSecond: number;
  burst: number;
}

/** When the statement failed on an empty bucket: the seconds until a token is due; otherwise undefined. */
export function rateLimitedFor(e: unknown): number | undefined {
  if (pgCode(e) !== 'LT429') return undefined;
  const detail = Number((e as { detail?: unknown }).detail ?? (e as { nativeError?: { detail?: unknown } }).nativeError?.detail);
  return Number.isFinite(detail) && detail > 0 ? detail : 1;
}

// A changed limit starts from a full bucket (the bucket's scope as the transfers surface names it): an operator who
// raises a partner's limit, or removes it, means now, not once the old bucket has refilled at the old rate.
const setLimit = sql(`
  with refilled as (delete from rate_buckets where scope = 'partner:' || $1 || ':' || $2)
  update partners
  set rate_limits = case when $3::jsonb is null then rate_limits - $2::text else jsonb_set(rate_limits, array[$2::text], $3::jsonb) end
  where partner_id = $1
  returning rate_limits as "rateLimits"`);

/** Sets (or, with null, removes) a partner's limit in one environment; the partner's auth_version moves with it. */
export async function setPartnerRateLimit(db: Sql, partnerId: string, env: string, limit: RateLimit | null): Promise<Record<string, RateLimit> | undefined> {
  const value = limit ? JSON.stringify({ requests_per_second: limit.requestsPerSecond, burst: limit.burst }) : null;
  const rows = await db.query<{ rateLimits: Record<string, { requests_per_second: number; burst: number }> }>(setLimit, [partnerId, env, value]);
  return rows[0] ? fromStored(rows[0].rateLimits) : undefined;
}

/** The stored form (`{"sandbox": {"requests_per_second", "burst"}}`) as limits by environment. */
export function fromStored(stored: unknown): Record<string, RateLimit> {
  const out: Record<string, RateLimit> = {};
  for (const [env, v] of Object.entries((stored ?? {}) as Record<string, { requests_per_second: number; burst: number }>)) {
    out[env] = { requestsPerSecond: Number(v.requests_per_second), burst: Number(v.burst) };
  }
  return out;
}

const purge = sql(`
  with gone as (delete from rate_buckets where at < $1 returning 1)
  select count(*)::int as n from gone`);

/** Buckets untouched since `before` are full again by now: forgotten (the retention pass). */
export async function purgeRateBuckets(db: Sql, before: Date): Promise<number> {
  return (await db.query<{ n: number }>(purge, [before]))[0].n;
}
