/**
 * Where a traveller's personal data lives: one map, read by the audit writer (which seals it), the erasure (which
 * removes it), the logs (which never carry it) and a contract test (which fails when a contract gains a field under
 * `passenger`, `customer`, `passengers` or `notes` that this map does not cover).
 *
 * A value is personal when the JSON around it says so, on every surface alike:
 * - every text under a person: `passenger` (partners, the driver app, the consoles), `customer` and `passengers`
 *   (the marketplace's order: name, phone, e-mail, names and passports);
 * - a field that is personal wherever it is: e-mail, phone, flight number, notes for the driver, a no-show's note,
 *   the meeting instructions (they name the passenger), the marketplace's comment;
 * - a place's own text (`name` of a `pickup`, `dropoff`, `from`, `to`): the customer's words, often a home or hotel
 *   address; the place we located it at (`resolved_name`) and its coordinates are not;
 * - a flight's `number` (with the date, it names the traveller's journey);
 * - a position: coordinates with a time or an accuracy (the ride's GPS track: the driver's reports, the locations
 *   sent on to the marketplace and shown to partners), and every point of a `gps_track`.
 *
 * A driver's own name and phone (under `driver`) are the driver's, not a traveller's; the driver's positions during
 * a ride are the ride's track and are personal.
 */
export const PERSONAL_DATA = {
  /** Every text under these is personal. */
  people: ['passenger', 'customer', 'passengers'],
  /** Personal wherever they appear (outside `driver`). */
  fields: ['email', 'phone', 'flight_number', 'notes', 'note', 'meeting_instructions', 'comment', 'name_surname', 'passport'],
  /** A place's own text. */
  places: { under: ['pickup', 'dropoff', 'from', 'to'], fields: ['name'] },
  /** A flight's number. */
  flights: { under: ['flight'], fields: ['number'] },
  /** Not a traveller's. */
  notTraveller: ['driver'],
  /** Every point of these is a position; so is any object with lat and lon and a time (`at`) or an `accuracy`. */
  tracks: ['gps_track', 'positions', 'track'],
} as const;

/**
 * Where those values are kept, and what becomes of them (docs/operations.md, "Personal data"). The erasure and the
 * retention pass work through this list; a test checks each table is named here.
 */
export const PERSONAL_DATA_TABLES = {
  bookings: 'passenger, flight number and flight, notes, meeting instructions, places’ text, the driver’s last position: set to null; erased_at set',
  jobs: 'passenger, flight number and flight, notes, meeting instructions, no-show note, places’ text, last position: set to null; erased_at set',
  quotes: 'the request and its places’ text (the booking’s quote and each change quote): personal values removed',
  idempotency_keys: 'the answers kept for replays: personal values removed',
  webhook_events: 'the events’ payloads: personal values removed',
  outbox: 'the calls owed to the marketplace: personal values removed',
  marketplace_orders: 'the order as the marketplace sent it: personal values removed; erased_at set',
  marketplace_seen_calls: 'the answers kept for the marketplace’s replays: personal values removed',
  price_marks: 'the search an order was priced for: personal values removed',
  job_locations: 'the ride’s positions: deleted',
  audit_log: 'bodies: personal values sealed with the subject’s data key, which the erasure destroys',
  personal_data_keys: 'the data keys: an erased subject keeps a row without its key',
} as const;

/** Whose data a value is: the booking, order, job or quote around it (the nearest object that names one). */
export type Subject = string;

const PEOPLE = new Set<string>(PERSONAL_DATA.people);
const FIELDS = new Set<string>(PERSONAL_DATA.fields);
const PLACES = new Set<string>(PERSONAL_DATA.places.under);
const FLIGHTS = new Set<string>(PERSONAL_DATA.flights.under);
const NOT_TRAVELLER = new Set<string>(PERSONAL_DATA.notTraveller);
const TRACKS = new Set<string>(PERSONAL_DATA.tracks);

