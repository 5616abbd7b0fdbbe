import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import {
  holdsPersonal,
  PERSONAL_DATA,
  PERSONAL_DATA_TABLES,
  PERSONAL_HINT,
  personalValues,
  replacePersonal,
  subjectOf,
} from '../../../src/shared/personal-data';
import { ERASED, newDataKey, seal, sealedSubject, sealJson, unseal } from '../../../src/domain/kernel/seal';
import { DataKeys, FORGOTTEN } from '../../../src/domain/kernel/data-keys';
import { daySubject, openSealed, pathSubject, sealPersonal, topSubject } from '../../../src/domain/kernel/seal-personal';
import { ERASABLE_JSON } from '../../../src/data/repositories/erasure-repository';
import type { Sql } from '../../../src/data/database';
import { ROOT_DIR } from '../../../src/shared/paths';
import { isPublicPlaceName } from '../../../src/domain/geo/place-index';

/**
 * The map of a traveller's personal data (shared/personal-data) and the sealing of it (kernel/seal,
 * kernel/seal-personal), as rules: what is personal, whose it is, what a copy shares, and what a sealed value hides.
 */

const values = (v: unknown, subject?: string) => personalValues(v, subject).map((p) => p.value);
const subjects = (v: unknown, subject?: string) => personalValues(v, subject).map((p) => p.subject);

/** Every string (or number) leaf of a JSON value. */
function leaves<T>(v: unknown, keep: (x: unknown) => x is T): T[] {
  if (keep(v)) return [v];
  if (Array.isArray(v)) return v.flatMap((x) => leaves(x, keep));
  if (v && typeof v === 'object') return Object.values(v).flatMap((x) => leaves(x, keep));
  return [];
}
const isString = (x: unknown): x is string => typeof x === 'string';
const isScalar = (x: unknown): x is string | number => typeof x === 'string' || typeof x === 'number';
const isSealed = (x: unknown): x is string => isString(x) && x.startsWith('pd1:');
const sorted = <T>(xs: T[]) => [...xs].sort();

function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object') {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}

/** Keys the map knows, and some it does not. */
const KEYS = [
  ...PERSONAL_DATA.people,
  ...PERSONAL_DATA.fields,
  ...PERSONAL_DATA.places.under,
  ...PERSONAL_DATA.flights.under,
  ...PERSONAL_DATA.notTraveller,
  ...PERSONAL_DATA.tracks,
  'name',
  'resolved_name',
  'number',
  'lat',
  'lon',
  'lng',
  'at',
  'accuracy',
  'booking_ref',
  'order_id',
  'job_id',
  'quote_id',
  'status',
  'price',
  'data',
  'items',
];
/** Keys the map gives no meaning to (and no subject). */
const NEUTRAL = ['status', 'price', 'data', 'items', 'code', 'resolved_name', 'iata', 'vehicle', 'at'];

const leaf = fc.oneof(
  fc.string({ maxLength: 10 }),
  // JSON has no -0.
  fc.double({ min: -180, max: 180, noNaN: true }).map((n) => (n === 0 ? 0 : n)),
  fc.integer({ min: -1000, max: 1000 }),
  fc.boolean(),
  fc.constant(null),
);
/** JSON values over a vocabulary of keys (`keys`), a few levels deep. */
const json = (keys: string[]) =>
  fc.letrec<{ value: unknown; object: Record<string, unknown>; array: unknown[] }>((tie) => ({
    value: fc.oneof({ maxDepth: 4, depthIdentifier: 'json' }, leaf, tie('object'), tie('array')),
    object: fc.dictionary(fc.constantFrom(...keys), tie('value'), { maxKeys: 5, noNullPrototype: true, depthIdentifier: 'json' }),
    array: fc.array(tie('value'), { maxLength: 3, depthIdentifier: 'json' }),
  })).value;
