import type { Booking, Offer, QuoteResponse, RetryingPartnerClient } from '../client';
import type { Check, FlowContext } from './flow';
import { airportTransfer, bookingRequest, offerFor } from './journeys';

/** Quotes the standard airport transfer and picks a bookable offer; fails the requirement if there is none. */
export async function freshOffer(api: RetryingPartnerClient, c: Check, ctx: FlowContext): Promise<{ quote: QuoteResponse; offer: Offer }> {
  const r = c.record(await api.createQuote(airportTransfer(ctx)), 'quote');
  c.equal(r.status, 200, 'quote status');
  const quote = r.data!;
  c.expect(quote.offers.length > 0, `the quote has no offers (declined: ${quote.declined?.reason ?? 'none'})`);
  const offer = offerFor(quote);
  c.expect(offer, 'no offer fits two adults with two bags');
  return { quote, offer };
}

/** A confirmed booking made for the requirement at hand. */
export async function freshBooking(api: RetryingPartnerClient, c: Check, ctx: FlowContext, reference: string): Promise<Booking> {
  const { quote, offer } = await freshOffer(api, c, ctx);
  const r = c.record(await api.createBooking(bookingRequest(ctx, quote, offer, reference), { idempotencyKey: `${ctx.runId}-${reference}` }), 'book');
  c.equal(r.status, 201, 'booking status');
  return r.data!;
}