/** The subject an object names: its booking, else its order, else its job, else its quote. */
export function subjectOf(o: Record<string, unknown>): Subject | undefined {
  if (typeof o.booking_ref === 'string' && o.booking_ref) return `booking:${o.booking_ref}`;
  if (typeof o.order_id === 'string' && o.order_id) return `order:${o.order_id}`;
  if (typeof o.job_id === 'string' && o.job_id) return `job:${o.job_id}`;
  if (typeof o.quote_id === 'string' && o.quote_id) return `quote:${o.quote_id}`;
  return undefined;
}

/**
 * What a personal value is: a field's text or a position's coordinate (`value`); a place's own text (`place`:
 * personal only where it is not a public place's name, see the sealer); or a whole person (`person`: the object or
 * list under `passenger`, `customer` or `passengers`, offered whole when it holds any text; a replacer that keeps it
 * is then given each of its texts as a `value`).
 */
export type PersonalKind = 'value' | 'place' | 'person';

/** What to put in place of a personal value (the value, its subject, what it is); undefined keeps it. */
export type Replace = (value: string | number | object, subject: Subject | undefined, kind: PersonalKind) => unknown;

const isPosition = (o: Record<string, unknown>) => typeof o.lat === 'number' && typeof o.lon === 'number' && (o.at !== undefined || o.accuracy !== undefined);

type Mode = 'none' | 'person' | 'position';

/**
 * A copy of `value` with every personal value replaced (objects and arrays without one are returned as they are,
 * not copied). `subject`: whose data the value is, where no object inside it names another (the top level's own
 * ids do not override it: a booking's request names its quote, and is the booking's).
 */
export function replacePersonal(value: unknown, replace: Replace, subject?: Subject): unknown {
  return walk(value, replace, subject, 'none', undefined, false, subject !== undefined);
}

/** Whether the value holds personal data at all (a cheap look before a copy). */
export function holdsPersonal(value: unknown): boolean {
  let found = false;
  replacePersonal(value, () => {
    found = true;
    return undefined;
  });
  return found;
}

/** Every personal value in `value`, with its subject. */
export function personalValues(value: unknown, subject?: Subject): Array<{ value: string | number; subject: Subject | undefined }> {
  const out: Array<{ value: string | number; subject: Subject | undefined }> = [];
  replacePersonal(
    value,
    (v, s) => {
      if (typeof v !== 'object') out.push({ value: v, subject: s });
      return undefined;
    },
    subject,
  );
  return out;
}

function walk(
  value: unknown,
  replace: Replace,
  subject: Subject | undefined,
  mode: Mode,
  parentKey: string | undefined,
  driver: boolean,
  given = false,
): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i += 1) {
      const v: unknown = value[i];
      const w = leafOrWalk(v, replace, subject, mode, parentKey, driver);
      if (w !== v) (copy ??= value.slice())[i] = w;
    }
    return copy ?? value;
  }
  const o = value as Record<string, unknown>;
  const here = given ? subject : (subjectOf(o) ?? subject);
  const position = mode === 'position' || isPosition(o);
  let copy: Record<string, unknown> | undefined;
  for (const k in o) {
    const v = o[k];
    let w: unknown;
    if (position && (k === 'lat' || k === 'lon' || k === 'lng') && typeof v === 'number') w = swap(v, replace, here, 'value');
    else if (mode === 'person') w = leafOrWalk(v, replace, here, 'person', k, driver);
    else if (typeof v === 'string' || typeof v === 'number') {
      const place = k === 'name' && parentKey !== undefined && PLACES.has(parentKey);
      const personal = place || (!driver && FIELDS.has(k) && typeof v === 'string') || (k === 'number' && parentKey !== undefined && FLIGHTS.has(parentKey));
      w = personal ? swap(v, replace, here, place ? 'place' : 'value') : v;
    } else if (v !== null && typeof v === 'object') {
      const next: Mode = !driver && PEOPLE.has(k) ? 'person' : TRACKS.has(k) ? 'position' : 'none';
      const whole = next === 'person' && wholeOf(v) === 'text' ? replace(v, here, 'person') : undefined;
      w = whole !== undefined ? whole : walk(v, replace, here, next, k, driver || NOT_TRAVELLER.has(k));
    } else w = v;
    if (w !== v) (copy ??= { ...o })[k] = w;
  }
  return copy ?? o;
}