const anyBody = json(KEYS);
/** What a person holds: an object or a list (a bare text at a person's key is not a person: see the contract test). */
const personBody = fc.oneof(
  json(KEYS).map((v) => ({ v })),
  fc.array(anyBody, { maxLength: 3 }),
);
const neutralBody = json(NEUTRAL);

describe('what is personal', () => {
  it('every text under a passenger, a customer or passengers is personal, however deep and whatever its key', () => {
    fc.assert(
      fc.property(fc.constantFrom(...PERSONAL_DATA.people), personBody, fc.array(fc.constantFrom(...NEUTRAL), { maxLength: 3 }), (person, inner, above) => {
        const body = above.reduceRight<unknown>((v, k) => ({ [k]: v }), { booking_ref: 'BK1', [person]: inner });
        const found = values(body);
        for (const s of leaves(inner, isString)) expect(found).toContain(s);
      }),
    );
  });

  it('so is a personal field anywhere (outside a driver), whatever object holds it', () => {
    fc.assert(
      fc.property(fc.constantFrom(...PERSONAL_DATA.fields), fc.string(), fc.array(fc.constantFrom(...NEUTRAL), { maxLength: 3 }), (field, text, above) => {
        expect(values(above.reduceRight<unknown>((v, k) => ({ [k]: v }), { [field]: text }))).toEqual([text]);
      }),
    );
  });

  it("a driver's own name, phone and e-mail are not personal; the driver's position during a ride is", () => {
    const body = {
      booking_ref: 'BK1',
      driver: {
        name: 'Sunil Silva',
        phone: '+94 70 000 0000',
        email: 'sunil@example.com',
        plate: 'WP CAB-1234',
        location: { lat: 7.1, lon: 79.8, at: '2026-12-01T04:00:00.000Z' },
      },
    };
    expect(values(body)).toEqual([7.1, 79.8]);
    expect(values({ driver: { name: 'Sunil Silva', phone: '+94 70 000 0000' } })).toEqual([]);
  });

  it("a place's own text (pickup, dropoff, from, to) is personal; where we located it (`resolved_name`, `iata`, coordinates) is not", () => {
    fc.assert(
      fc.property(fc.constantFrom(...PERSONAL_DATA.places.under), fc.string(), fc.string(), (place, own, resolved) => {
        const body = { [place]: { name: own, resolved_name: resolved, iata: 'CMB', lat: 7.17, lon: 79.88 } };
        expect(values(body)).toEqual([own]);
      }),
    );
    // `name` elsewhere is not a place's text (a vehicle, a partner).
    expect(values({ vehicle: { name: 'Toyota Axio' }, name: 'Acme Travel' })).toEqual([]);
  });

  it("a flight's number is personal; its status is not", () => {
    expect(values({ flight: { number: 'UL504', status: 'landed', scheduled_arrival: '2026-12-01T04:00:00.000Z' } })).toEqual(['UL504']);
    expect(values({ route: { number: 3 } })).toEqual([]);
  });

  it('a position (lat and lon with a time or an accuracy) is personal; coordinates alone are a place, not a position', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -90, max: 90, noNaN: true }),
        fc.double({ min: -180, max: 180, noNaN: true }),
        fc.constantFrom<Record<string, unknown>>({ at: '2026-12-01T04:00:00.000Z' }, { accuracy: 12 }, { at: '2026-12-01 09:30:00', accuracy: 3 }),
        (lat, lon, when) => {
          expect(values({ job_id: '7', location: { lat, lon, ...when } })).toEqual([lat, lon]);
          expect(values({ pickup: { lat, lon } })).toEqual([]);
        },
      ),
    );
  });

  it('every point of a gps_track, positions or track is personal, with or without a time', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...PERSONAL_DATA.tracks),
        fc.array(fc.record({ lat: fc.double({ min: -90, max: 90, noNaN: true }), lon: fc.double({ min: -180, max: 180, noNaN: true }) }), { maxLength: 5 }),
        (track, points) => {
          expect(values({ order_id: 'INT-1', evidence: { [track]: points } })).toEqual(points.flatMap((p) => [p.lat, p.lon]));
        },
      ),
    );
    expect(values({ track: [{ lng: 79.8, lat: 7.1 }] })).toEqual([79.8, 7.1]);
  });

  it('nothing else is: a body over keys the map does not know holds nothing personal', () => {
    fc.assert(fc.property(neutralBody, (body) => expect(personalValues(body)).toEqual([])));
  });

  it("a body's cheap look (PERSONAL_HINT on its JSON text) never misses a personal value", () => {
    fc.assert(fc.property(anyBody, (body) => expect(holdsPersonal(body) ? PERSONAL_HINT.test(JSON.stringify(body)) : true).toBe(true)));
  });
});

