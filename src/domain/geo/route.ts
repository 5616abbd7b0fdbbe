import { haversineKm } from './geo-math';
import { regionOf, pairFactor, haversineDriveMinutes, HAVERSINE_SLACK_MIN, SNAP_CANDIDATES, SNAP_MAX_NODE_KM } from './road-factors';
import { GRAPH_SLACK_MIN, nodeKm, nodeMinutes, nodeOfPlace, nodes } from './road-graph';
import type { Route, RouteEnd } from './types';

export type { Route, RouteEnd } from './types';

interface Snap {
  node: number;
  km: number;
  min: number;
}

/** Points this close to a node are the node (a gazetteer point sent back as lat/lon). */
const ON_NODE_KM = 0.05;

/**
 * Road distance and drive time between two points in Sri Lanka.
 * Distance is the *shortest* road (what operators price on, reference §0.4); time follows the fastest road.
 * Each end joins the graph at one of its nearest nodes by an access leg of straight line × regional factor;
 * an end beyond the graph, or two ends that share their best node, fall back to straight line × regional factor.
 */
export function routeBetween(a: RouteEnd, b: RouteEnd): Route {
  const crow = haversineKm(a, b);
  const sa = snap(a);
  const sb = snap(b);
  let best: { km: number; from: Snap; to: Snap } | undefined;
  for (const from of sa) {
    for (const to of sb) {
      const km = from.km + nodeKm(from.node, to.node) + to.km;
      if (!best || km < best.km) best = { km, from, to };
    }
  }
  if (!best || best.from.node === best.to.node) return haversineRoute(a, b, crow);
  const minutes = best.from.min + nodeMinutes(best.from.node, best.to.node) + best.to.min + GRAPH_SLACK_MIN;
  return { distance_km: roundKm(best.km), duration_min: Math.round(minutes), method: 'graph' };
}

function haversineRoute(a: RouteEnd, b: RouteEnd, crow: number): Route {
  const km = crow * pairFactor(a, b, crow);
  if (km === 0) return { distance_km: 0, duration_min: 0, method: 'haversine' };
  return { distance_km: roundKm(km), duration_min: Math.round(haversineDriveMinutes(a, b, km) + HAVERSINE_SLACK_MIN), method: 'haversine' };
}

function snap(p: RouteEnd): Snap[] {
  const exact = p.place_id === undefined ? undefined : nodeOfPlace.get(p.place_id);
  if (exact !== undefined) return [{ node: exact, km: 0, min: 0 }];
  const near: Array<{ node: number; crow: number }> = [];
  for (let i = 0; i < nodes.length; i++) {
    const crow = haversineKm(p, nodes[i]);
    if (crow <= ON_NODE_KM) return [{ node: i, km: 0, min: 0 }];
    if (crow <= SNAP_MAX_NODE_KM) near.push({ node: i, crow });
  }
  near.sort((x, y) => x.crow - y.crow || x.node - y.node);
  const region = regionOf(p);
  return near.slice(0, SNAP_CANDIDATES).map(({ node, crow }) => {
    const km = crow * region.access_factor;
    return { node, km, min: (km / region.speed_kmh) * 60 };
  });
}

const roundKm = (km: number): number => Math.round(km * 10) / 10;
