import type { components as Ops } from '../../generated/ops-v1';
import type { components as Transfers } from '../../generated/transfers-v1';
import fleetData from './fleet.json';

/** Our fleet codes, as the operator contract names them (contracts/ops-v1.yaml FleetCode). */
export type FleetCode = Ops['schemas']['FleetCode'];
/** The class partners see on an offer (contracts/transfers-v1.yaml Offer.vehicle_class). */
export type VehicleClass = Transfers['schemas']['Offer']['vehicle_class'];

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

// Each contract value once: a value added to or dropped from the contract's enum fails to compile here.
const CODES: { readonly [C in FleetCode]: true } = {
  small_car: true,
  standard_car: true,
  premium_car: true,
  suv: true,
  standard_van: true,
  premium_van: true,
  large_van: true,
  standard_bus: true,
};
const CLASSES: { readonly [C in VehicleClass]: true } = { Economy: true, Standard: true, Business: true };

export function isFleetCode(code: string): code is FleetCode {
  return Object.hasOwn(CODES, code);
}

const isVehicleClass = (c: string): c is VehicleClass => Object.hasOwn(CLASSES, c);

/** A fleet code read back from the database (the schema checks it): narrowed here, once. */
export function storedFleetCode(code: string): FleetCode {
  if (!isFleetCode(code)) throw new Error(`stored fleet code ${JSON.stringify(code)} is not one of ours`);
  return code;
}

function parseVehicle(v: (typeof fleetData.vehicles)[number]): FleetVehicle {
  const code = isFleetCode(v.code) ? v.code : undefined;
  const cls = isVehicleClass(v.class) ? v.class : undefined;
  const r = v.rate;
  const amounts = [r.base_usd_minor, r.per_km_usd_minor, r.min_fare_usd_minor, v.max_passengers, v.max_luggage];
  if (!code || !cls || !amounts.every((n) => Number.isSafeInteger(n) && n >= 0)) throw new Error(`fleet.json: bad vehicle ${JSON.stringify(v)}`);
  return Object.freeze({ code, name: v.name, class: cls, max_passengers: v.max_passengers, max_luggage: v.max_luggage, rate: Object.freeze({ ...r }) });
}

/** The eight vehicles in the spec's table order (the tie-break order for equal prices). */
export const FLEET: readonly FleetVehicle[] = Object.freeze(fleetData.vehicles.map(parseVehicle));
const codeCount = Object.keys(CODES).length;
if (FLEET.length !== codeCount || new Set(FLEET.map((v) => v.code)).size !== codeCount) throw new Error('fleet.json: expected each fleet vehicle once');

/** Journeys whose cheapest fleet rate-card fare is below this decline below_min_rate (rule in fleet.json). */
export const MIN_FARE_USD_MINOR: number = fleetData.min_fare_usd_minor;

const fleetIndex = new Map<string, number>(FLEET.map((v, i) => [v.code, i]));

export function fleetOrder(v: FleetVehicle): number {
  return fleetIndex.get(v.code) ?? FLEET.length;
}

export function getVehicle(code: string): FleetVehicle | undefined {
  const i = fleetIndex.get(code);
  return i === undefined ? undefined : FLEET[i];
}

/** The vehicle of a fleet code (every code has one: checked when fleet.json is loaded). */
export function vehicleOf(code: FleetCode): FleetVehicle {
  const v = getVehicle(code);
  if (!v) throw new Error(`fleet.json has no vehicle ${code}`);
  return v;
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