describe('whose it is', () => {
  const ID_KEYS = ['booking_ref', 'order_id', 'job_id', 'quote_id'] as const;
  const PREFIX = { booking_ref: 'booking', order_id: 'order', job_id: 'job', quote_id: 'quote' } as const;
  /** The ids an object may carry: a usable id, an empty one or one that is not text (both ignored), or none. */
  const ids = fc.record(
    Object.fromEntries(ID_KEYS.map((k) => [k, fc.oneof(fc.stringMatching(/^[A-Z0-9]{3,8}$/), fc.constant(''), fc.integer())])) as Record<
      (typeof ID_KEYS)[number],
      fc.Arbitrary<string | number>
    >,
    { requiredKeys: [] },
  );
  /** The subject an object's ids name: its booking, else its order, else its job, else its quote. */
  const named = (o: Partial<Record<(typeof ID_KEYS)[number], unknown>>) => {
    const k = ID_KEYS.find((key) => typeof o[key] === 'string' && o[key] !== '');
    return k && `${PREFIX[k]}:${o[k] as string}`;
  };

  it('subjectOf: booking_ref before order_id before job_id before quote_id', () => {
    fc.assert(fc.property(ids, (o) => expect(subjectOf(o)).toBe(named(o))));
    expect(subjectOf({ quote_id: 'Q', job_id: 'J', order_id: 'O', booking_ref: 'B' })).toBe('booking:B');
    expect(subjectOf({ quote_id: 'Q', job_id: 'J' })).toBe('job:J');
  });

  it('a personal value is the nearest object’s that names one; the given subject where none does', () => {
    fc.assert(
      fc.property(fc.array(ids, { minLength: 1, maxLength: 4 }), fc.option(fc.constant('day:2026-12-01'), { nil: undefined }), (levels, given) => {
        const body = levels.reduceRight<Record<string, unknown>>((inner, o) => ({ ...o, data: inner }), { passenger: { first_name: 'Ayesha' } });
        const nearest = [...levels].reverse().map(named).find(Boolean);
        expect(subjects(body)).toEqual([nearest]);
        // A given subject stands for the top level's own ids, never for an inner object's.
        const inner = [...levels.slice(1)].reverse().map(named).find(Boolean);
        expect(subjects(body, given)).toEqual([inner ?? given ?? nearest]);
      }),
    );
  });

  it("a booking's request names its quote and is the booking's: the given subject wins over the top object's own ids", () => {
    const request = { quote_id: 'Q1', offer_id: 'O1', passenger: { first_name: 'Ayesha' }, flight_number: 'UL504' };
    expect(subjects(request)).toEqual(['quote:Q1', 'quote:Q1']);
    expect(subjects(request, 'booking:BK1')).toEqual(['booking:BK1', 'booking:BK1']);
    expect(subjects({ quote_id: 'Q1', data: [{ booking_ref: 'BK2', notes: 'x' }] }, 'booking:BK1')).toEqual(['booking:BK2']);
  });

  it('where the audit writer looks: the top level, the path, the day', () => {
    expect(topSubject({ order_id: 'INT-1', job_id: '9' })).toBe('order:INT-1');
    expect(topSubject([{ booking_ref: 'B' }])).toBeUndefined();
    expect(topSubject(null)).toBeUndefined();
    expect(pathSubject('/transfers/v1/bookings/BK1/erase')).toBe('booking:BK1');
    expect(pathSubject('/ops/v1/jobs/42/no-show')).toBe('job:42');
    expect(pathSubject('/booking/INT%3A7/')).toBeUndefined();
    expect(pathSubject('/marketplace/orders/INT%3A7?x=1')).toBe('order:INT:7');
    // A reference that does not decode (a lone surrogate, as a fuzzer sent it) is the subject as written, not an error.
    expect(pathSubject('/transfers/v1/bookings/%ED%A0%80/change_quotes/..')).toBe('booking:%ED%A0%80');
    expect(pathSubject('/transfers/v1/quotes')).toBeUndefined();
    // A control character (a NUL, as the fuzzer sent it) or an id longer than any id names nobody.
    expect(pathSubject('/ops/v1/jobs/%00/no-show')).toBeUndefined();
    expect(pathSubject(`/transfers/v1/bookings/${'B'.repeat(129)}`)).toBeUndefined();
    expect(daySubject(new Date('2026-12-01T23:59:59.999Z'))).toBe('day:2026-12-01');
  });
});

