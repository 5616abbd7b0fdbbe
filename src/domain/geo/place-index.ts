import { haversineKm } from './geo-math';
import { PLACES, type PlaceEntry } from './known-places';
import { normalizeText } from './normalize-text';

/**
 * Finding the place a free text names (`lookupName`): a name in any spelling we know, a hotel's address, a typo of
 * one letter. The index it reads, and the lookups by code and id: known-places.ts (re-exported here).
 */
export { airportByIata, indexKeys, isPublicPlaceName, placeById, type GazetteerKind, type PlaceEntry } from './known-places';

interface Match {
  entries: readonly PlaceEntry[];
  segment: number;
  position: number;
  start: number;
  end: number;
  street: boolean;
}

export type NameLookup = { ok: true; entry: PlaceEntry } | { ok: false; reason: 'unknown' | 'ambiguous'; candidates: PlaceEntry[]; streetOnly?: string };

/** Places this close together are nested or adjoining (a beach and its postal town), not rival destinations. */
const RELATED_KM = 25;
const STREET_WORDS = new Set([
  'road',
  'rd',
  'street',
  'st',
  'mawatha',
  'mawata',
  'mw',
  'mwt',
  'lane',
  'ln',
  'avenue',
  'ave',
  'drive',
  'terrace',
  'highway',
  'hwy',
  'para',
  'bypass',
]);
const STREET_MODIFIERS = new Set(['main', 'old', 'new', 'cross', 'upper', 'lower', 'back']);
const QUALIFIER_WORDS = new Set(['district', 'dist', 'province', 'division']);
/** Words that may sit next to a locality in an address segment without making it a hotel name. */
const FILLER_WORDS = new Set([
  'city',
  'town',
  'village',
  'beach',
  'area',
  'region',
  'centre',
  'center',
  'central',
  'near',
  'the',
  'in',
  'at',
  'of',
  'sri',
  'lanka',
  'ceylon',
  'lk',
]);
const NUMERIC = /^\d+$/;

const { byIata, index, longestKeyFrom, fuzzyKeys } = PLACES;

/**
 * Finds the Sri Lankan place a free text names: a place name in any known spelling, or a hotel address
 * ("Cinnamon Grand, 77 Galle Road, Colombo 03" → Colombo). See SOURCES.md for the rules in prose.
 */
export function lookupName(raw: string): NameLookup {
  const whole = normalizeText(raw);
  if (whole === '') return { ok: false, reason: 'unknown', candidates: [] };
  if (/^[a-z]{3}$/.test(whole)) {
    const airport = byIata.get(whole.toUpperCase());
    if (airport) return { ok: true, entry: airport };
  }
  const exact = index.get(whole);
  if (exact) return choose(exact.map((e, i) => ({ entries: [e], position: i })));

  const { matches, pureSegments } = scan(raw);
  const places = matches.filter((m) => !m.street);
  if (places.length === 0) {
    const fuzzy = fuzzyMatches(whole);
    if (fuzzy.length > 0) return choose(fuzzy.map((e, i) => ({ entries: [e], position: i })));
    const street = matches.find((m) => m.street);
    return { ok: false, reason: 'unknown', candidates: [], ...(street ? { streetOnly: street.entries[0].name } : {}) };
  }
  const pure = places.filter((m) => pureSegments.has(m.segment));
  const primary = choose(pure.length > 0 ? pure : places);
  if (!primary.ok) return primary;
  return { ok: true, entry: refine(primary.entry, places) };
}