function leafOrWalk(v: unknown, replace: Replace, subject: Subject | undefined, mode: Mode, key: string | undefined, driver: boolean): unknown {
  if (typeof v === 'string') return mode === 'person' ? swap(v, replace, subject, 'value') : v;
  if (typeof v === 'number') return v;
  return walk(v, replace, subject, mode, key, driver);
}

function swap(v: string | number, replace: Replace, subject: Subject | undefined, kind: PersonalKind): unknown {
  const r = replace(v, subject, kind);
  return r === undefined ? v : r;
}

/**
 * Whether a person can be offered whole: it holds some text (`text`; a person of counts alone, `{adults: 2}`, holds
 * nothing of anyone), and nothing inside it names a subject of its own (`named`: its texts are each that subject's).
 */
function wholeOf(v: unknown): 'none' | 'text' | 'named' {
  if (typeof v === 'string') return 'text';
  if (v === null || typeof v !== 'object') return 'none';
  if (!Array.isArray(v) && subjectOf(v as Record<string, unknown>) !== undefined) return 'named';
  let found: 'none' | 'text' = 'none';
  for (const x of Array.isArray(v) ? v : Object.values(v)) {
    const w = wholeOf(x);
    if (w === 'named') return w;
    if (w === 'text') found = w;
  }
  return found;
}

/** A cheap first look at JSON text: without any of these names it holds no personal value. */
export const PERSONAL_HINT = new RegExp(
  `"(?:${[...PERSONAL_DATA.people, ...PERSONAL_DATA.fields, ...PERSONAL_DATA.places.under, ...PERSONAL_DATA.flights.under, ...PERSONAL_DATA.tracks, 'lat'].join('|')})"`,
);

/**
 * A copy of a stored document (a booking as its events and replays carry it, an order, a call owed) with a
 * traveller's details erased in the shape the contracts give an erased booking: a person, a flight or a position
 * becomes null as a whole, a track empty, a personal field or a place's own text null. Unchanged parts are shared.
 */
export function erasePersonal(value: unknown): unknown {
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && isPosition(value as Record<string, unknown>)) {
    const o = erase(value, undefined, false) as Record<string, unknown>;
    return { ...o, lat: null, lon: null };
  }
  return erase(value, undefined, false);
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function erase(value: unknown, parentKey: string | undefined, driver: boolean): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((v: unknown, i) => {
      const w = erase(v, parentKey, driver);
      if (w !== v) (copy ??= value.slice())[i] = w;
    });
    return copy ?? value;
  }
  const o = value as Record<string, unknown>;
  let copy: Record<string, unknown> | undefined;
  for (const k in o) {
    const v = o[k];
    let w: unknown = v;
    if (v === null) continue;
    if (!driver && PEOPLE.has(k)) w = holdsPersonal({ [k]: v }) ? null : v;
    else if (FLIGHTS.has(k) && isObject(v) && v.number !== undefined) w = null;
    else if (TRACKS.has(k) && Array.isArray(v)) w = v.length ? [] : v;
    else if (isObject(v) && isPosition(v)) w = null;
    else if (typeof v === 'string' && ((!driver && FIELDS.has(k)) || (k === 'name' && parentKey !== undefined && PLACES.has(parentKey)))) w = null;
    else if (typeof v === 'object') w = erase(v, k, driver || NOT_TRAVELLER.has(k));
    if (w !== v) (copy ??= { ...o })[k] = w;
  }
  return copy ?? o;
}
