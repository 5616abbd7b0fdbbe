import type { Sql } from '../../data/database';
import { placeText, type BookingRow } from '../../data/repositories/bookings-repository';
import { findJobBySource } from '../../data/repositories/jobs-repository';
import { findQuoteRequest, quoteWrite } from '../../data/repositories/quotes-repository';
import type { Write } from '../../data/write';
import type { PlaceInput } from '../geo/types';
import { toDecimal } from '../kernel/money';
import type { ExtraRequest } from '../kernel/seats';
import { declinedView, offerView, quoteForPartner, type QuoteDeps, type QuoteInput, type QuotingPartner } from '../quotes/create-quote';
import { assertChangeable } from './booking-changes';
import type { Scope } from './booking-decision';
import { requireBooking } from './get-booking';

/** What a partner asks to change at a price (POST /bookings/{booking_ref}/change_quotes); the rest stays as booked. */
export interface ChangeRequest {
  pickup_datetime?: string;
  pickup?: PlaceInput;
  dropoff?: PlaceInput;
  passengers?: { adults: number; children?: number; luggage?: number };
  extras?: ExtraRequest[];
}

/**
 * Prices a change of a booking: the booking as it would be with the changes, quoted by the partner's quoting engine
 * (the terms in force, the 24-hour lead for the new pickup, the decline reasons, in production the fleet's capacity
 * leaving the booking's own job out), as a change quote locked for 30 minutes. Each offer says how its price
 * differs from the booking's. The change quote is stored with the request's audit row (the answer's `write`).
 */
export async function quoteChange(
  db: Sql,
  partner: QuotingPartner,
  scope: Scope,
  bookingRef: string,
  change: ChangeRequest,
  deps: QuoteDeps,
): Promise<{ changeQuote: ReturnType<typeof view>; write: Write }> {
  const row = await requireBooking(db, scope, bookingRef);
  assertChangeable(row, deps.now);

  const input = await changedJourney(db, row, change);
  const job = scope.env === 'production' ? await findJobBySource(db, 'partner_booking', row.bookingRef) : undefined;
  // Priced in the booking's own currency, so the difference is one amount.
  const q = await quoteForPartner({ ...partner, currency: row.currency }, scope.env, input, deps, {
    bookingRef: row.bookingRef,
    exceptJob: job?.jobId ?? null,
  });
  return { changeQuote: view(row, q), write: quoteWrite(q.quote, q.offers) };
}

/** The journey as booked, with the changes asked for: places as the booking's quote was asked for them. */
async function changedJourney(db: Sql, row: BookingRow, change: ChangeRequest): Promise<QuoteInput> {
  const booked = await findQuoteRequest(db, row.quoteId);
  const located = (p: BookingRow['pickup']): PlaceInput => ({ name: placeText(p), lat: p.lat, lon: p.lon });
  return {
    pickup: change.pickup ?? booked?.pickup ?? located(row.pickup),
    dropoff: change.dropoff ?? booked?.dropoff ?? located(row.dropoff),
    pickup_datetime: change.pickup_datetime ?? row.pickupDatetime,
    passengers: change.passengers ?? { adults: row.adults, children: row.children, luggage: row.luggage },
    extras: change.extras ?? row.extras.map((e) => ({ code: e.code, quantity: e.quantity })),
  };
}

function view(row: BookingRow, q: Awaited<ReturnType<typeof quoteForPartner>>) {
  return {
    change_quote_id: q.quote.quoteId,
    booking_ref: row.bookingRef,
    expires_at: q.quote.expiresAt.toISOString(),
    currency: row.currency,
    offers: q.offers.map((o) => ({ ...offerView(q.quote, o), price_difference: toDecimal(o.amountMinor - row.amountMinor, row.currency) })),
    declined: declinedView(q.outcome),
  };
}
