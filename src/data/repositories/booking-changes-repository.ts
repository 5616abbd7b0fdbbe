import { sql, type Sql } from '../database';
import { OFFER_JSON, type Dated, type Env, type OfferForBooking } from './booking-record';

/** An offer of a change quote of this booking, with the party it was quoted for and whether the change quote was applied. */
export interface ChangeOffer extends OfferForBooking {
  appliedAt: Date | null;
  passengers: { adults: number; children?: number; luggage?: number };
}

const changeOffer = sql(`
  select ${OFFER_JSON} as offer, q.applied_at as "appliedAt", q.request->'passengers' as passengers
  from offers o join quotes q on q.quote_id = o.quote_id
  where o.offer_id = $1 and q.quote_id = $2 and q.booking_ref = $3 and q.partner_id = $4 and q.env = $5`);

export async function findChangeOffer(
  db: Sql,
  scope: { partnerId: string; env: Env },
  q: { bookingRef: string; changeQuoteId: string; offerId: string },
): Promise<ChangeOffer | undefined> {
  const [r] = await db.query<{ offer: Dated<OfferForBooking, 'expiresAt' | 'pickupAt'>; appliedAt: Date | null; passengers: ChangeOffer['passengers'] }>(
    changeOffer,
    [q.offerId, q.changeQuoteId, q.bookingRef, scope.partnerId, scope.env],
  );
  if (!r) return undefined;
  const o = r.offer;
  return {
    ...o,
    amountMinor: Number(o.amountMinor),
    expiresAt: new Date(o.expiresAt),
    pickupAt: new Date(o.pickupAt),
    appliedAt: r.appliedAt,
    passengers: r.passengers,
  };
}
