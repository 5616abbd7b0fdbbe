import type { Sql } from '../../data/database';
import type { Write } from '../../data/write';
import { findLiveMark, priceMarksWrite, type PriceMarkRecord } from '../../data/repositories/marketplace-repository';
import { getVehicle } from '../fleet/fleet';
import { formatMinor } from '../pricing/money';
import type { FxRates } from '../pricing/price-journey';
import { decideJourney, OFFER_TTL_MS } from '../quotes/decide';
import { withinCapacity, type FreeClasses } from '../quotes/create-quote';
import { hex32 } from '../../shared/ids';
import { AppError, invalidRequest } from '../../shared/errors';
import { formatLocal, parseLocal } from './local-time';
import { EARLIEST_DAY, LATEST_DAY } from '../../shared/storable-time';
import titles from './fleet-titles.json';

export interface SupplierCtx {
  now: Date;
  fx: FxRates;
  /** The fleet's free classes for a window (production capacity); absent: not limited. */
  freeClasses?: FreeClasses;
}

/** What the marketplace sends to search, re-quote and (with order fields) book. */
export interface SearchInput {
  from: { name?: string; iata?: string; lat?: number; lon?: number };
  to: { name?: string; iata?: string; lat?: number; lon?: number };
  date: string;
  adults: number;
  children?: number;
  infants?: number;
  luggage?: number;
  currency?: 'EUR';
  lang?: string;
}

type VehicleTitle = { brand: string; model: string; body: string; class: string };
const TITLES = titles.vehicles as Record<string, VehicleTitle>;
export const BRANDS = titles.brands;

/** Everyone in a seat counts against the vehicle: children and infants too (child seats take a seat). */
export const seatsNeeded = (s: Pick<SearchInput, 'adults' | 'children' | 'infants'>) => s.adults + (s.children ?? 0) + (s.infants ?? 0);

export function pickupAtOf(s: Pick<SearchInput, 'date'>): Date {
  const at = parseLocal(s.date);
  if (!at) throw invalidRequest(`invalid request: date ${s.date} is not a valid YYYY-MM-DD HH:MM:SS on a day from ${EARLIEST_DAY} to ${LATEST_DAY}`, [{ field: 'date', message: 'is not a valid date' }]);
  return at;
}

export const noVehicle = (error: string, reason?: string) => ({ status: 'NO_VEHICLE' as const, error, ...(reason ? { reason } : {}) });

function wireVehicle(row: { priceMark: string; vehicle: string; amountMinor: number | string; distanceKm: number | string; durationMin: number; expiresAt: Date }) {
  const v = getVehicle(row.vehicle)!;
  const t = TITLES[v.code];
  return {
    vehicle_id: v.code,
    price_mark: row.priceMark,
    title: `${t.brand} ${t.model} ${t.body} 1-${v.max_passengers} passengers`,
    brand: t.brand,
    model: t.model,
    class: t.class,
    transfer_type: 'private',
    max_passengers: v.max_passengers,
    max_luggage: v.max_luggage,
    price: formatMinor(Number(row.amountMinor), 'EUR'),
    currency: 'EUR',
    distance_km: Number(row.distanceKm),
    duration_min: row.durationMin,
    meeting_types: ['MG', 'NMG'],
    free_cancellation_hours: 24,
    expires_at: formatLocal(new Date(row.expiresAt)),
  };
}

/**
 * Prices the search with the same engine as partner quotes (in EUR) and locks each fitting vehicle under a new
 * price mark, valid 30 minutes: the answer, and the marks to store with the request's audit row. `only` restricts
 * the answer to one vehicle (re-quote).
 */
async function lock(search: SearchInput, ctx: SupplierCtx, only?: string) {
  const pickupAt = pickupAtOf(search);
  let decision = decideJourney(
    { pickup: search.from, dropoff: search.to, pickupAt, adults: seatsNeeded(search), luggage: search.luggage ?? 0, vehicleFilter: only ? [only] : undefined, currency: 'EUR' },
    ctx,
  );
  // The marketplace is production: it sees only what the fleet has free for the journey's window.
  if (decision.ok && ctx.freeClasses) decision = await withinCapacity(decision, pickupAt, ctx.freeClasses);
  if (!decision.ok) return { vehicles: [], reason: decision.reason, message: decision.message };
  const expiresAt = new Date(ctx.now.getTime() + OFFER_TTL_MS);
  const marks: PriceMarkRecord[] = decision.offers
    .filter((o) => !only || o.vehicle.code === only)
    .map((o) => ({
      priceMark: `pm_${hex32()}`,
      vehicle: o.vehicle.code,
      search,
      amountMinor: o.amount_minor,
      currency: 'EUR',
      distanceKm: decision.distance_km,
      durationMin: decision.duration_min,
      pickupAt,
      createdAt: ctx.now,
      expiresAt,
    }));
  return { vehicles: marks.map(wireVehicle), write: marks.length ? priceMarksWrite(marks) : undefined };
}

export async function searchVehicles(search: SearchInput, ctx: SupplierCtx) {
  const { write, ...found } = { write: undefined as Write | undefined, ...(await lock(search, ctx)) };
  return { answer: { status: 'OK' as const, ...found }, write };
}

export async function requoteVehicle(vehicleId: string, search: SearchInput, ctx: SupplierCtx) {
  if (!getVehicle(vehicleId)) return { answer: noVehicle(`vehicle ${vehicleId} is not in our fleet`, 'unknown_vehicle') };
  const r = await lock(search, ctx, vehicleId);
  if (!r.vehicles.length) return { answer: noVehicle(('message' in r && r.message) || `vehicle ${vehicleId} no longer fits this search`, ('reason' in r && r.reason) || 'no_vehicle') };
  return { answer: { status: 'OK' as const, vehicle: r.vehicles[0] }, write: 'write' in r ? r.write : undefined };
}

export interface LockedQuote {
  priceMark: string;
  vehicle: string;
  search: SearchInput;
  amountMinor: number;
  durationMin: number;
  pickupAt: Date;
  expiresAt: Date;
}

export async function findLockedQuote(db: Sql, vehicleId: string, priceMark: string, now: Date): Promise<LockedQuote | null> {
  const row = await findLiveMark(db, vehicleId, priceMark, now);
  return row ? { ...row, search: row.search as SearchInput } : null;
}

export async function getLockedQuote(db: Sql, vehicleId: string, priceMark: string, now: Date) {
  const row = await findLiveMark(db, vehicleId, priceMark, now);
  if (!row) throw new AppError('not_found', 'price mark not found or expired', { price_mark: priceMark });
  return { status: 'OK' as const, vehicle: wireVehicle(row), search: row.search as SearchInput };
}
