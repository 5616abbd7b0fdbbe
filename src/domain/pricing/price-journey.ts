import { FLEET, MIN_FARE_USD_MINOR, fleetOrder, vehiclesThatFit, type FleetVehicle } from '../kernel/fleet';
import { resolvePlace } from '../geo/resolve-place';
import { routeBetween } from '../geo/route';
import type { PlaceInput, PlaceResolution, ResolvedPlace } from '../geo/types';
import { convertFromUsd, isCurrency, toDecimal, type Currency, type Money } from '../kernel/money';

/** USD → currency rates as decimal strings, e.g. { EUR: "0.92", LKR: "300.50" }. USD needs no entry. */
export type FxRates = Readonly<Record<string, string>>;

export type JourneyType = 'arrival' | 'departure' | 'point_to_point';

export interface Offer {
  vehicle: FleetVehicle;
  amount_minor: number;
  currency: Currency;
}

export interface QuoteRequest {
  pickup: PlaceInput;
  dropoff: PlaceInput;
  adults: number;
  /** Children take seats too. */
  children?: number;
  luggage: number;
  /** Fleet codes; undefined, empty or only unknown codes = every vehicle. */
  vehicleFilter?: readonly string[];
  currency: Currency;
  fx: FxRates;
}

export type DeclineReason = 'route_unknown' | 'no_vehicle' | 'below_min_rate';

export type QuoteResult =
  | {
      ok: true;
      journey_type: JourneyType;
      pickup: ResolvedPlace;
      dropoff: ResolvedPlace;
      distance_km: number;
      duration_min: number;
      offers: Offer[];
    }
  | { ok: false; reason: DeclineReason; message: string; hint?: Record<string, unknown> };

/** Rate-card fare before the vehicle's minimum: base + per_km × km, km taken to 0.1 km, one half-up rounding. */
export function rateCardFareUsdMinor(vehicle: FleetVehicle, distanceKm: number): number {
  if (!Number.isFinite(distanceKm) || distanceKm < 0) throw new RangeError(`distance_km must be a non-negative number, got ${distanceKm}`);
  const tenthKm = Math.round(distanceKm * 10);
  const tenthCents = vehicle.rate.per_km_usd_minor * tenthKm + 5;
  return vehicle.rate.base_usd_minor + (tenthCents - (tenthCents % 10)) / 10;
}

export function fareUsdMinor(vehicle: FleetVehicle, distanceKm: number): number {
  return Math.max(vehicle.rate.min_fare_usd_minor, rateCardFareUsdMinor(vehicle, distanceKm));
}

const maxPassengers = Math.max(...FLEET.map((v) => v.max_passengers));
const maxLuggage = Math.max(...FLEET.map((v) => v.max_luggage));

/** The journey's cheapest rate-card fare over the whole fleet; below MIN_FARE_USD_MINOR the journey declines. */
export function journeyRateUsdMinor(distanceKm: number): number {
  return Math.min(...FLEET.map((v) => rateCardFareUsdMinor(v, distanceKm)));
}

export function priceJourney(input: { distance_km: number; vehicle: FleetVehicle; currency: Currency; fx: FxRates }): Money {
  const usd = fareUsdMinor(input.vehicle, input.distance_km);
  return { amount_minor: usdToCurrency(usd, input.currency, input.fx), currency: input.currency };
}

/** USD minor units in `currency` at the day's rate (one rounding). */
export function usdToCurrency(usdMinor: number, currency: Currency, fx: FxRates): number {
  if (currency === 'USD') return usdMinor;
  const rate = fx[currency];
  if (rate === undefined) throw new RangeError(`no USD→${currency} exchange rate supplied`);
  return convertFromUsd(usdMinor, currency, rate);
}

export function journeyType(pickup: ResolvedPlace, dropoff: ResolvedPlace): JourneyType {
  if (pickup.kind === 'airport') return 'arrival';
  if (dropoff.kind === 'airport') return 'departure';
  return 'point_to_point';
}

