import type { BookingRequest, Offer, QuoteRequest, QuoteResponse } from '../client';
import type { FlowContext } from './flow';

const HOUR = 3600_000;

/** A pickup `hoursAhead` of the server's clock, written as Sri Lankan local time (+05:30) the way a partner would. */
export function pickupAt(ctx: Pick<FlowContext, 'serverNow'>, hoursAhead: number): string {
  const at = new Date(Math.floor((ctx.serverNow.getTime() + hoursAhead * HOUR) / 60_000) * 60_000);
  const local = new Date(at.getTime() + 5.5 * HOUR).toISOString().slice(0, 19);
  return `${local}+05:30`;
}

export const LEAD_DAYS = 7;

/** Airport to a Colombo hotel, a week ahead, two adults with two bags: every vehicle but the smallest fits. */
export function airportTransfer(ctx: Pick<FlowContext, 'serverNow'>, over: Partial<QuoteRequest> = {}): QuoteRequest {
  return {
    pickup: { iata: 'CMB' },
    dropoff: { name: 'Cinnamon Grand, 77 Galle Road, Colombo 03' },
    pickup_datetime: pickupAt(ctx, LEAD_DAYS * 24),
    passengers: { adults: 2, luggage: 2 },
    ...over,
  };
}

/** The journeys that provoke each decline a sandbox key can reach. */
export const declineJourneys = {
  short_notice: (ctx: Pick<FlowContext, 'serverNow'>) => airportTransfer(ctx, { pickup_datetime: pickupAt(ctx, 2) }),
  route_unknown: (ctx: Pick<FlowContext, 'serverNow'>) => airportTransfer(ctx, { dropoff: { name: 'Villa Serendipity Hideaway' } }),
  no_vehicle: (ctx: Pick<FlowContext, 'serverNow'>) => airportTransfer(ctx, { passengers: { adults: 21, luggage: 0 } }),
  // Two points about 300 m apart in Colombo: priced below the minimum fare.
  below_min_rate: (ctx: Pick<FlowContext, 'serverNow'>) =>
    airportTransfer(ctx, { pickup: { lat: 6.9271, lon: 79.8612 }, dropoff: { lat: 6.9301, lon: 79.8622 } }),
} as const;

/** The offer to book for the party of `airportTransfer`: a standard car if offered, else the cheapest that fits. */
export function offerFor(quote: QuoteResponse, adults = 2, luggage = 2): Offer | undefined {
  const fits = quote.offers.filter((o) => o.max_passengers >= adults && o.max_luggage >= luggage);
  return fits.find((o) => o.vehicle_code === 'standard_car') ?? fits[0];
}

export function bookingRequest(ctx: Pick<FlowContext, 'runId'>, quote: QuoteResponse, offer: Offer, reference: string): BookingRequest {
  return {
    quote_id: quote.quote_id,
    offer_id: offer.offer_id,
    partner_reference: `${ctx.runId}-${reference}`,
    passenger: { first_name: 'Ayesha', last_name: 'Perera', email: 'ayesha@example.com', phone: '+94771234567' },
    passengers: { adults: 2, luggage: 2 },
    flight_number: 'UL504',
  };
}
