import type { Deps } from './deps';
import { purgeExpiredQuotes } from './data/repositories/quotes-repository';
import { purgeExpiredKeys } from './data/repositories/idempotency-repository';
import { purgeExpiredPriceMarks, purgeSeenCalls } from './data/repositories/marketplace-repository';
import { SEEN_CALL_AFTER_PICKUP_MS, SEEN_CALL_RETENTION_MS } from './domain/marketplace/replays';
import { dropAuditPartitionsBefore, ensureAuditPartitions } from './data/repositories/audit-repository';
import { purgeAuthFailures } from './data/repositories/operator-auth-repository';
import { purgeRateBuckets } from './data/repositories/rate-limits-repository';
import { purgeEventsBefore } from './data/repositories/webhook-events-repository';
import { EVENT_RETENTION_DAYS } from './domain/webhooks/events';

/** Unbooked quotes are kept this long after they expire (for support questions), then purged with their offers. */
export const QUOTE_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
/** Audit partitions exist this many months ahead, so inserts never wait for one to be made. */
export const AUDIT_MONTHS_AHEAD = 3;

const monthsBefore = (d: Date, months: number) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - months, 1));

/**
 * One retention pass, safe on every instance: expired quotes, price marks and idempotency keys past their
 * retention; the marketplace's order calls seen over 30 days ago whose order's pickup is over 7 days past (kept
 * while a replay could still do harm); webhook events older than 30 days with their deliveries (none still
 * pending); counts of wrong operator tokens and rate-limit buckets untouched for a day; the audit log's monthly partitions made ahead,
 * and (AUDIT_RETENTION_MONTHS) whole months dropped.
 */
export async function runRetention(deps: Pick<Deps, 'db' | 'clock' | 'config'>) {
  const now = deps.clock.now();
  const cutoff = new Date(now.getTime() - QUOTE_RETENTION_MS);
  const months = deps.config.auditRetentionMonths;
  return {
    quotes: await purgeExpiredQuotes(deps.db, cutoff),
    idempotencyKeys: await purgeExpiredKeys(deps.db, now),
    priceMarks: await purgeExpiredPriceMarks(deps.db, cutoff),
    marketplaceSeenCalls: await purgeSeenCalls(deps.db, new Date(now.getTime() - SEEN_CALL_RETENTION_MS), new Date(now.getTime() - SEEN_CALL_AFTER_PICKUP_MS)),
    webhookEvents: await purgeEventsBefore(deps.db, new Date(now.getTime() - EVENT_RETENTION_DAYS * 24 * 3600_000)),
    operatorAuthFailures: await purgeAuthFailures(deps.db, new Date(now.getTime() - 24 * 3600_000)),
    rateBuckets: await purgeRateBuckets(deps.db, new Date(now.getTime() - 24 * 3600_000)),
    auditPartitionsMade: await ensureAuditPartitions(deps.db, new Date(), AUDIT_MONTHS_AHEAD + 1),
    auditPartitionsDropped: months ? await dropAuditPartitionsBefore(deps.db, monthsBefore(new Date(), months)) : [],
  };
}

/** Runs retention every `everyMs` in the background; returns a stopper. */
export function scheduleRetention(deps: Deps, everyMs = 60 * 60 * 1000): () => void {
  const timer = setInterval(() => {
    runRetention(deps).then(
      (n) => deps.logger.info(n, 'retention pass'),
      (err) => deps.logger.warn({ err }, 'retention pass failed; will retry'),
    );
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