describe('the copy', () => {
  it('replacePersonal returns the very same object when nothing is personal, or when nothing is replaced', () => {
    fc.assert(fc.property(neutralBody, (body) => expect(replacePersonal(body, () => 'X')).toBe(body)));
    fc.assert(fc.property(anyBody, (body) => expect(replacePersonal(body, () => undefined)).toBe(body)));
  });

  it('a copy shares what holds nothing personal, and never changes the original', () => {
    const untouched = { status: 'confirmed', items: [{ code: 'child_seat' }] };
    const body = deepFreeze({ booking_ref: 'BK1', untouched, passenger: { first_name: 'Ayesha' } });
    const copy = replacePersonal(body, () => null) as typeof body;
    expect(copy).not.toBe(body);
    expect(copy.untouched).toBe(untouched);
    expect(copy.passenger).toBeNull();
    expect(body.passenger.first_name).toBe('Ayesha');
  });

  it('a person is offered whole, then text by text when the replacer keeps it; a person of counts alone is not one', () => {
    const body = deepFreeze({ passenger: { first_name: 'Ayesha', age: 31 }, passengers: { adults: 2, luggage: 2 } });
    const offered: Array<[unknown, string]> = [];
    replacePersonal(body, (v, _s, kind) => void offered.push([v, kind]));
    expect(offered).toEqual([
      [body.passenger, 'person'],
      ['Ayesha', 'value'],
    ]);
    expect(replacePersonal(body, (_v, _s, kind) => (kind === 'person' ? undefined : null))).toEqual({ ...body, passenger: { first_name: null, age: 31 } });
    // People who name their own booking are each that booking's: offered text by text, each with its subject.
    const shared = {
      passengers: [
        { booking_ref: 'B1', name: 'Ayesha' },
        { booking_ref: 'B2', name: 'Kasun' },
      ],
    };
    const each: Array<[unknown, string | undefined, string]> = [];
    replacePersonal(shared, (v, s, kind) => void each.push([v, s, kind]), 'day:2026-12-01');
    expect(each).toEqual([
      ['B1', 'booking:B1', 'value'],
      ['Ayesha', 'booking:B1', 'value'],
      ['B2', 'booking:B2', 'value'],
      ['Kasun', 'booking:B2', 'value'],
    ]);
  });

  it('a scrubbed copy (personal values set to null) holds nothing personal, and differs from the original only there', () => {
    fc.assert(
      fc.property(anyBody, (raw) => {
        const body = deepFreeze(raw);
        const scrubbed = replacePersonal(body, (_v, _s, kind) => (kind === 'person' ? undefined : null));
        expect(personalValues(scrubbed)).toEqual([]);
        // What is left is what was there, less each personal value once.
        const left = leaves(body, isScalar);
        for (const p of values(body)) left.splice(left.indexOf(p), 1);
        expect(sorted(leaves(scrubbed, isScalar))).toEqual(sorted(left));
      }),
    );
  });
});

