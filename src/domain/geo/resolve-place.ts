import { haversineKm, isFiniteCoordinate } from './geo-math';
import { airportByIata, lookupName, type PlaceEntry } from './place-index';
import { coordinatePlaceId } from './place-ids';
import { isInSriLanka } from './sri-lanka-boundary';
import type { PlaceInput, PlaceResolution, ResolvedPlace } from './types';

export type { PlaceInput, PlaceResolution, ResolvedPlace } from './types';

/** A name or code sent with coordinates only labels the point if it lies this close to them. */
const LABEL_MAX_KM = 30;

/**
 * Resolves a partner's Place. Precedence: lat/lon (both present), then iata, then name.
 * Coordinates must lie in Sri Lanka; an accompanying name is kept for display and, when it names a place
 * near the point, lends its kind (so an airport pin with "BIA" is still an airport).
 */
export function resolvePlace(input: PlaceInput): PlaceResolution {
  if (input.lat !== undefined && input.lat !== null && input.lon !== undefined && input.lon !== null) return resolveCoordinates(input, input.lat, input.lon);
  if (typeof input.iata === 'string' && input.iata.trim() !== '') return resolveIata(input.iata);
  if (typeof input.name === 'string' && input.name.trim() !== '') return resolveName(input.name);
  return { ok: false, reason: 'unknown', message: 'The place has no name, iata or lat/lon (send both lat and lon).' };
}

function resolveCoordinates(input: PlaceInput, lat: number, lon: number): PlaceResolution {
  if (!isFiniteCoordinate(lat, lon)) return { ok: false, reason: 'unknown', message: `lat/lon (${String(lat)}, ${String(lon)}) are not valid coordinates.` };
  if (!isInSriLanka({ lat, lon })) {
    return { ok: false, reason: 'outside_sri_lanka', message: `lat/lon (${lat}, ${lon}) lie outside Sri Lanka.` };
  }
  const label = labelFor(input, lat, lon);
  // Our name for where it is: a place of ours near the coordinates, else the coordinates (the partner's own text is
  // kept beside it as the booked place's `name`, which is personal data and erasable; this is not).
  const name = label?.name || `${lat.toFixed(5)}, ${lon.toFixed(5)}`;
  const place: ResolvedPlace = { name, lat, lon, kind: label?.kind ?? 'point', place_id: coordinatePlaceId(lat, lon), source: 'coordinates' };
  if (label?.iata) place.iata = label.iata;
  if (label?.district) place.district = label.district;
  return { ok: true, place };
}

function labelFor(input: PlaceInput, lat: number, lon: number): PlaceEntry | undefined {
  const byCode = typeof input.iata === 'string' ? airportByIata(input.iata.trim().toUpperCase()) : undefined;
  const named = byCode ?? (typeof input.name === 'string' ? lookupNameEntry(input.name) : undefined);
  return named && haversineKm(named, { lat, lon }) <= LABEL_MAX_KM ? named : undefined;
}

function lookupNameEntry(name: string): PlaceEntry | undefined {
  const r = lookupName(name);
  return r.ok ? r.entry : undefined;
}

function resolveIata(raw: string): PlaceResolution {
  const code = raw.trim().toUpperCase();
  const airport = airportByIata(code);
  if (airport) return { ok: true, place: toResolved(airport, 'iata') };
  const what = /^[A-Z]{3}$/.test(code) ? `IATA code ${code} is not a Sri Lankan airport` : `"${raw}" is not an IATA code`;
  return { ok: false, reason: 'unknown', message: `${what}; send lat/lon.` };
}

function resolveName(raw: string): PlaceResolution {
  const r = lookupName(raw);
  if (r.ok) return { ok: true, place: toResolved(r.entry, 'name') };
  const text = JSON.stringify(raw.trim());
  if (r.reason === 'ambiguous') {
    const names = r.candidates.map((c) => c.name);
    return {
      ok: false,
      reason: 'ambiguous',
      message: `${text} names several places (${names.join('; ')}); send lat/lon or one place name.`,
      candidates: names,
    };
  }
  const street = r.streetOnly ? ` (${r.streetOnly} appears only as a street name)` : '';
  return { ok: false, reason: 'unknown', message: `No Sri Lankan place found in ${text}${street}; send lat/lon.` };
}

function toResolved(e: PlaceEntry, source: ResolvedPlace['source']): ResolvedPlace {
  const place: ResolvedPlace = { name: e.name, lat: e.lat, lon: e.lon, kind: e.kind, place_id: e.place_id, source };
  if (e.iata) place.iata = e.iata;
  if (e.district) place.district = e.district;
  return place;
}
