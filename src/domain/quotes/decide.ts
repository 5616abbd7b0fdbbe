import { quoteJourney, type FxRates, type QuoteResult } from '../pricing/price-journey';
import type { Currency } from '../kernel/money';
import type { PlaceInput } from '../geo/types';

export const OFFER_TTL_MS = 30 * 60 * 1000;
export const MIN_LEAD_TIME_MS = 24 * 60 * 60 * 1000;

export type DeclineReason = 'partner_paused' | 'short_notice' | 'route_unknown' | 'no_vehicle' | 'below_min_rate';
export type Decision = QuoteResult | { ok: false; reason: DeclineReason; message: string; hint?: Record<string, unknown> };

export interface JourneyRequest {
  pickup: PlaceInput;
  dropoff: PlaceInput;
  pickupAt: Date;
  /** The pickup time as the caller wrote it (RFC 3339): the short_notice hint is given in its UTC offset. */
  pickupWritten?: string;
  adults: number;
  children?: number;
  luggage: number;
  /** Fleet codes; undefined = every vehicle. */
  vehicleFilter?: readonly string[];
  currency: Currency;
}

/**
 * The one pricing brain for every channel (partners and the marketplace). Declines, in order: partner_paused,
 * short_notice (against `now`), then the engine's route_unknown, no_vehicle, below_min_rate.
 */
export function decideJourney(req: JourneyRequest, ctx: { now: Date; fx: FxRates; paused?: boolean }): Decision {
  if (ctx.paused) {
    return { ok: false, reason: 'partner_paused', message: 'Quoting is paused on this account; contact the service operator.' };
  }
  if (req.pickupAt.getTime() < ctx.now.getTime() + MIN_LEAD_TIME_MS) {
    const earliest = inOffsetOf(new Date(Math.ceil((ctx.now.getTime() + MIN_LEAD_TIME_MS) / 60_000) * 60_000), req.pickupWritten);
    return {
      ok: false,
      reason: 'short_notice',
      message: `Pickups must be booked at least 24 hours ahead; the earliest pickup we can accept now is ${earliest}.`,
      hint: { earliest_pickup_datetime: earliest },
    };
  }
  return quoteJourney({
    pickup: req.pickup,
    dropoff: req.dropoff,
    adults: req.adults,
    children: req.children,
    luggage: req.luggage,
    vehicleFilter: req.vehicleFilter,
    currency: req.currency,
    fx: ctx.fx,
  });
}

const OFFSET = /(?:([+-])(\d{2}):?(\d{2}))$/;

/**
 * The instant in the UTC offset `written` carries (`2026-11-22T13:30:00+05:30` for 08:00Z and a `+05:30` time), so
 * a partner reads it the way it wrote its own; in UTC (`…T08:00:00.000Z`) when `written` is in UTC or absent.
 */
export function inOffsetOf(instant: Date, written: string | undefined): string {
  const m = written === undefined ? null : OFFSET.exec(written);
  if (!m) return instant.toISOString();
  const minutes = (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
  const local = new Date(instant.getTime() + minutes * 60_000).toISOString();
  return `${local.slice(0, local.endsWith('.000Z') ? 19 : 23)}${m[1]}${m[2]}:${m[3]}`;
}
