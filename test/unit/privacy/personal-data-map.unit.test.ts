import fs from 'node:fs';
import { loadContract as loadRaw } from '../../../src/http/surface';
import { schemaOf } from '../../../src/http/mcp/tool-schemas';

/**
 * A contract as the walk reads it. mcp.yaml names Transfers schemas with `x-ref` (a reference into the other
 * contract): its components are read as the MCP server serves them, each self-contained (tool-schemas.ts).
 */
function loadContract(file: string): Json {
  const doc = loadRaw(file) as Json;
  if (file !== 'mcp.yaml') return doc;
  const names = Object.keys((doc.components as Json).schemas as Json);
  return { ...doc, components: { ...(doc.components as Json), schemas: Object.fromEntries(names.map((n) => [n, schemaOf('mcp.yaml', n)])) } };
}
import { CONTRACTS_DIR } from '../../../src/shared/paths';
import { PERSONAL_DATA, personalValues } from '../../../src/shared/personal-data';
import { redactUrl } from '../../../src/shared/redact';

/**
 * The map of personal data (shared/personal-data) against every contract: each value a contract lets a
 * traveller's details into must be one the map treats as personal, or the audit log keeps it readable and the
 * erasure leaves it behind. For every schema (request bodies, responses, components; through $ref, allOf, oneOf,
 * anyOf, items and additionalProperties) a plain JSON value is built along each property's path and handed to
 * `personalValues`, the same walk the audit writer and the erasure use.
 */

type Json = Record<string, any>;
/** A step from a value to one inside it: a property, an array's element, or an entry of a map. */
type Step = { key: string } | { item: true } | { entry: true };

/** A value a schema lets in, where it sits, and what it may be. */
interface Slot {
  where: string;
  steps: Step[];
  types: Set<string>;
  /** The properties of the object it is, when it is one (for positions). */
  properties?: Record<string, Json>;
}

const PEOPLE = new Set<string>(PERSONAL_DATA.people);
const FIELDS = new Set<string>(PERSONAL_DATA.fields);
const PLACES = new Set<string>(PERSONAL_DATA.places.under);
const FLIGHTS = new Set<string>(PERSONAL_DATA.flights.under);
const TRACKS = new Set<string>(PERSONAL_DATA.tracks);
const NOT_TRAVELLER = new Set<string>(PERSONAL_DATA.notTraveller);
/** Everything under these is the traveller's (the people, and the notes for the driver, should they become an object). */
const UNDER = new Set<string>([...PERSONAL_DATA.people, 'notes']);

/**
 * Numbers under a person that are not a person's data: `passengers` on the partner, driver and operator surfaces
 * is the party's size, not the people in it.
 */
const COUNTS = new Set(['passengers.adults', 'passengers.children', 'passengers.luggage']);

/**
 * Names that look like a personal field (a note, an e-mail, a phone, a flight, a passport, a name) but are not a
 * map field. Each is either personal in the map by where it sits, or listed here with why it is not a traveller's.
 */
const LOOKALIKE = /note|mail|phone|flight|instruction|comment|surname|first_name|last_name|passport|address|birth/;
/** Names that look like a person (a new name for one is not in the map's `people`): every text under them is asked to be personal. */
const PERSON_LIKE = /travell?er|guest|contact|person(?!al)|lead_|booker/;
const NOT_A_TRAVELLERS: Record<string, string> = {
  emergency_phone: 'our operations desk’s number, the same in every booking',
};

/**
 * Known gaps: a look-alike that holds a traveller's words and that the map misses. Listed so this test passes while
 * the gap is open and fails once the map covers it (then take it off this list).
 */
const KNOWN_GAPS: Record<string, string> = {};

function refTarget(doc: Json, ref: string): Json {
  if (!ref.startsWith('#/')) throw new Error(`only local $refs are walked: ${ref}`);
  return ref
    .slice(2)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<Json>((o, k) => o?.[k] as Json, doc);
}

