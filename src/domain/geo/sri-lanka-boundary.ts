import boundary from './data/boundary.json';
import { pointInPolygon } from './geo-math';
import type { LatLon } from './types';

const polygon = boundary.polygon.map(([lat, lon]) => [lat, lon] as const);
const bbox = polygon.reduce(
  (b, [lat, lon]) => ({ minLat: Math.min(b.minLat, lat), maxLat: Math.max(b.maxLat, lat), minLon: Math.min(b.minLon, lon), maxLon: Math.max(b.maxLon, lon) }),
  { minLat: Infinity, maxLat: -Infinity, minLon: Infinity, maxLon: -Infinity },
);

export function isInSriLanka(p: LatLon): boolean {
  if (p.lat < bbox.minLat || p.lat > bbox.maxLat || p.lon < bbox.minLon || p.lon > bbox.maxLon) return false;
  return pointInPolygon(p, polygon);
}
