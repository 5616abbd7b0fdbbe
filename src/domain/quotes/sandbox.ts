import type { Sql } from '../../data/database';
import { expireOffer as expire } from '../../data/repositories/quotes-repository';
import { notFound } from '../../shared/errors';

/** Test helpers exist only in sandbox: with a live key they are not found, like anything unknown. */
export function sandboxOnly(env: 'sandbox' | 'production'): void {
  if (env !== 'sandbox') throw notFound('Test helpers exist only in sandbox.', {});
}

/** Sandbox: the offer expires now, so integrations can exercise 410 offer_expired. */
export async function expireOffer(tx: Sql, scope: { partnerId: string; env: 'sandbox' | 'production' }, offerId: string, now: Date) {
  sandboxOnly(scope.env);
  const row = await expire(tx, offerId, scope.partnerId, scope.env, now);
  if (!row) throw notFound(`No offer ${offerId} on this account in ${scope.env}.`, { offer_id: offerId });
  return { offer_id: row.offerId, quote_id: row.quoteId, expires_at: new Date(row.expiresAt).toISOString() };
}