/** Every value a schema lets in (`schema` at `steps`), following $refs once per path (a cycle stops there). */
function slots(doc: Json, where: string, schema: unknown, steps: Step[] = [], refs: string[] = [], out: Slot[] = []): Slot[] {
  if (!schema || typeof schema !== 'object') return out;
  let s = schema as Json;
  while (typeof s.$ref === 'string') {
    if (refs.includes(s.$ref)) return out;
    refs = [...refs, s.$ref];
    s = refTarget(doc, s.$ref);
  }
  for (const k of ['allOf', 'oneOf', 'anyOf'] as const) for (const sub of (s[k] as unknown[] | undefined) ?? []) slots(doc, where, sub, steps, refs, out);
  const items = (Array.isArray(s.items) ? s.items : s.items ? [s.items] : []).concat((s.prefixItems as unknown[] | undefined) ?? []);
  for (const sub of items) slots(doc, where, sub, [...steps, { item: true }], refs, out);
  if (s.additionalProperties && typeof s.additionalProperties === 'object') slots(doc, where, s.additionalProperties, [...steps, { entry: true }], refs, out);
  for (const sub of Object.values((s.patternProperties as Record<string, unknown> | undefined) ?? {}))
    slots(doc, where, sub, [...steps, { entry: true }], refs, out);
  const properties = s.properties as Record<string, Json> | undefined;
  for (const [k, sub] of Object.entries(properties ?? {})) slots(doc, where, sub, [...steps, { key: k }], refs, out);
  out.push({ where, steps, types: typesOf(s), properties: properties && resolvedProperties(doc, properties) });
  return out;
}

function resolvedProperties(doc: Json, properties: Record<string, Json>): Record<string, Json> {
  const deref = (p: Json): Json => (typeof p?.$ref === 'string' ? deref(refTarget(doc, p.$ref as string)) : p);
  return Object.fromEntries(Object.entries(properties).map(([k, p]) => [k, deref(p)]));
}

/** What a schema's value may be; a schema that says nothing of its own (no type, no structure) may be anything. */
function typesOf(s: Json): Set<string> {
  const declared = ([] as unknown[]).concat(s.type ?? []).map(String);
  for (const v of [...((s.enum as unknown[] | undefined) ?? []), ...(s.const !== undefined ? [s.const] : [])]) if (v !== null) declared.push(typeof v);
  if (declared.length) return new Set(declared.map((t) => (t === 'integer' ? 'number' : t)));
  const structured = ['properties', 'items', 'additionalProperties', 'allOf', 'oneOf', 'anyOf', '$ref'].some((k) => s[k] !== undefined);
  return new Set(structured ? [] : ['string', 'number']);
}

/** Every schema a contract declares: each operation's request and responses, and each component. */
function schemas(doc: Json): Array<{ where: string; schema: unknown }> {
  const out: Array<{ where: string; schema: unknown }> = [];
  const deref = (x: Json | undefined): Json | undefined => (typeof x?.$ref === 'string' ? deref(refTarget(doc, x.$ref as string)) : x);
  const operations = [...Object.entries<Json>(doc.paths ?? {}), ...Object.entries<Json>(doc.webhooks ?? {})];
  for (const [path, item] of operations) {
    for (const [method, op] of Object.entries<Json>(item)) {
      if (!op || typeof op !== 'object' || !('responses' in op || 'requestBody' in op)) continue;
      for (const [type, media] of Object.entries<Json>(deref(op.requestBody as Json)?.content ?? {}))
        out.push({ where: `${method.toUpperCase()} ${path} request (${type})`, schema: media.schema });
      for (const [status, response] of Object.entries<Json>(op.responses ?? {}))
        for (const [type, media] of Object.entries<Json>(deref(response)?.content ?? {}))
          out.push({ where: `${method.toUpperCase()} ${path} ${status} (${type})`, schema: media.schema });
    }
  }
  // A component is walked where it is used, its path naming what holds it; one used nowhere, on its own.
  const used = new Set<string>();
  const visit = (x: unknown): void => {
    if (Array.isArray(x)) x.forEach(visit);
    else if (x && typeof x === 'object')
      for (const [k, v] of Object.entries(x)) {
        if (k === '$ref' && typeof v === 'string') used.add(v);
        else visit(v);
      }
  };
  visit(doc);
  for (const [name, schema] of Object.entries<Json>(doc.components?.schemas ?? {}))
    if (!used.has(`#/components/schemas/${name}`)) out.push({ where: `#/components/schemas/${name}`, schema });
  return out;
}

const keys = (steps: Step[]) => steps.map((s) => ('key' in s ? s.key : 'item' in s ? '[]' : '{}'));
const pathText = (steps: Step[]) =>
  keys(steps)
    .join('.')
    .replace(/\.(\[\]|\{\})/g, '$1') || '(the body)';

/** A JSON value holding `leaf` at `steps`, and nothing else. */
function plant(steps: Step[], leaf: unknown): unknown {
  return steps.reduceRight<unknown>((inner, s) => ('key' in s ? { [s.key]: inner } : 'item' in s ? [inner] : { someone: inner }), leaf);
}

