import airportsData from '../../../src/domain/geo/data/airports.json';
import graph from '../../../src/domain/geo/data/road-graph.json';
import placesData from '../../../src/domain/geo/data/places.json';
import { haversineKm } from '../../../src/domain/geo/geo-math';
import { indexKeys } from '../../../src/domain/geo/place-index';
import { gazetteerPlaceId } from '../../../src/domain/geo/place-ids';
import { resolvePlace } from '../../../src/domain/geo/resolve-place';
import { isInSriLanka } from '../../../src/domain/geo/sri-lanka-boundary';

describe('geo data files', () => {
  it('when loaded, then the gazetteer has the 136 reference rows with unique ids and at least one kind each', () => {
    expect(placesData.places).toHaveLength(136);
    expect(new Set(placesData.places.map((p) => p.id)).size).toBe(136);
    for (const p of placesData.places) expect(p.kinds.length).toBeGreaterThan(0);
  });

  it('when loaded, then the road graph has 58 nodes and 91 edges, each at least its straight line long', () => {
    expect(graph.nodes).toHaveLength(58);
    expect(graph.edges).toHaveLength(91);
    const byId = new Map(graph.nodes.map((n) => [n.id, n]));
    for (const e of graph.edges) {
      const a = byId.get(e.a);
      const b = byId.get(e.b);
      if (!a || !b) throw new Error(`edge ${e.a}-${e.b} has an unknown end`);
      expect(e.km).toBeGreaterThanOrEqual(haversineKm(a, b));
      expect(e.expressway_km ?? 0).toBeLessThanOrEqual(e.km);
    }
    expect(graph.edges.filter((e) => 'expressway' in e).map((e) => e.expressway)).toEqual(expect.arrayContaining(['E01', 'E02', 'E03', 'E04']));
  });

  it('when a graph node is a gazetteer place, then it sits on that place', () => {
    const places = new Map(placesData.places.map((p) => [p.id, p]));
    for (const n of graph.nodes) {
      if (!('place_id' in n) || !n.place_id) continue;
      const p = places.get(n.place_id);
      expect(p && haversineKm(p, n)).toBeLessThan(0.01);
    }
  });

  it('when checked against the boundary, then every gazetteer place and airport lies in Sri Lanka', () => {
    for (const p of [...placesData.places, ...airportsData.airports]) expect([p.name, isInSriLanka(p)]).toEqual([p.name, true]);
  });

  it('when names are indexed, then the only key naming two places is the intended Katunayake (airport over town)', () => {
    const shared = [...indexKeys()].filter(([, entries]) => entries.length > 1).map(([k]) => k);
    expect(shared).toEqual(['katunayake']);
  });

  it('when any gazetteer name or alternate spelling is resolved, then it gives that row (Katunayake gives the airport)', () => {
    const misses: string[] = [];
    for (const p of placesData.places) {
      for (const name of [p.name, ...p.aliases]) {
        const r = resolvePlace({ name });
        const expected = name === 'Katunayake' ? 'airport:CMB' : gazetteerPlaceId(p);
        if (!r.ok || r.place.place_id !== expected) misses.push(`${p.id}: ${name}`);
      }
    }
    expect(misses).toEqual([]);
  });
});
