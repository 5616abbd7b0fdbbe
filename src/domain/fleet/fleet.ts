import fleetData from './fleet.json';

export type FleetCode = 'small_car' | 'standard_car' | 'premium_car' | 'suv' | 'standard_van' | 'premium_van' | 'large_van' | 'standard_bus';
export type VehicleClass = 'Economy' | 'Standard' | 'Business';

/** USD cents. Fare for d road km = max(min_fare, base + per_km × d). */
export interface RateCard {
  base_usd_minor: number;
  per_km_usd_minor: number;
  min_fare_usd_minor: number;
}

export interface FleetVehicle {
  code: FleetCode;
  /** Display name as in the spec's fleet table ("Standard Car"); the wire adds "or similar". */
  name: string;
  class: VehicleClass;
  max_passengers: number;
  max_luggage: number;
  rate: RateCard;
}

const CODES: readonly FleetCode[] = ['small_car', 'standard_car', 'premium_car', 'suv', 'standard_van', 'premium_van', 'large_van', 'standard_bus'];
const CLASSES: readonly VehicleClass[] = ['Economy', 'Standard', 'Business'];

function parseVehicle(v: (typeof fleetData.vehicles)[number]): FleetVehicle {
  const code = CODES.find((c) => c === v.code);
  const cls = CLASSES.find((c) => c === v.class);
  const r = v.rate;
  const amounts = [r.base_usd_minor, r.per_km_usd_minor, r.min_fare_usd_minor, v.max_passengers, v.max_luggage];
  if (!code || !cls || !amounts.every((n) => Number.isSafeInteger(n) && n >= 0)) throw new Error(`fleet.json: bad vehicle ${JSON.stringify(v)}`);
  return Object.freeze({ code, name: v.name, class: cls, max_passengers: v.max_passengers, max_luggage: v.max_luggage, rate: Object.freeze({ ...r }) });
}

/** The eight vehicles in the spec's table order (the tie-break order for equal prices). */
export const FLEET: readonly FleetVehicle[] = Object.freeze(fleetData.vehicles.map(parseVehicle));
if (FLEET.length !== CODES.length) throw new Error('fleet.json: expected the eight fleet vehicles');

/** Journeys whose cheapest fleet rate-card fare is below this decline below_min_rate (rule in fleet.json). */
export const MIN_FARE_USD_MINOR: number = fleetData.min_fare_usd_minor;

const fleetIndex = new Map(FLEET.map((v, i) => [v.code as string, i]));

export function fleetOrder(v: FleetVehicle): number {
  return fleetIndex.get(v.code) ?? FLEET.length;
}

export function getVehicle(code: string): FleetVehicle | undefined {
  const i = fleetIndex.get(code);
  return i === undefined ? undefined : FLEET[i];
}

export function isFleetCode(code: string): code is FleetCode {
  return fleetIndex.has(code);
}

/**
 * Cheapest first: by base fare, per-km rate and minimum fare, ties in fleet order. The shipped rate cards rise
 * together along this order, so it is the price order at every distance (asserted in the fleet tests).
 */
const BY_RATE: readonly FleetVehicle[] = [...FLEET].sort(
  (a, b) =>
    a.rate.base_usd_minor - b.rate.base_usd_minor ||
    a.rate.per_km_usd_minor - b.rate.per_km_usd_minor ||
    a.rate.min_fare_usd_minor - b.rate.min_fare_usd_minor ||
    fleetOrder(a) - fleetOrder(b),
);

/**
 * Vehicles that carry `adults` passengers and `luggage` bags, cheapest first.
 * `filter` lists fleet codes; unknown codes are ignored and an empty or all-unknown filter means no filter
 * (spec §2: unrecognised vehicle codes are ignored, never rejected).
 */
export function vehiclesThatFit(adults: number, luggage: number, filter?: readonly string[]): FleetVehicle[] {
  if (!Number.isSafeInteger(adults) || adults < 1) throw new RangeError(`adults must be a positive integer, got ${adults}`);
  if (!Number.isSafeInteger(luggage) || luggage < 0) throw new RangeError(`luggage must be a non-negative integer, got ${luggage}`);
  const wanted = filter?.filter(isFleetCode);
  const allowed = wanted && wanted.length > 0 ? new Set<string>(wanted) : undefined;
  return BY_RATE.filter((v) => adults <= v.max_passengers && luggage <= v.max_luggage && (!allowed || allowed.has(v.code)));
}