const PLANTED_TEXT = 'planted 4f9c';
const PLANTED_NUMBER = 7.654321;
const found = (value: unknown, planted: string | number) => personalValues(value).some((p) => p.value === planted);

/** The property names along the path, and the one the value sits at (for an element, the array's). */
function named(steps: Step[]): { above: string[]; at: string | undefined } {
  const names = keys(steps).filter((k) => k !== '[]' && k !== '{}');
  const last = steps[steps.length - 1];
  const at = last && 'key' in last ? last.key : undefined;
  return { above: at === undefined ? names : names.slice(0, -1), at };
}

/** Why a value at these steps must be personal, or undefined when the map's rules do not ask it to be. */
function mustBePersonal(steps: Step[], type: 'string' | 'number'): string | undefined {
  const { above, at } = named(steps);
  const all = at === undefined ? above : [...above, at];
  if (all.some((k) => NOT_TRAVELLER.has(k))) return undefined;
  const person = above.find((k) => UNDER.has(k)) ?? (at !== undefined && PEOPLE.has(at) ? at : undefined);
  if (person !== undefined) return type === 'number' && COUNTS.has(all.slice(-2).join('.')) ? undefined : `under \`${person}\``;
  if (type !== 'string') return undefined;
  const personLike = above.find((k) => PERSON_LIKE.test(k));
  if (personLike !== undefined) return `under \`${personLike}\`, named like a person`;
  if (at !== undefined && FIELDS.has(at)) return `a personal field (\`${at}\`)`;
  const parent = above[above.length - 1];
  if (at === 'name' && parent !== undefined && PLACES.has(parent)) return `a place's own text (\`${parent}.name\`)`;
  if (at === 'number' && parent !== undefined && FLIGHTS.has(parent)) return `a flight's number (\`${parent}.number\`)`;
  if (at !== undefined && LOOKALIKE.test(at) && !(at in NOT_A_TRAVELLERS)) return `named like a personal field (\`${at}\`)`;
  return undefined;
}

const TIME = /(^|_)(at|time|timestamp)$/;
/** Whether an object's properties make it a position (coordinates with a time or an accuracy), and the time's name. */
function positionTime(properties: Record<string, Json>): string | undefined {
  if (!properties.lat || !(properties.lon || properties.lng)) return undefined;
  return Object.keys(properties).find((k) => TIME.test(k) || properties[k]?.format === 'date-time' || k === 'accuracy');
}

interface Finding {
  where: string;
  path: string;
  why: string;
  name?: string;
}

/** What a contract lets in that the map would leave readable: one finding per path (the first schema naming it). */
function uncovered(doc: Json): Finding[] {
  const out = new Map<string, Finding>();
  const add = (f: Finding) => void (out.has(f.path) || out.set(f.path, f));
  for (const { where, schema } of schemas(doc)) {
    for (const slot of slots(doc, where, schema)) {
      for (const type of ['string', 'number'] as const) {
        if (!slot.types.has(type)) continue;
        const why = mustBePersonal(slot.steps, type);
        if (!why) continue;
        const planted = type === 'string' ? PLANTED_TEXT : PLANTED_NUMBER;
        if (!found(plant(slot.steps, planted), planted)) add({ where, path: pathText(slot.steps), why: `a ${type} ${why}`, name: named(slot.steps).at });
      }
      // A position: its coordinates are the ride's track (the driver's too), whatever the time is called.
      const time = slot.properties && positionTime(slot.properties);
      const inTrack = keys(slot.steps).some((k) => TRACKS.has(k)) && slot.properties?.lat;
      if (time || inTrack) {
        const position = { lat: PLANTED_NUMBER, lon: 79.8, ...(time ? { [time]: time === 'accuracy' ? 12 : '2026-12-01T04:00:00.000Z' } : {}) };
        if (!found(plant(slot.steps, position), PLANTED_NUMBER))
          add({ where, path: pathText(slot.steps), why: `a position (lat, lon${time ? `, ${time}` : ''})` });
      }
    }
  }
  return [...out.values()];
}

const message = (file: string, f: Finding) => `${file}: ${f.where} → ${f.path}: ${f.why}, which the map does not treat as personal`;

/** The findings not explained by a known gap; and the known gaps found. */
function judge(file: string, doc: Json) {
  const findings = uncovered(doc);
  const known = (f: Finding) => f.name !== undefined && f.name in KNOWN_GAPS && f.why.includes('named like');
  return { failures: findings.filter((f) => !known(f)).map((f) => message(file, f)), gaps: findings.filter(known).map((f) => f.name!) };
}

