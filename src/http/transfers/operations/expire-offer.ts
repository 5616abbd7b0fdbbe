import { notFound } from '../../../shared/errors';
import type { TransfersHandler, TransfersParams } from './types';

/** Sandbox test helper: the offer expires now, so integrations can exercise 410 offer_expired. Live keys get 404. */
export const expireOffer: TransfersHandler<'expireOffer'> = async (c, ctx) => {
  const { offer_id } = c.request.params as TransfersParams<'expireOffer'>;
  const missing = notFound(`No offer ${offer_id} on this account in ${ctx.env}.`, { offer_id });
  if (ctx.env !== 'sandbox') throw notFound('Test helpers exist only in sandbox.', {});
  const now = ctx.deps.clock.now();
  const rows = await ctx.trx('offers')
    .where({ offerId: offer_id, partnerId: ctx.partner.partnerId, env: ctx.env })
    .update({ expiresAt: ctx.trx.raw('least(expires_at, ?)', [now]) })
    .returning(['offerId', 'quoteId', 'expiresAt']);
  if (!rows.length) throw missing;
  return { status: 200, body: { offer_id: rows[0].offerId, quote_id: rows[0].quoteId, expires_at: new Date(rows[0].expiresAt).toISOString() } };
};
