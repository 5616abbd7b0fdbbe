import type { components } from '../../generated/ops-v1';

/** The brands a registered vehicle may carry (contracts/ops-v1.yaml Brand). */
export type Brand = components['schemas']['Brand'];

// Each contract value once: a brand added to or dropped from the contract fails to compile here.
const BRANDS: { readonly [B in Brand]: true } = {
  Toyota: true,
  Suzuki: true,
  'Mercedes-Benz': true,
  Mitsubishi: true,
  Nissan: true,
  Honda: true,
  Hyundai: true,
  Kia: true,
};

export function isBrand(name: string): name is Brand {
  return Object.hasOwn(BRANDS, name);
}

/** A brand read back from the database (only the contract's brands are registered): narrowed here, once. */
export function storedBrand(name: string): Brand {
  if (!isBrand(name)) throw new Error(`stored brand ${JSON.stringify(name)} is not in our brand list`);
  return name;
}