const CONTRACTS = fs
  .readdirSync(CONTRACTS_DIR)
  .filter((f) => f.endsWith('.yaml'))
  .sort();

describe('the map of personal data covers every contract', () => {
  it('finds the contracts', () => {
    expect(CONTRACTS).toEqual(
      expect.arrayContaining(['transfers-v1.yaml', 'ops-v1.yaml', 'driver-v1.yaml', 'marketplace-inbound.yaml', 'marketplace-outbound.yaml']),
    );
  });

  it.each(CONTRACTS)('%s: every value under a person or the notes, every personal field, place text, flight number and position is personal', (file) => {
    expect(judge(file, loadContract(file) as Json).failures).toEqual([]);
  });

  it('the walk reaches what the contracts hold: the people, the places, the flights and the positions', () => {
    const all = (file: string) => {
      const doc = loadContract(file) as Json;
      return schemas(doc).flatMap((s) => slots(doc, s.where, s.schema));
    };
    const paths = (file: string) => new Set(all(file).map((x) => pathText(x.steps)));
    const positions = (file: string) => new Set(all(file).flatMap((x) => (x.properties && positionTime(x.properties) ? [pathText(x.steps)] : [])));
    expect(positions('transfers-v1.yaml')).toContain('driver.location');
    expect(positions('ops-v1.yaml')).toContain('last_location');
    expect(positions('driver-v1.yaml').size).toBeGreaterThan(0);
    const transfers = paths('transfers-v1.yaml');
    for (const p of [
      'passenger.first_name',
      'passenger.email',
      'flight_number',
      'notes',
      'meeting_instructions',
      'pickup.name',
      'flight.number',
      'driver.phone',
    ])
      expect(transfers).toContain(p);
    const inbound = paths('marketplace-inbound.yaml');
    for (const p of ['customer.name', 'customer.phone', 'passengers{}.name_surname', 'passengers{}.passport', 'comment']) expect(inbound).toContain(p);
    expect(paths('marketplace-outbound.yaml')).toContain('evidence.gps_track[]');
    expect(paths('driver-v1.yaml')).toContain('passenger.phone');
  });

  it('every known gap is still one (once the map covers it, take it off KNOWN_GAPS)', () => {
    const gaps = new Set(CONTRACTS.flatMap((file) => judge(file, loadContract(file) as Json).gaps));
    expect([...gaps].sort()).toEqual(Object.keys(KNOWN_GAPS).sort());
  });

  it('every query parameter named like a personal field is kept out of the audit log’s path', () => {
    const leaks: string[] = [];
    for (const file of CONTRACTS) {
      const doc = loadContract(file) as Json;
      for (const [path, item] of Object.entries<Json>(doc.paths ?? {}))
        for (const [method, op] of Object.entries<Json>(item)) {
          if (!op || typeof op !== 'object') continue;
          for (const raw of [...((item.parameters as Json[] | undefined) ?? []), ...((op.parameters as Json[] | undefined) ?? [])]) {
            const p = typeof raw.$ref === 'string' ? refTarget(doc, raw.$ref as string) : raw;
            if (p.in !== 'query' || !(FIELDS.has(p.name as string) || PEOPLE.has(p.name as string) || LOOKALIKE.test(p.name as string))) continue;
            if (redactUrl(`${path}?${p.name}=${encodeURIComponent(PLANTED_TEXT)}`).includes(encodeURIComponent(PLANTED_TEXT)))
              leaks.push(`${file}: ${method.toUpperCase()} ${path} ?${p.name}`);
          }
        }
    }
    expect(leaks).toEqual([]);
  });
});

