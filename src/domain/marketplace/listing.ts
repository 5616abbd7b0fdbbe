import type { components } from '../../generated/marketplace-inbound';
import { FLEET, type FleetCode } from '../kernel/fleet';
import { isBrand, type Brand } from '../kernel/brands';
import titles from './fleet-titles.json';

/** The marketplace's vehicle classes (contracts/marketplace-inbound.yaml Vehicle.class). */
export type MarketplaceClass = components['schemas']['Vehicle']['class'];

// Each contract value once: a class added to or dropped from the contract fails to compile here.
const CLASSES: { readonly [C in MarketplaceClass]: true } = { economy: true, standard: true, business: true, luxury: true };
const isMarketplaceClass = (c: string): c is MarketplaceClass => Object.hasOwn(CLASSES, c);

/** How a fleet vehicle is listed on the marketplace: a typical Sri Lankan model of its code, and the class. */
export interface Listing {
  brand: Brand;
  model: string;
  /** The body style the title names ("Sedan", "Minivan"). */
  body: string;
  class: MarketplaceClass;
}

/** A brand and our id for it (served at GET /brandlist/, and named in driver info). */
export interface BrandEntry {
  id: number;
  name: Brand;
}

function parseBrand(b: (typeof titles.brands)[number]): BrandEntry {
  if (!isBrand(b.name) || !Number.isSafeInteger(b.id)) throw new Error(`fleet-titles.json: bad brand ${JSON.stringify(b)}`);
  return Object.freeze({ id: b.id, name: b.name });
}

/** Our brand list, in its order. */
export const BRANDS: readonly BrandEntry[] = Object.freeze(titles.brands.map(parseBrand));

const LISTINGS = new Map<FleetCode, Listing>(
  FLEET.map(({ code }) => {
    const t = titles.vehicles[code];
    if (!isBrand(t.brand) || !isMarketplaceClass(t.class)) throw new Error(`fleet-titles.json: bad listing for ${code} ${JSON.stringify(t)}`);
    if (!BRANDS.some((b) => b.name === t.brand)) throw new Error(`fleet-titles.json: ${code} names ${t.brand}, which is not in the brand list`);
    return [code, Object.freeze({ brand: t.brand, model: t.model, body: t.body, class: t.class })];
  }),
);

export function listingOf(code: FleetCode): Listing {
  const listing = LISTINGS.get(code);
  if (!listing) throw new Error(`no marketplace listing for fleet code ${code}`);
  return listing;
}
