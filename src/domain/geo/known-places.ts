import airportsData from './data/airports.json';
import placesData from './data/places.json';
import { normalizeText } from './normalize-text';
import { airportPlaceId, gazetteerPlaceId } from './place-ids';
import type { PlaceKind } from './types';

/**
 * The places we know, indexed once when the module loads (a bad data file stops the start): the airports
 * (data/airports.json, at their passenger pickup points) and the gazetteer (data/places.json), by IATA code, by
 * place id, and by every name and alias we know, normalised. Reading a free text against it (a hotel's address, a
 * misspelt town): place-index.ts.
 */

export type GazetteerKind = Exclude<PlaceKind, 'point'>;

export interface PlaceEntry {
  place_id: string;
  name: string;
  /** Where a driver goes: an airport's passenger pickup point where known, else the gazetteer point. */
  lat: number;
  lon: number;
  kind: GazetteerKind;
  /** Higher = more specific; decides between nested places named in one address ("Unawatuna, Galle"). */
  specificity: number;
  iata?: string;
  district?: string;
}

const SPECIFICITY: Record<GazetteerKind, number> = { airport: 5, sight: 4, park: 3, beach: 3, town: 2, city: 1 };
const KINDS = new Set<string>(Object.keys(SPECIFICITY));

function buildIndex() {
  const byIata = new Map<string, PlaceEntry>();
  const byId = new Map<string, PlaceEntry>();
  const index = new Map<string, PlaceEntry[]>();

  const addKey = (raw: string, entry: PlaceEntry) => {
    const key = normalizeText(raw);
    if (key === '') return;
    for (const k of key.includes(' ') ? [key, key.replace(/ /g, '')] : [key]) {
      const list = index.get(k);
      if (!list) index.set(k, [entry]);
      else if (!list.includes(entry)) list.push(entry);
    }
  };

  const gazetteerByIata = new Map(placesData.places.flatMap((p) => (p.iata ? [[p.iata, p] as const] : [])));
  for (const a of airportsData.airports) {
    const code = a.iata ?? a.icao;
    if (!code) throw new Error(`airports.json: ${a.name} has neither IATA nor ICAO code`);
    const pickup = 'pickup' in a ? a.pickup : undefined;
    const linked = a.iata ? gazetteerByIata.get(a.iata) : undefined;
    const entry: PlaceEntry = {
      place_id: airportPlaceId(code),
      name: a.name,
      lat: pickup?.lat ?? a.lat,
      lon: pickup?.lon ?? a.lon,
      kind: 'airport',
      specificity: SPECIFICITY.airport,
      ...(a.iata ? { iata: a.iata } : {}),
      ...(linked ? { district: linked.district } : {}),
    };
    if (a.iata) byIata.set(a.iata, entry);
    byId.set(entry.place_id, entry);
    addKey(a.name, entry);
    // Keywords of gazetteer airports are not indexed: some are bare town names ("Kankesanturai").
    if (!linked) for (const k of a.keywords) addKey(k, entry);
  }

  for (const p of placesData.places) {
    const kind = p.kinds[0];
    if (!KINDS.has(kind)) throw new Error(`places.json: ${p.id} has unknown kind ${kind}`);
    let entry: PlaceEntry;
    if (p.iata) {
      const airport = byIata.get(p.iata);
      if (!airport) throw new Error(`places.json: ${p.id} names IATA ${p.iata}, missing from airports.json`);
      entry = airport;
    } else {
      entry = {
        place_id: gazetteerPlaceId(p),
        name: p.name,
        lat: p.lat,
        lon: p.lon,
        kind: kind as GazetteerKind,
        specificity: SPECIFICITY[kind as GazetteerKind],
        district: p.district,
      };
      byId.set(entry.place_id, entry);
    }
    addKey(p.name, entry);
    addKey(p.name.replace(/\s*\(.*\)$/, ''), entry);
    for (const alias of p.aliases) addKey(alias, entry);
  }

  // For scanning free text: the longest key (in tokens) starting with each first token.
  const longestKeyFrom = new Map<string, number>();
  for (const key of index.keys()) {
    const tokens = key.split(' ');
    longestKeyFrom.set(tokens[0], Math.max(longestKeyFrom.get(tokens[0]) ?? 0, tokens.length));
  }
  const fuzzyKeys = [...index.entries()].filter(([k]) => !k.includes(' ') && k.length >= 5);
  return { byIata, byId, index, longestKeyFrom, fuzzyKeys };
}

/** The index (read-only past this module). */
export interface PlaceIndex {
  byIata: ReadonlyMap<string, PlaceEntry>;
  byId: ReadonlyMap<string, PlaceEntry>;
  /** Every name and alias, normalised (and without its spaces), → the places it names. */
  index: ReadonlyMap<string, readonly PlaceEntry[]>;
  /** For scanning free text: the longest key (in tokens) starting with each first token. */
  longestKeyFrom: ReadonlyMap<string, number>;
  /** The one-word keys of five letters or more, where a typo is looked for. */
  fuzzyKeys: ReadonlyArray<readonly [string, readonly PlaceEntry[]]>;
}

export const PLACES: PlaceIndex = buildIndex();
const { byIata, byId, index } = PLACES;

export function airportByIata(code: string): PlaceEntry | undefined {
  return byIata.get(code);
}

export function placeById(placeId: string): PlaceEntry | undefined {
  return byId.get(placeId);
}

/**
 * Whether a place's text is a public place's name as we index it (an airport, a town, a beach, in any spelling we
 * know), not an address: it says no more than the place we located, which is kept readable anyway.
 */
export function isPublicPlaceName(text: string): boolean {
  return names.has(text) || (text.length <= PUBLIC_NAME_LENGTH && index.has(normalizeText(text)));
}
/** Our places' names as we write them (in our answers, and most often in partners' requests): no need to normalise. */
const names = new Set([...byId.values()].map((p) => p.name));
/** Longer than any indexed name (the longest is some 50 characters). */
const PUBLIC_NAME_LENGTH = 80;

export function indexKeys(): ReadonlyMap<string, readonly PlaceEntry[]> {
  return index;
}
