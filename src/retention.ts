import type { Deps } from './deps';
import { purgeExpiredQuotes } from './domain/quotes/create-quote';
import { purgeExpiredIdempotencyKeys } from './http/transfers/idempotency';
import { purgeExpiredPriceMarks } from './domain/marketplace/supplier';

/** Unbooked quotes are kept this long after they expire (for support questions), then purged with their offers. */
export const QUOTE_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/** One retention pass: expired quotes, price marks and idempotency keys past their retention. Safe on every instance. */
export async function runRetention(deps: Pick<Deps, 'db' | 'clock'>) {
  const now = deps.clock.now();
  return {
    quotes: await purgeExpiredQuotes(deps.db, now, QUOTE_RETENTION_MS),
    idempotencyKeys: await purgeExpiredIdempotencyKeys(deps.db, now),
    priceMarks: await purgeExpiredPriceMarks(deps.db, now, QUOTE_RETENTION_MS),
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