function scan(raw: string): { matches: Match[]; pureSegments: Set<number> } {
  const matches: Match[] = [];
  const pureSegments = new Set<number>();
  const segments = raw.split(/[,;\n|/]+/);
  let position = 0;
  for (let s = 0; s < segments.length; s++) {
    const norm = normalizeText(segments[s]);
    if (norm === '') continue;
    const tokens = norm.split(' ');
    const covered = new Array<boolean>(tokens.length).fill(false);
    const segmentMatches: Match[] = [];
    for (let i = 0; i < tokens.length;) {
      const maxN = Math.min(longestKeyFrom.get(tokens[i]) ?? 0, tokens.length - i);
      let found = 0;
      for (let n = maxN; n >= 1 && found === 0; n--) {
        const entries = index.get(n === 1 ? tokens[i] : tokens.slice(i, i + n).join(' '));
        if (entries) {
          segmentMatches.push({ entries, segment: s, position: position++, start: i, end: i + n, street: isStreetOrQualifier(tokens, i + n) });
          found = n;
        }
      }
      for (let k = i; k < i + found; k++) covered[k] = true;
      i += found || 1;
    }
    // "Colombo-Kandy Road": places chained directly before a street word are part of the street name.
    for (let m = segmentMatches.length - 1; m > 0; m--) {
      if (segmentMatches[m].street && segmentMatches[m - 1].end === segmentMatches[m].start) segmentMatches[m - 1].street = true;
    }
    const hasPlace = segmentMatches.some((m) => !m.street);
    const onlyLocality = tokens.every((t, k) => covered[k] || NUMERIC.test(t) || FILLER_WORDS.has(t));
    if (hasPlace && onlyLocality && segmentMatches.every((m) => !m.street)) pureSegments.add(s);
    matches.push(...segmentMatches);
  }
  return { matches, pureSegments };
}

function isStreetOrQualifier(tokens: readonly string[], next: number): boolean {
  let k = next;
  while (k < tokens.length && STREET_MODIFIERS.has(tokens[k])) k++;
  return k < tokens.length && (STREET_WORDS.has(tokens[k]) || QUALIFIER_WORDS.has(tokens[k]));
}

/** One place if all candidates are nested or adjoining (then the most specific, later mention on ties); else ambiguous. */
function choose(pool: ReadonlyArray<{ entries: readonly PlaceEntry[]; position: number }>): NameLookup {
  const lastSeen = new Map<PlaceEntry, number>();
  for (const m of pool) for (const e of m.entries) lastSeen.set(e, m.position);
  const candidates = [...lastSeen.keys()];
  for (let i = 0; i < candidates.length; i++) {
    for (let j = i + 1; j < candidates.length; j++) {
      if (haversineKm(candidates[i], candidates[j]) > RELATED_KM) return { ok: false, reason: 'ambiguous', candidates };
    }
  }
  let best = candidates[0];
  for (const c of candidates) {
    const better = c.specificity > best.specificity || (c.specificity === best.specificity && (lastSeen.get(c) ?? 0) >= (lastSeen.get(best) ?? 0));
    if (better) best = c;
  }
  return { ok: true, entry: best };
}

/** "Thaproban, Unawatuna Beach, Galle": a more specific place named near the chosen locality wins. */
function refine(chosen: PlaceEntry, places: readonly Match[]): PlaceEntry {
  let best = chosen;
  for (const m of places) {
    for (const e of m.entries) {
      if (e.specificity > best.specificity && haversineKm(e, chosen) <= RELATED_KM) best = e;
    }
  }
  return best;
}

function fuzzyMatches(whole: string): PlaceEntry[] {
  const tokens = whole.split(' ');
  const probes = new Set<string>();
  for (let i = 0; i < tokens.length; i++) {
    if (tokens[i].length >= 5 && !NUMERIC.test(tokens[i])) probes.add(tokens[i]);
    if (i + 1 < tokens.length && tokens[i].length + tokens[i + 1].length >= 5) probes.add(tokens[i] + tokens[i + 1]);
  }
  const found: PlaceEntry[] = [];
  for (const probe of probes) {
    // An exact key here was already read (as a street name, say), so it is no typo.
    if (index.has(probe)) continue;
    for (const [key, entries] of fuzzyKeys) {
      if (Math.abs(key.length - probe.length) <= 1 && withinOneEdit(probe, key)) {
        for (const e of entries) if (!found.includes(e)) found.push(e);
      }
    }
  }
  return found;
}

/** Damerau–Levenshtein distance ≤ 1 (one insertion, deletion, substitution or adjacent swap). */
export function withinOneEdit(a: string, b: string): boolean {
  if (a === b) return true;
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  if (a.length === b.length) {
    if (a.slice(i + 1) === b.slice(i + 1)) return true;
    return a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
  }
  return a.length > b.length ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}
