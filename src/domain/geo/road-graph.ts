import graph from './data/road-graph.json';
import placesData from './data/places.json';
import { gazetteerPlaceId } from './place-ids';
import type { LatLon } from './types';

type RoadClass = 'expressway' | 'plains' | 'lowland' | 'hill' | 'metro';

export interface GraphNode extends LatLon {
  id: string;
  name: string;
}

const speeds: Record<RoadClass, number> = graph.drive_time.speeds_kmh;
export const GRAPH_SLACK_MIN: number = graph.drive_time.slack_min;
export const nodes: readonly GraphNode[] = graph.nodes.map(({ id, name, lat, lon }) => ({ id, name, lat, lon }));
const N = nodes.length;
const indexOf = new Map(nodes.map((n, i) => [n.id, i]));

function edgeMinutes(e: { km: number; road: string; expressway_km?: number }): number {
  if (!(e.road in speeds) || e.road === 'expressway') throw new Error(`road-graph.json: bad road class ${e.road}`);
  const onExpressway = e.expressway_km ?? 0;
  return ((e.km - onExpressway) / speeds[e.road as RoadClass] + onExpressway / speeds.expressway) * 60;
}

/** Floyd–Warshall: 58³ ≈ 195k steps once at load, then every node pair is an array read. */
function allPairs(weight: (e: (typeof graph.edges)[number]) => number): Float64Array {
  const d = new Float64Array(N * N).fill(Infinity);
  for (let i = 0; i < N; i++) d[i * N + i] = 0;
  for (const e of graph.edges) {
    const a = indexOf.get(e.a);
    const b = indexOf.get(e.b);
    if (a === undefined || b === undefined) throw new Error(`road-graph.json: edge ${e.a}-${e.b} names an unknown node`);
    const w = weight(e);
    if (w < d[a * N + b]) d[a * N + b] = d[b * N + a] = w;
  }
  for (let k = 0; k < N; k++) {
    for (let i = 0; i < N; i++) {
      const ik = d[i * N + k];
      if (ik === Infinity) continue;
      for (let j = 0; j < N; j++) {
        const via = ik + d[k * N + j];
        if (via < d[i * N + j]) d[i * N + j] = via;
      }
    }
  }
  return d;
}

const shortestKm = allPairs((e) => e.km);
const fastestMin = allPairs(edgeMinutes);
for (let i = 0; i < N * N; i++) if (shortestKm[i] === Infinity) throw new Error('road-graph.json: the graph is not connected');

/** Road km on the shortest road between two nodes (what the journey is priced on). */
export const nodeKm = (a: number, b: number): number => shortestKm[a * N + b];
/** Drive minutes on the fastest road between two nodes (expressways included). */
export const nodeMinutes = (a: number, b: number): number => fastestMin[a * N + b];

const gazetteerIds = new Map(placesData.places.map((p) => [p.id, gazetteerPlaceId(p)]));
/** A resolved place that *is* a graph node (Kandy, CMB …) routes from that node with no access leg. */
export const nodeOfPlace: ReadonlyMap<string, number> = new Map(
  graph.nodes.flatMap((n, i) => {
    const placeId = 'place_id' in n && n.place_id ? gazetteerIds.get(n.place_id) : undefined;
    return placeId ? [[placeId, i] as const] : [];
  }),
);