describe('a sealed value', () => {
  /** What a JSON body can hold: text, and finite numbers (JSON has no -0, NaN or Infinity). */
  const plain = fc.oneof(
    fc.string(),
    fc.string({ unit: 'binary' }),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (n === 0 ? 0 : n)),
  );
  /** Subjects as the service names them, and any text at all with a ':' or two in it. */
  const subject = fc.oneof(
    fc.constantFrom('booking:GM32DFCW', 'quote:01a216a80d7c6b1a0deb98e1be5527f9', 'job:42', 'order:INT-700123', 'search:abc:def', 'day:2026-12-01'),
    fc.array(fc.string({ minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 4 }).map((parts) => parts.join(':')),
  );

  it('opens with its key to the value sealed, for any text or number and any subject', () => {
    fc.assert(
      fc.property(plain, subject, (value, s) => {
        const key = newDataKey();
        const sealed = seal(key, s, value);
        expect(sealed.startsWith(`pd1:${s}:`)).toBe(true);
        expect(unseal(key, sealed)).toEqual(value);
      }),
    );
  });

  it('never shows its text, and tells two values apart only as different texts', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 6 }), plain, (value, other) => {
        const key = newDataKey();
        const s = 'booking:GM32DFCW';
        fc.pre(!`pd1:${s}:`.includes(value));
        const sealed = seal(key, s, value);
        expect(sealed).not.toContain(value);
        expect(sealed).not.toContain(JSON.stringify(value).slice(1, -1));
        // Whether a value seals the same twice or not (a synthetic nonce, or a random one), two values never share a text,
        // and another key never makes the same one.
        if (other !== value) expect(seal(key, s, other)).not.toBe(sealed);
        expect(seal(newDataKey(), s, value)).not.toBe(sealed);
      }),
    );
  });

  it('does not open with another key, or as another subject’s, or once tampered with', () => {
    fc.assert(
      fc.property(plain, subject, subject, (value, s, other) => {
        const key = newDataKey();
        const sealed = seal(key, s, value);
        expect(unseal(newDataKey(), sealed)).toBeUndefined();
        const payload = sealed.slice(sealed.lastIndexOf(':') + 1);
        if (other !== s) expect(unseal(key, `pd1:${other}:${payload}`)).toBeUndefined();
        const raw = Buffer.from(payload, 'base64url');
        raw[raw.length - 1] ^= 1;
        expect(unseal(key, `pd1:${s}:${raw.toString('base64url')}`)).toBeUndefined();
      }),
    );
  });

  it('names its subject, ":" and all; text that is not a sealed value names none and opens to nothing', () => {
    fc.assert(fc.property(plain, subject, (value, s) => expect(sealedSubject(seal(newDataKey(), s, value))).toBe(s)));
    for (const text of ['', 'pd1:', 'pd1::abc', 'Ayesha', 'booking:BK1:abc', '[erased]']) {
      expect(sealedSubject(text)).toBeUndefined();
      expect(unseal(newDataKey(), text)).toBeUndefined();
    }
    expect(unseal(newDataKey(), 'pd1:booking:BK1:not-base64!')).toBeUndefined();
  });
});

