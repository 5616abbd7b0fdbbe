import factors from './data/road-factors.json';
import type { LatLon } from './types';

export interface Region {
  id: string;
  lat: readonly number[];
  lon: readonly number[];
  access_factor: number;
  speed_kmh: number;
}

type PairRule =
  | { when: 'crow_km_below'; value: number; factor: number }
  | { when: 'regions'; a: string; b: string; factor: number }
  | { when: 'either'; a: string; factor: number }
  | { when: 'always'; factor: number };

const regions: readonly Region[] = factors.regions;
const rules: readonly PairRule[] = factors.pair_rules.map(parseRule);
const LOWLAND = regions.find((r) => r.id === 'lowland');
if (!LOWLAND) throw new Error('road-factors.json: the lowland region is required');
const lowland: Region = LOWLAND;

function parseRule(raw: { when: string; factor: number; value?: number; a?: string; b?: string }): PairRule {
  const { when, factor, value, a, b } = raw;
  if (when === 'crow_km_below' && value !== undefined) return { when, value, factor };
  if (when === 'regions' && a && b) return { when, a, b, factor };
  if (when === 'either' && a) return { when, a, factor };
  if (when === 'always') return { when, factor };
  throw new Error(`road-factors.json: bad pair rule ${JSON.stringify(raw)}`);
}

export const SNAP_MAX_NODE_KM: number = factors.snap.max_node_km;
export const SNAP_CANDIDATES: number = factors.snap.candidates;
export const HAVERSINE_SLACK_MIN: number = factors.slack_min;

export function regionOf(p: LatLon): Region {
  for (const r of regions) {
    if (p.lat >= r.lat[0] && p.lat <= r.lat[1] && p.lon >= r.lon[0] && p.lon <= r.lon[1]) return r;
  }
  return lowland;
}

/** Road km ÷ straight-line km for a journey between a and b (reference §3.2). */
export function pairFactor(a: LatLon, b: LatLon, crowKm: number): number {
  const ra = regionOf(a).id;
  const rb = regionOf(b).id;
  for (const rule of rules) {
    switch (rule.when) {
      case 'crow_km_below':
        if (crowKm < rule.value) return rule.factor;
        break;
      case 'regions':
        if ((ra === rule.a && rb === rule.b) || (ra === rule.b && rb === rule.a)) return rule.factor;
        break;
      case 'either':
        if (ra === rule.a || rb === rule.a) return rule.factor;
        break;
      case 'always':
        return rule.factor;
    }
  }
  return factors.fallback_factor;
}

/** Average door-to-door speed for a haversine-estimated journey: each half is driven at its region's speed. */
export function haversineDriveMinutes(a: LatLon, b: LatLon, roadKm: number): number {
  const half = roadKm / 2;
  return (half / regionOf(a).speed_kmh + half / regionOf(b).speed_kmh) * 60;
}
