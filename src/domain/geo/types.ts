export type PlaceKind = 'airport' | 'city' | 'town' | 'beach' | 'sight' | 'park' | 'point';

export interface LatLon {
  lat: number;
  lon: number;
}

/** A Place as partners send it (service spec §2): free text, an IATA code and coordinates, in any combination. */
export interface PlaceInput {
  name?: string;
  iata?: string;
  lat?: number;
  lon?: number;
}

export interface ResolvedPlace {
  name: string;
  lat: number;
  lon: number;
  kind: PlaceKind;
  iata?: string;
  /** `airport:<IATA|ICAO>`, `place:<gazetteer id>` or `geo:<lat>,<lon>` (5 decimals). */
  place_id: string;
  source: 'coordinates' | 'iata' | 'name';
  district?: string;
}

export type PlaceFailureReason = 'outside_sri_lanka' | 'unknown' | 'ambiguous';

export type PlaceResolution = { ok: true; place: ResolvedPlace } | { ok: false; reason: PlaceFailureReason; message: string; candidates?: string[] };

export interface RouteEnd extends LatLon {
  place_id?: string;
}

export interface Route {
  /** Road km on the shortest road, one decimal. */
  distance_km: number;
  /** Drive minutes on the fastest road, rounded. */
  duration_min: number;
  method: 'graph' | 'haversine';
}