describe('sealing a body, and opening it', () => {
  const db = {} as Sql;
  /** Data keys held in a map: what the database would hold (a missing key: the subject is erased). */
  const keysIn = (stored: Map<string, Buffer>) =>
    ({
      forSealing: async (_db: Sql, wanted: Iterable<string>) => new Map([...wanted].map((s) => [s, stored.get(s) ?? null])),
      forReading: async (_db: Sql, wanted: Iterable<string>) => new Map([...wanted].flatMap((s) => (stored.has(s) ? [[s, stored.get(s)!] as const] : []))),
      // Nothing at hand: every subject's key is asked of the "database" above.
      atHand: () => undefined,
      publicPlace: () => false,
      seal: sealJson,
    }) as unknown as DataKeys;
  /** Makes a key for every subject asked for, as the database would for a subject never erased. */
  const making = () => {
    const stored = new Map<string, Buffer>();
    const keys = keysIn(stored);
    const forSealing = keys.forSealing.bind(keys);
    keys.forSealing = async (d, wanted, made) => {
      for (const s of wanted) if (!stored.has(s)) stored.set(s, newDataKey());
      return forSealing(d, wanted, made);
    };
    return { stored, keys };
  };

  const booking = {
    booking_ref: 'GM32DFCW',
    status: 'confirmed',
    price: 35.3,
    passenger: { first_name: 'Ayesha', last_name: 'Perera', email: 'ayesha@example.com' },
    pickup: { name: 'Cinnamon Grand, 77 Galle Road', resolved_name: 'Colombo', lat: 6.93, lon: 79.84 },
    driver: { name: 'Sunil Silva', phone: '+94 70 000 0000', location: { lat: 7.2091, lon: 80.1234, at: '2026-12-01T04:00:00.000Z' } },
  };

  it('seals every personal value with its subject’s key, keeps the rest readable, and opens back to the body', async () => {
    const { stored, keys } = making();
    // The audit writer's fallback subject for a body is the one its top level names (here: the booking).
    const {
      values: [sealed],
      subjects: whose,
    } = await sealPersonal(keys, db, [{ value: booking, subject: topSubject(booking)! }]);
    const text = JSON.stringify(sealed);
    for (const secret of ['Ayesha', 'Perera', 'ayesha@example.com', 'Cinnamon Grand', '7.2091', '80.1234']) expect(text).not.toContain(secret);
    for (const kept of ['GM32DFCW', 'confirmed', '35.3', 'Colombo', 'Sunil Silva', '+94 70 000 0000', '6.93']) expect(text).toContain(kept);
    expect(whose).toEqual(['booking:GM32DFCW']);
    // The passenger sealed whole, the place's text, the driver's position.
    expect(leaves(sealed, isSealed).map((t) => sealedSubject(t))).toEqual(Array(4).fill('booking:GM32DFCW'));
    expect(await openSealed(keys, db, [sealed])).toEqual([booking]);
    // Once its key is destroyed, what it sealed reads as erased; the rest as it was.
    stored.delete('booking:GM32DFCW');
    const [erased] = (await openSealed(keys, db, [sealed])) as Array<typeof booking>;
    expect(erased.passenger).toBe(ERASED);
    expect(erased.driver.location).toEqual({ lat: ERASED, lon: ERASED, at: '2026-12-01T04:00:00.000Z' });
    expect(erased.pickup).toEqual({ ...booking.pickup, name: ERASED });
  });

  it('for any body: every personal value of the sealed copy is sealed, with its subject, and it opens back whole', async () => {
    await fc.assert(
      fc.asyncProperty(anyBody, async (body) => {
        const { keys } = making();
        const expected = personalValues(body, 'day:2026-12-01');
        const {
          values: [sealed],
          subjects: whose,
        } = await sealPersonal(keys, db, [{ value: body, subject: 'day:2026-12-01' }]);
        if (expected.length === 0) expect(sealed).toBe(body);
        const left = personalValues(sealed, 'day:2026-12-01');
        expect(left.filter((p) => !isSealed(p.value))).toEqual([]);
        const bySubject = new Set(expected.map((p) => p.subject!));
        expect(new Set(leaves(sealed, isSealed).map((s) => sealedSubject(s)!))).toEqual(bySubject);
        expect(sorted(whose)).toEqual(sorted([...bySubject]));
        expect(await openSealed(keys, db, [sealed])).toEqual([body]);
      }),
      { numRuns: 200 },
    );
  });

  it('an erased subject, and the forgotten, are sealed as erased: no key is made, nothing readable is kept', async () => {
    const keys = new DataKeys();
    keys.erased(['booking:GM32DFCW']);
    // No database: the erased subject's answer is kept at hand, and the forgotten never has a key.
    const { values: sealed } = await sealPersonal(keys, db, [
      { value: booking, subject: 'booking:GM32DFCW' },
      { value: { email: 'ayesha@example.com' }, subject: FORGOTTEN },
    ]);
    expect((sealed[0] as typeof booking).passenger).toBe(ERASED);
    expect(sealed[1]).toEqual({ email: ERASED });
  });

  it('keys made with the write that creates the subject are used as they are, without the database', async () => {
    const key = newDataKey();
    const {
      values: [sealed],
    } = await sealPersonal(new DataKeys(), db, [{ value: { quote_id: 'Q1', pickup: { name: 'Home' } }, subject: 'quote:Q1' }], new Map([['quote:Q1', key]]));
    const name = (sealed as { pickup: { name: string } }).pickup.name;
    expect(sealedSubject(name)).toBe('quote:Q1');
    expect(unseal(key, name)).toBe('Home');
  });

  it('a place named as we know it (an airport, a town) stays readable; an address is sealed; a key offered is used only then', async () => {
    const key = newDataKey();
    const offered = new Map([['quote:Q1', key]]);
    const keys = new DataKeys(isPublicPlaceName);
    const known = { quote_id: 'Q1', pickup: { name: 'Bandaranaike International Airport' }, dropoff: { name: 'kandy' } };
    const plain = await sealPersonal(keys, db, [{ value: known, subject: 'quote:Q1' }], offered);
    expect(plain.values[0]).toBe(known);
    expect(plain.subjects).toEqual([]);
    expect(plain.used.size).toBe(0);

    const address = { quote_id: 'Q1', pickup: { name: 'Bandaranaike International Airport' }, dropoff: { name: '12 Temple Lane, Kandy' } };
    const sealed = await sealPersonal(keys, db, [{ value: address, subject: 'quote:Q1' }], offered);
    const out = sealed.values[0] as typeof address;
    expect(out.pickup.name).toBe('Bandaranaike International Airport');
    expect(unseal(key, out.dropoff.name)).toBe('12 Temple Lane, Kandy');
    expect([...sealed.used]).toEqual([['quote:Q1', key]]);
    // A known name is a place's text only where a place is: as a passenger's name it is sealed.
    const named = await sealPersonal(keys, db, [{ value: { quote_id: 'Q1', passenger: { first_name: 'Kandy' } }, subject: 'quote:Q1' }], offered);
    expect(sealedSubject((named.values[0] as { passenger: string }).passenger)).toBe('quote:Q1');
  });

  it('a body with nothing personal is kept as it is, with no subject', async () => {
    const body = { status: 'confirmed', price: 35.3 };
    const out = await sealPersonal(new DataKeys(), db, [{ value: body, subject: 'day:2026-12-01' }]);
    expect(out.values[0]).toBe(body);
    expect(out.subjects).toEqual([]);
    expect(await openSealed(new DataKeys(), db, [body])).toEqual([body]);
  });

  it('an unknown sealed text reads as erased, never as the sealed text', async () => {
    const stray = seal(randomBytes(32), 'booking:GONE', 'Ayesha');
    expect(await openSealed(keysIn(new Map()), db, [{ passenger: { first_name: stray } }])).toEqual([{ passenger: { first_name: ERASED } }]);
  });
});