/**
 * Quotes a journey for every fleet vehicle that fits the party. Pure: no clock, storage or I/O.
 * Declines, checked in this order: route_unknown (an end does not resolve), no_vehicle, below_min_rate.
 * short_notice and partner_paused belong to the caller.
 */
export function quoteJourney(req: QuoteRequest): QuoteResult {
  if (!isCurrency(req.currency)) throw new RangeError(`unsupported currency ${String(req.currency)}`);
  if (req.currency !== 'USD' && req.fx[req.currency] === undefined) throw new RangeError(`no USD→${req.currency} exchange rate supplied`);

  const pickup = resolvePlace(req.pickup);
  const dropoff = resolvePlace(req.dropoff);
  if (!pickup.ok || !dropoff.ok) return routeUnknown(pickup, dropoff);

  const children = req.children ?? 0;
  const fitting = vehiclesThatFit(req.adults + children, req.luggage, req.vehicleFilter);
  if (fitting.length === 0) {
    const filtered = (req.vehicleFilter ?? []).some((c) => FLEET.some((v) => v.code === c));
    const party = `${req.adults} adults${children ? `, ${children} children` : ''} and ${req.luggage} bags`;
    return {
      ok: false,
      reason: 'no_vehicle',
      message: filtered
        ? `None of the requested vehicle_codes carries ${party}; omit vehicle_codes to see every vehicle that does.`
        : `No vehicle of ours carries ${party} (the largest takes ${maxPassengers} passengers and ${maxLuggage} bags); split the party into several bookings.`,
      hint: { adults: req.adults, ...(children ? { children } : {}), luggage: req.luggage, max_passengers: maxPassengers, max_luggage: maxLuggage },
    };
  }

  const route = routeBetween(pickup.place, dropoff.place);
  const journeyRate = journeyRateUsdMinor(route.distance_km);
  if (journeyRate < MIN_FARE_USD_MINOR) {
    return {
      ok: false,
      reason: 'below_min_rate',
      message: `The journey is ${route.distance_km} km, below our minimum fare; we serve journeys between places further apart (move the pickup or the drop-off).`,
      // In the currency the offers would have been priced in (the partner's), converted as they are.
      hint: {
        distance_km: route.distance_km,
        journey_rate: toDecimal(usdToCurrency(journeyRate, req.currency, req.fx), req.currency),
        min_fare: toDecimal(usdToCurrency(MIN_FARE_USD_MINOR, req.currency, req.fx), req.currency),
        currency: req.currency,
      },
    };
  }

  const offers = fitting
    .map((vehicle) => ({ vehicle, ...priceJourney({ distance_km: route.distance_km, vehicle, currency: req.currency, fx: req.fx }) }))
    .sort((a, b) => a.amount_minor - b.amount_minor || fleetOrder(a.vehicle) - fleetOrder(b.vehicle));
  return {
    ok: true,
    journey_type: journeyType(pickup.place, dropoff.place),
    pickup: pickup.place,
    dropoff: dropoff.place,
    distance_km: route.distance_km,
    duration_min: route.duration_min,
    offers,
  };
}

function routeUnknown(pickup: PlaceResolution, dropoff: PlaceResolution): QuoteResult {
  const failed = (['pickup', 'dropoff'] as const).flatMap((end) => {
    const r = end === 'pickup' ? pickup : dropoff;
    return r.ok ? [] : [{ end, reason: r.reason, message: r.message, ...(r.candidates ? { candidates: r.candidates } : {}) }];
  });
  const ends = failed.map((f) => f.end).join(' and ');
  const details = failed.map((f) => `${f.end}: ${f.message}`).join(' ');
  return {
    ok: false,
    reason: 'route_unknown',
    message: `The ${ends} could not be located. ${details} Sending lat/lon for the ${ends} fixes this.`,
    hint: Object.fromEntries(failed.map(({ end, ...rest }) => [end, rest])),
  };
}
