import type { Sql } from '../../data/database';
import type { Write } from '../../data/write';
import type { components } from '../../generated/marketplace-inbound';
import { findLiveMark, priceMarksWrite, type PriceMarkRecord } from '../../data/repositories/marketplace-repository';
import { getVehicle, type FleetVehicle } from '../kernel/fleet';
import type { FxRates } from '../pricing/price-journey';
import { decideJourney, OFFER_TTL_MS, type Decision, type DeclineReason, type JourneyRequest } from '../quotes/decide';
import { withinCapacity, type FreeClasses } from '../quotes/create-quote';
import { hex32 } from '../../shared/ids';
import { newSubjectKeys } from '../kernel/data-keys';
import { AppError, invalidRequest } from '../../shared/errors';
import { parseLocal } from '../kernel/sri-lanka-time';
import { EARLIEST_DAY, LATEST_DAY } from '../../shared/storable-time';

export interface SupplierCtx {
  now: Date;
  fx: FxRates;
  /** The fleet's free classes for a window (production capacity); absent: not limited. */
  freeClasses?: FreeClasses;
}

/** What the marketplace sends to search and re-quote (contracts/marketplace-inbound.yaml SearchRequest). */
export type SearchInput = components['schemas']['SearchRequest'];

/**
 * Why a journey cannot be served to the marketplace: the pricing engine's declines. partner_paused is not one of
 * them: the marketplace is no partner account, and nothing pauses it (see decideForMarketplace).
 */
export type JourneyDecline = Exclude<DeclineReason, 'partner_paused'>;

export type MarketplaceDecision = Extract<Decision, { ok: true }> | { ok: false; reason: JourneyDecline; message: string; hint?: Record<string, unknown> };

function marketplaceDecision(d: Decision): MarketplaceDecision {
  if (d.ok) return d;
  const { reason, ...rest } = d;
  if (reason === 'partner_paused') throw new Error('the marketplace was declined partner_paused, but it is never paused');
  return { ...rest, reason };
}

/**
 * The pricing engine's decision for the marketplace (in EUR, as for partner quotes), within the fleet's free
 * classes when they are given. No pause applies: the marketplace is not a partner account.
 */
export async function decideForMarketplace(req: JourneyRequest, ctx: SupplierCtx): Promise<MarketplaceDecision> {
  let decision = decideJourney(req, { now: ctx.now, fx: ctx.fx });
  // The marketplace is production: it sees only what the fleet has free for the journey's window.
  if (decision.ok && ctx.freeClasses) decision = await withinCapacity(decision, req.pickupAt, ctx.freeClasses);
  return marketplaceDecision(decision);
}

/** A vehicle priced for a search and locked under a price mark (valid until expiresAt). */
export interface LockedPrice {
  priceMark: string;
  vehicle: FleetVehicle;
  /** EUR cents. */
  amountMinor: number;
  distanceKm: number;
  durationMin: number;
  expiresAt: Date;
}

/** What a search found: the fitting vehicles, cheapest first, each locked (`write` stores the marks); or why none. */
export type SearchOutcome =
  | { kind: 'priced'; vehicles: LockedPrice[]; write?: Write; subject?: string; dataKeys?: ReadonlyMap<string, Buffer> }
  | { kind: 'declined'; reason: JourneyDecline; message: string };

/** A re-quote: the vehicle locked afresh, or why it no longer serves the search. */
export type RequoteOutcome =
  | { kind: 'priced'; vehicle: LockedPrice; write: Write; subject?: string; dataKeys?: ReadonlyMap<string, Buffer> }
  | { kind: 'no_vehicle'; reason: JourneyDecline | 'unknown_vehicle'; message: string };

/** Everyone in a seat counts against the vehicle: children and infants too (child seats take a seat). */
export const seatsNeeded = (s: Pick<SearchInput, 'adults' | 'children' | 'infants'>) => s.adults + (s.children ?? 0) + (s.infants ?? 0);