describe('where it is kept', () => {
  it('every table the erasure rewrites is named in PERSONAL_DATA_TABLES, the list operators read (docs/operations.md)', () => {
    const rewritten = new Set(Object.entries(ERASABLE_JSON).map(([kind, spec]) => ('table' in spec ? spec.table : kind)));
    const named = new Set(Object.keys(PERSONAL_DATA_TABLES));
    expect([...rewritten].filter((t) => !named.has(t)).sort()).toEqual([]);
  });

  it('every table PERSONAL_DATA_TABLES names is one the migrations make', () => {
    const dir = path.join(ROOT_DIR, 'migrations');
    const made = new Set<string>();
    for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
      const text = fs.readFileSync(path.join(dir, file), 'utf8');
      for (const m of text.matchAll(/createTable\(\s*['"]([a-z_]+)['"]|create table (?:if not exists )?([a-z_]+)/gi)) made.add(m[1] ?? m[2]);
    }
    expect(made).toContain('bookings');
    expect(Object.keys(PERSONAL_DATA_TABLES).filter((t) => !made.has(t))).toEqual([]);
  });
});

describe('the data keys an instance keeps at hand', () => {
  it('seals a value once and gives the same text again; once its subject is erased here, nothing is at hand to seal with', () => {
    const keys = new DataKeys();
    const key = newDataKey();
    keys.keep('booking:BK1', key);
    expect(keys.atHand('booking:BK1')).toEqual(key);
    const first = keys.seal(key, 'booking:BK1', '"Ayesha"');
    expect(keys.seal(key, 'booking:BK1', '"Ayesha"')).toBe(first);
    expect(unseal(key, first)).toBe('Ayesha');
    // A number and its text are different values; a person is sealed whole.
    expect(unseal(key, keys.seal(key, 'booking:BK1', '7'))).toBe(7);
    expect(unseal(key, keys.seal(key, 'booking:BK1', '"7"'))).toBe('7');
    expect(unseal(key, keys.seal(key, 'booking:BK1', '{"first_name":"Ayesha"}'))).toEqual({ first_name: 'Ayesha' });
    keys.erased(['booking:BK1']);
    expect(keys.atHand('booking:BK1')).toBeNull();
    expect(keys.atHand(FORGOTTEN)).toBeNull();
    expect(keys.atHand('booking:OTHER')).toBeUndefined();
  });

  it('keeps each key as 32 bytes of its own, not the 8 KiB pool slab a key made or read arrives in', () => {
    const keys = new DataKeys();
    const made = Array.from({ length: 100 }, () => newDataKey());
    // As PostgreSQL's driver reads a bytea (hex text to a Buffer), between requests that draw on the same pool.
    const read = Array.from({ length: 100 }, () => Buffer.from(randomBytes(32).toString('hex') + 'ff'.repeat(4000), 'hex').subarray(0, 32));
    // As the embedded database's driver reads one: a Uint8Array (not a Buffer) viewing a larger result.
    const embedded = Array.from({ length: 100 }, () => new Uint8Array(randomBytes(4096).buffer, 64, 32));
    const all = [...made, ...read, ...embedded] as Buffer[];
    expect(all.every((k) => k.buffer.byteLength > 32)).toBe(true);
    all.forEach((k, i) => keys.keep(`booking:BK${i}`, k));

    const kept = all.map((k, i) => keys.atHand(`booking:BK${i}`)!);
    expect(kept.map((k, i) => Buffer.from(all[i]).equals(k))).toEqual(Array(300).fill(true));
    // 300 keys hold 300 × 32 bytes: as slices they would hold a slab each, up to 160 MB for the 20,000 kept.
    expect(new Set(kept.map((k) => k.buffer)).size).toBe(300);
    expect(kept.reduce((n, k) => n + k.buffer.byteLength, 0)).toBe(300 * 32);
    // And each still seals and opens as the key it copies.
    expect(unseal(all[250], seal(kept[250], 'booking:BK250', 'Ayesha'))).toBe('Ayesha');
  });
});