describe('the contract test itself, on small contracts of our own', () => {
  /** A contract with one operation taking `passenger` (through a $ref and an allOf) and a component `Extra`. */
  const contract = (person: Json, extra: Json = {}): Json => ({
    openapi: '3.0.3',
    paths: {
      '/bookings': {
        post: {
          requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/BookingRequest' } } } },
          responses: { '201': { description: 'Booked', content: { 'application/json': { schema: { $ref: '#/components/schemas/BookingRequest' } } } } },
        },
      },
    },
    components: {
      schemas: {
        BookingRequest: {
          type: 'object',
          properties: { passenger: { $ref: '#/components/schemas/Person' }, passengers: { $ref: '#/components/schemas/Party' } },
        },
        Person: {
          allOf: [
            { type: 'object', properties: { first_name: { type: 'string' } } },
            { type: 'object', properties: person },
          ],
        },
        Party: { type: 'object', properties: { adults: { type: 'integer' } } },
        Extra: { type: 'object', properties: extra },
      },
    },
  });
  const failures = (doc: Json) => judge('synthetic.yaml', doc).failures;

  it('a text added under a person is personal by the map (the whole person is): nothing to report', () => {
    expect(failures(contract({ passport_number: { type: 'string' }, nationality: { type: 'string', enum: ['LK', 'GB'] } }))).toEqual([]);
  });

  it('a number added under a person is caught, naming the contract, the operation and the path', () => {
    expect(failures(contract({ age: { type: 'integer' } }))).toEqual([
      'synthetic.yaml: POST /bookings request (application/json) → passenger.age: a number under `passenger`, which the map does not treat as personal',
    ]);
  });

  it('a person given as a plain text, not an object, is caught', () => {
    expect(failures(contract({}, { customer: { type: 'string' } }))).toEqual([
      'synthetic.yaml: #/components/schemas/Extra → customer: a string under `customer`, which the map does not treat as personal',
    ]);
  });

  it('notes that become an object are caught', () => {
    expect(failures(contract({}, { notes: { type: 'object', properties: { text: { type: 'string' } } } }))).toEqual([
      'synthetic.yaml: #/components/schemas/Extra → notes.text: a string under `notes`, which the map does not treat as personal',
    ]);
  });

  it('a personal-looking field outside a person is caught: a passport number in a document, an e-mail address in a map', () => {
    expect(
      failures(
        contract(
          {},
          {
            document: { type: 'object', properties: { passport_number: { type: 'string' } } },
            remark: { type: 'object', properties: { note: { type: 'string' } } },
            channels: { type: 'object', additionalProperties: { type: 'object', properties: { email_address: { type: 'string' } } } },
          },
        ),
      ),
    ).toEqual([
      'synthetic.yaml: #/components/schemas/Extra → document.passport_number: a string named like a personal field (`passport_number`), which the map does not treat as personal',
      'synthetic.yaml: #/components/schemas/Extra → channels{}.email_address: a string named like a personal field (`email_address`), which the map does not treat as personal',
    ]);
    // A singular `note` (a no-show's) is in the map: neither reported nor a gap.
    expect(judge('synthetic.yaml', contract({}, { remark: { type: 'object', properties: { note: { type: 'string' } } } })).gaps).toEqual([]);
  });

  it('a position whose time goes by another name is caught; one with `at`, or in a `gps_track`, is not', () => {
    const point = (time: string) => ({
      type: 'object',
      properties: { lat: { type: 'number' }, lon: { type: 'number' }, [time]: { type: 'string', format: 'date-time' } },
    });
    expect(failures(contract({}, { last_seen: point('recorded') }))).toEqual([
      'synthetic.yaml: #/components/schemas/Extra → last_seen: a position (lat, lon, recorded), which the map does not treat as personal',
    ]);
    expect(
      failures(
        contract(
          {},
          { last_seen: point('at'), gps_track: { type: 'array', items: { type: 'object', properties: { lat: { type: 'number' }, lon: { type: 'number' } } } } },
        ),
      ),
    ).toEqual([]);
  });

  it('on a copy of transfers-v1.yaml: a passport number on the passenger is personal; a birth year on it, or a lead traveller beside it, is caught', () => {
    const doc = structuredClone(loadContract('transfers-v1.yaml')) as Json;
    const schemas = doc.components.schemas as Json;
    schemas.Person.properties.passport_number = { type: 'string' };
    expect(failures(doc)).toEqual([]);
    schemas.Person.properties.birth_year = { type: 'integer' };
    schemas.BookingRequest.properties.lead_traveller = { type: 'object', properties: { name: { type: 'string' } } };
    expect(failures(doc).map((f) => f.replace('synthetic.yaml', 'transfers-v1.yaml'))).toEqual([
      'transfers-v1.yaml: POST /bookings request (application/json) → passenger.birth_year: a number under `passenger`, which the map does not treat as personal',
      'transfers-v1.yaml: POST /bookings request (application/json) → lead_traveller.name: a string under `lead_traveller`, named like a person, which the map does not treat as personal',
    ]);
  });

  it("a driver's own name and phone, and the party's size, are not asked to be personal; the driver's position during the ride is, and is", () => {
    const location = { type: 'object', properties: { lat: { type: 'number' }, lon: { type: 'number' }, at: { type: 'string', format: 'date-time' } } };
    const driver = { name: { type: 'string' }, phone: { type: 'string' }, location, passenger: { type: 'object', properties: { n: { type: 'integer' } } } };
    expect(uncovered(contract({}, { driver: { type: 'object', properties: driver } }))).toEqual([]);
  });
});