export function pickupAtOf(s: Pick<SearchInput, 'date'>): Date {
  const at = parseLocal(s.date);
  if (!at)
    throw invalidRequest(`invalid request: date ${s.date} is not a valid YYYY-MM-DD HH:MM:SS on a day from ${EARLIEST_DAY} to ${LATEST_DAY}`, [
      { field: 'date', message: 'is not a valid date' },
    ]);
  return at;
}

function lockedPrice(row: Pick<PriceMarkRecord, 'priceMark' | 'vehicle' | 'amountMinor' | 'distanceKm' | 'durationMin' | 'expiresAt'>): LockedPrice {
  const vehicle = getVehicle(row.vehicle);
  if (!vehicle) throw new Error(`price mark ${row.priceMark} is for ${row.vehicle}, which is not in our fleet`);
  return {
    priceMark: row.priceMark,
    vehicle,
    amountMinor: Number(row.amountMinor),
    distanceKm: Number(row.distanceKm),
    durationMin: row.durationMin,
    expiresAt: new Date(row.expiresAt),
  };
}

/**
 * Prices the search with the same engine as partner quotes (in EUR) and locks each fitting vehicle under a new
 * price mark, valid 30 minutes: the vehicles, and the marks to store with the request's audit row. `only` restricts
 * them to one vehicle (re-quote).
 */
async function lock(search: SearchInput, ctx: SupplierCtx, only?: string): Promise<SearchOutcome> {
  const pickupAt = pickupAtOf(search);
  const decision = await decideForMarketplace(
    {
      pickup: search.from,
      dropoff: search.to,
      pickupAt,
      adults: seatsNeeded(search),
      luggage: search.luggage ?? 0,
      vehicleFilter: only ? [only] : undefined,
      currency: 'EUR',
    },
    ctx,
  );
  if (!decision.ok) return { kind: 'declined', reason: decision.reason, message: decision.message };
  const expiresAt = new Date(ctx.now.getTime() + OFFER_TTL_MS);
  // The search is a subject of its own (its places' text is the traveller's), its key made with its marks: an order
  // erased destroys the key of the search it was priced under; a search never ordered loses its key with its marks.
  const subject = `search:${hex32()}`;
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
      subject,
    }));
  if (!marks.length) return { kind: 'priced', vehicles: [] };
  return { kind: 'priced', vehicles: marks.map(lockedPrice), write: priceMarksWrite(marks), subject, dataKeys: newSubjectKeys([subject]) };
}

export function searchVehicles(search: SearchInput, ctx: SupplierCtx): Promise<SearchOutcome> {
  return lock(search, ctx);
}

export async function requoteVehicle(vehicleId: string, search: SearchInput, ctx: SupplierCtx): Promise<RequoteOutcome> {
  if (!getVehicle(vehicleId)) return { kind: 'no_vehicle', reason: 'unknown_vehicle', message: `vehicle ${vehicleId} is not in our fleet` };
  const r = await lock(search, ctx, vehicleId);
  if (r.kind === 'declined') return { kind: 'no_vehicle', reason: r.reason, message: r.message };
  const [vehicle] = r.vehicles;
  if (!vehicle || !r.write) return { kind: 'no_vehicle', reason: 'no_vehicle', message: `vehicle ${vehicleId} no longer fits this search` };
  return { kind: 'priced', vehicle, write: r.write, subject: r.subject, dataKeys: r.dataKeys };
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

/** The locked quote behind a live price mark: the vehicle as it was priced, and the search it was priced for. */
export async function getLockedQuote(
  db: Sql,
  vehicleId: string,
  priceMark: string,
  now: Date,
): Promise<{ price: LockedPrice; search: SearchInput; subject: string | null }> {
  const row = await findLiveMark(db, vehicleId, priceMark, now);
  if (!row) throw new AppError('not_found', 'price mark not found or expired', { price_mark: priceMark });
  return { price: lockedPrice(row), search: row.search as SearchInput, subject: row.subject };
}
