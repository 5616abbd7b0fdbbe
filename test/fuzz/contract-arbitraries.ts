import fc from 'fast-check';
import OpenAPIBackend from 'openapi-backend';
import { loadContract } from '../../src/http/surface';
import { addContractFormats } from '../../src/http/formats';

type Schema = Record<string, any>;

/** Values seen in responses (ids, refs), handed back to the generator so requests reach past "not found". */
export class Pools {
  private readonly pools = new Map<string, string[]>();
  private readonly denied = new Set<string>();
  /** Never hand this value out (the fuzzer's own credentials must not be revoked by its own requests). */
  deny(value: string) {
    this.denied.add(value);
  }
  add(name: string, value: unknown) {
    if (typeof value !== 'string' || !value || this.denied.has(value)) return;
    const list = this.pools.get(name) ?? this.pools.set(name, []).get(name)!;
    if (!list.includes(value)) list.push(value);
    if (list.length > 50) list.shift();
  }
  /** Every string field of a response body whose name is one we pool. */
  harvest(value: unknown, names: readonly string[]) {
    if (Array.isArray(value)) value.forEach((v) => this.harvest(v, names));
    else if (value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) {
        if (names.includes(k)) this.add(k, v);
        this.harvest(v, names);
      }
    }
  }
  get(name: string): string[] {
    return this.pools.get(name) ?? [];
  }
}

/** Operation of a contract with its dereferenced request schemas. */
export interface ContractOperation {
  operationId: string;
  method: string;
  /** Relative to the surface's mount. */
  path: string;
  pathParams: Array<{ name: string; schema: Schema }>;
  queryParams: Array<{ name: string; schema: Schema; required: boolean }>;
  headerParams: Array<{ name: string; schema: Schema; required: boolean }>;
  body?: Schema;
}

export async function contractOperations(file: string): Promise<ContractOperation[]> {
  const api = new OpenAPIBackend({ definition: loadContract(file), strict: false, customizeAjv: (ajv) => (addContractFormats(ajv as never), ajv) });
  await api.init();
  return api.getOperations().map((op: any) => {
    const params: any[] = op.parameters ?? [];
    return {
      operationId: op.operationId,
      method: op.method.toUpperCase(),
      path: op.path,
      pathParams: params.filter((p) => p.in === 'path').map((p) => ({ name: p.name, schema: p.schema ?? {} })),
      queryParams: params.filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: p.schema ?? {}, required: !!p.required })),
      headerParams: params.filter((p) => p.in === 'header').map((p) => ({ name: p.name, schema: p.schema ?? {}, required: !!p.required })),
      body: op.requestBody?.content?.['application/json']?.schema,
    };
  });
}

const dereferenced = new Map<string, Promise<Schema>>();
/** A contract dereferenced (its `$ref`s inlined) as openapi-backend reads it, once per file. */
function dereferencedContract(file: string): Promise<Schema> {
  let d = dereferenced.get(file);
  if (!d) {
    const api = new OpenAPIBackend({ definition: loadContract(file), strict: false, customizeAjv: (ajv) => (addContractFormats(ajv as never), ajv) });
    dereferenced.set(file, (d = api.init().then(() => api.definition as unknown as Schema)));
  }
  return d;
}

/**
 * A named schema of a contract (`components.schemas.<name>`), self-contained: its `$ref`s inlined, and its `x-ref`s
 * (mcp.yaml's way of naming a schema of the Transfers contract, `transfers-v1.yaml#/components/...`) replaced by
 * the schema they point at, the reference's siblings kept over it.
 */
export async function contractSchema(file: string, name: string): Promise<Schema> {
  const resolve = async (node: unknown, depth: number): Promise<unknown> => {
    if (depth > 40) throw new Error(`${file}#${name}: schema nested too deeply`);
    if (Array.isArray(node)) return Promise.all(node.map((n) => resolve(n, depth + 1)));
    if (!node || typeof node !== 'object') return node;
    const { 'x-ref': xref, ...rest } = node as Schema;
    if (typeof xref === 'string') {
      const [other, pointer] = xref.split('#');
      let target: unknown = await dereferencedContract(other);
      for (const part of pointer.replace(/^\//, '').split('/')) target = (target as Schema | undefined)?.[part];
      if (!target) throw new Error(`${file}#${name}: no schema at ${xref}`);
      return { ...((await resolve(target, depth + 1)) as Schema), ...((await resolve(rest, depth + 1)) as Schema) };
    }
    const out: Schema = {};
    for (const [k, v] of Object.entries(rest)) out[k] = await resolve(v, depth + 1);
    return out;
  };
  const schema = ((await dereferencedContract(file)) as { components?: { schemas?: Record<string, Schema> } }).components?.schemas?.[name];
  if (!schema) throw new Error(`${file} has no schema ${name}`);
  return (await resolve(schema, 0)) as Schema;
}

const days = (n: number) => n * 24 * 3600 * 1000;
const pad = (n: number) => String(n).padStart(2, '0');

/** A pickup time with its UTC offset, mostly in the bookable window (more than 24 h and less than a year ahead). */
export const futureDateTime = (now: Date) =>
  fc.tuple(fc.integer({ min: -2, max: 400 }), fc.integer({ min: 0, max: 23 }), fc.constantFrom('+05:30', 'Z', '+00:00', '-04:00')).map(([d, h, off]) => {
    const t = new Date(now.getTime() + days(d));
    return `${t.toISOString().slice(0, 10)}T${pad(h)}:30:00${off}`;
  });

/** The marketplace's local "YYYY-MM-DD HH:MM:SS". */
export const futureLocal = (now: Date) =>
  fc
    .tuple(fc.integer({ min: -2, max: 400 }), fc.integer({ min: 0, max: 23 }))
    .map(([d, h]) => `${new Date(now.getTime() + days(d)).toISOString().slice(0, 10)} ${pad(h)}:30:00`);

// Every date and time the formats' syntax allows, and a little beyond: years 0000 to 9999 (their ends most often),
// impossible days, hour 24, second 60, fractions of any length, every offset in every spelling.
const pad4 = (n: number) => String(n).padStart(4, '0');
const year = fc.oneof(fc.constantFrom(0, 1, 2, 1969, 1970, 2026, 9998, 9999), fc.integer({ min: 0, max: 9999 }));
const month = fc.oneof(fc.constantFrom(1, 2, 12), fc.integer({ min: 1, max: 12 }), fc.constantFrom(0, 13));
const day = fc.oneof(fc.constantFrom(1, 28, 29, 30, 31), fc.integer({ min: 1, max: 31 }), fc.constant(0));
const hour = fc.oneof(fc.constantFrom(0, 23), fc.integer({ min: 0, max: 23 }), fc.constant(24));
const minute = fc.oneof(fc.constantFrom(0, 59), fc.integer({ min: 0, max: 59 }), fc.constant(60));
const second = fc.oneof(fc.constantFrom(0, 59, 60), fc.integer({ min: 0, max: 59 }));
const digits = (min: number, max: number) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: min, maxLength: max });
const fraction = fc.oneof(
  { arbitrary: fc.constant(''), weight: 3 },
  { arbitrary: digits(1, 12).map((d) => `.${d}`), weight: 3 },
  fc.constantFrom('.999999', '.9999995', '.0000001', '.000000000'),
  fc.integer({ min: 13, max: 3000 }).map((n) => `.${'9'.repeat(n)}`),
);
const offset = fc.oneof(
  fc.constantFrom(
    'Z',
    'z',
    '+05:30',
    '-00:00',
    '+00:00',
    '+14:00',
    '-12:00',
    '+15:59',
    '-15:59',
    '+16:00',
    '+23:59',
    '-23:59',
    '+24:00',
    '+05',
    '+0530',
    '-0000',
    '',
  ),
  fc
    .tuple(fc.constantFrom('+', '-'), fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }), fc.constantFrom(':', ':', ''))
    .map(([s, h, m, c]) => `${s}${pad(h)}${c}${pad(m)}`),
);
const ymd = fc.tuple(year, month, day).map(([y, m, d]) => `${pad4(y)}-${pad(m)}-${pad(d)}`);

/** Any RFC 3339 date-time and its near misses: every year 0000–9999 (the ends of time most often), every offset. */
export const anyDateTime = fc.oneof(
  fc
    .tuple(ymd, fc.constantFrom('T', 'T', 't', ' '), hour, minute, second, fraction, offset)
    .map(([d, sep, h, m, sec, f, o]) => `${d}${sep}${pad(h)}:${pad(m)}:${pad(sec)}${f}${o}`),
  // Where local time and UTC fall in different years (or past the ends), and leap seconds.
  fc
    .tuple(
      fc.constantFrom(
        '0000-01-01T00',
        '0000-12-31T23',
        '0001-01-01T00',
        '0001-01-01T05',
        '9999-12-31T23',
        '9999-12-31T18',
        '2016-12-31T23',
        '2026-12-31T23',
        '2027-01-01T05',
      ),
      fc.constantFrom(':00:00', ':29:59', ':59:59', ':59:60', ':29:60'),
      fraction,
      offset,
    )
    .map((p) => p.join('')),
);

/** Any RFC 3339 full-date and its near misses, every year 0000–9999. */
export const anyDate = fc.oneof(
  ymd,
  fc.constantFrom('0000-01-01', '0001-01-01', '0001-01-02', '9999-12-30', '9999-12-31', '2026-02-29', '2028-02-29', '2026-12-01'),
);

/** Any local "YYYY-MM-DD HH:MM:SS" the marketplace's pattern lets through, every year 0000–9999. */
export const anyLocal = fc.oneof(
  fc.tuple(ymd, hour, minute, second).map(([d, h, m, sec]) => `${d} ${pad(h)}:${pad(m)}:${pad(sec)}`),
  fc
    .tuple(
      fc.constantFrom('0000-01-01', '0001-01-01', '0001-01-02', '9999-12-30', '9999-12-31'),
      fc.constantFrom('00:00:00', '05:29:59', '05:30:00', '18:29:59', '23:59:59'),
    )
    .map(([d, t]) => `${d} ${t}`),
);

/** Integers at and beyond the database's ranges (int2, int4, int8, exact doubles), both signs. */
const integerEdges = [
  0,
  -0,
  1,
  -1,
  32767,
  32768,
  -32768,
  -32769,
  65536,
  2 ** 31 - 1,
  2 ** 31,
  -(2 ** 31),
  -(2 ** 31) - 1,
  2 ** 32,
  2 ** 53 - 1,
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 53),
  2 ** 63,
  -(2 ** 63),
  2 ** 64,
  1e20,
  1e21,
  1e100,
  1e308,
  -1e308,
  Number.MAX_VALUE,
];
/** Numbers at the ends of doubles: huge, tiny, subnormal, negative zero. */
const numberEdges = [...integerEdges, 0.5, -0.5, 0.1, 1e-7, 1e-320, 5e-324, -5e-324, 2 ** 53 + 1];
const within = (values: number[], schema: Schema) =>
  values.filter(
    (v) =>
      (schema.minimum === undefined || v >= schema.minimum) &&
      (schema.maximum === undefined || v <= schema.maximum) &&
      (schema.exclusiveMinimum === undefined || v > schema.exclusiveMinimum) &&
      (schema.exclusiveMaximum === undefined || v < schema.exclusiveMaximum),
  );

/** Text the text policy lets through: every plane, joiners, combining marks, right-to-left, BOM, controls. */
const unicodeEdge = fc.constantFrom(
  '😀',
  '👩\u200d👩\u200d👧\u200d👦',
  'e\u0301',
  '\u202e',
  '\ufeff',
  '\uffff',
  '\u{10ffff}',
  '\u200b',
  'ß',
  'İ',
  'ﷺ',
  '𝕏',
  '\u00a0',
  '\r\n',
  '\t',
  '\\',
  '"',
  "'",
  '%',
  '_',
  '\u007f',
  '\u0085',
  '\u2028',
);
const edgeText = fc.array(fc.oneof(unicodeEdge, fc.string({ unit: 'grapheme', maxLength: 4 })), { minLength: 1, maxLength: 20 }).map((a) => a.join(''));

/** Values that make sense for a field of this name: real places, our fleet codes, bookable dates, pooled ids. */
export function hints(pools: Pools, now: Date): Record<string, fc.Arbitrary<unknown>> {
  const pooled = (name: string, fallback: fc.Arbitrary<unknown>) =>
    fc.oneof(
      fallback,
      fc.constant(null).chain(() => (pools.get(name).length ? fc.constantFrom(...pools.get(name)) : fallback)),
    );
  const fleet = fc.constantFrom('small_car', 'standard_car', 'premium_car', 'suv', 'standard_van', 'premium_van', 'large_van', 'standard_bus');
  return {
    name: fc.oneof(
      fc.constantFrom(
        'Kandy',
        'Galle',
        'Colombo',
        'Ella',
        'Sigiriya',
        'Negombo',
        'Cinnamon Grand, 77 Galle Road, Colombo 03',
        'Bandaranaike International Airport',
      ),
      fc.string({ minLength: 1, maxLength: 30 }),
    ),
    iata: fc.constantFrom('CMB', 'HRI', 'JAF', 'XXX', 'cmb'),
    pickup_datetime: fc.oneof({ arbitrary: futureDateTime(now), weight: 3 }, { arbitrary: anyDateTime, weight: 1 }),
    date: fc.oneof({ arbitrary: futureLocal(now), weight: 3 }, { arbitrary: anyLocal, weight: 1 }),
    vehicle_id: pooled('vehicle_id', fleet),
    vehicle: fleet,
    offer_id: pooled('offer_id', fc.stringMatching(/^[0-9a-f]{32}$/)),
    quote_id: pooled('quote_id', fc.stringMatching(/^[0-9a-f]{32}$/)),
    booking_ref: pooled('booking_ref', fc.stringMatching(/^[2-9A-HJKMNP-TV-Z]{8}$/)),
    partner_id: pooled('partner_id', fc.stringMatching(/^ptn_[a-z0-9]{16}$/)),
    key_id: pooled('key_id', fc.stringMatching(/^[a-z0-9]{12}$/)),
    order_id: pooled('order_id', fc.stringMatching(/^[A-Z0-9-]{4,20}$/)),
    price_mark: pooled('price_mark', fc.stringMatching(/^pm_[0-9a-f]{32}$/)),
    // The MCP server's confirmation tokens (prepare_booking, preview_cancellation) and confirm_booking's key.
    confirmation_token: pooled('confirmation_token', fc.oneof(fc.stringMatching(/^[A-Za-z0-9_-]{20,60}$/), fc.string({ minLength: 1, maxLength: 200 }))),
    idempotency_key: fc.oneof(fc.constantFrom('mcp-1', 'mcp-2', 'mcp-3'), fc.string({ minLength: 1, maxLength: 255 })),
    outbox_id: pooled('outbox_id', fc.integer({ min: 1, max: 200 }).map(String)),
    // Mostly prices we would accept; now and then any the pattern takes, up to its maxLength and past it.
    price: fc.oneof(
      { arbitrary: fc.constantFrom('150.00', '35.50', '9999.99'), weight: 2 },
      { arbitrary: fc.integer({ min: 1, max: 99999 }).map((n) => (n / 100).toFixed(2)), weight: 2 },
      fc.constantFrom('0.00', '999999999.99', '90071992547409.91', '99999999999999.99', `${'9'.repeat(30)}.00`),
      fc.stringMatching(/^\d{1,30}\.\d{2}$/),
    ),
  };
}

/**
 * A value the schema accepts (or nearly: fields with hints take the hint, and dates and times reach past the years
 * the formats take). Numbers and strings reach the ends of what the contract allows: integers at and past int4 and
 * int8 where it sets no maximum, 1e308, -0, strings of `longest` characters where it sets no maxLength (a body's;
 * URLs and headers pass less, their limits are the server's), strings of exactly maxLength in any plane, arrays
 * empty and full, empty objects.
 */
export function valid(schema: Schema | undefined, h: Record<string, fc.Arbitrary<unknown>>, name?: string, depth = 0, longest = 20_000): fc.Arbitrary<unknown> {
  if (!schema) return fc.constant(undefined);
  if (schema.format === 'date')
    return fc.oneof(
      anyDate,
      h.pickup_datetime.map((s) => String(s).slice(0, 10)),
    );
  if (name && h[name] && !['object', 'array'].includes(schema.type)) return h[name];
  if (schema.enum) return fc.constantFrom(...(schema.enum as unknown[]).filter((v) => v !== null));
  const alternatives = schema.oneOf ?? schema.anyOf;
  if (alternatives) return fc.oneof(...(alternatives as Schema[]).map((s) => valid(s, h, name, depth, longest)));
  switch (schema.type) {
    case 'object': {
      const props: Record<string, Schema> = schema.properties ?? {};
      const required: string[] = schema.required ?? [];
      const model = Object.fromEntries(Object.entries(props).map(([k, s]) => [k, valid(s, h, k, depth + 1, longest)]));
      if (!Object.keys(model).length) return fc.constant({});
      const record = fc.record(model, { requiredKeys: required.filter((k) => k in model) }).filter((o) => Object.keys(o).length >= (schema.minProperties ?? 0));
      // Now and then the emptiest object the schema takes.
      return required.length || schema.minProperties ? record : fc.oneof({ arbitrary: record, weight: 5 }, fc.constant({}));
    }
    case 'array': {
      const items = valid(schema.items, h, undefined, depth + 1, longest);
      const few = fc.array(items, { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 4, 4) });
      // Empty where allowed, and as long as allowed (200 items where there is no maxItems).
      const most = Math.max(schema.minItems ?? 0, Math.min(schema.maxItems ?? 200, 200));
      return fc.oneof({ arbitrary: few, weight: 8 }, ...(schema.minItems ? [] : [fc.constant([])]), fc.array(items, { minLength: most, maxLength: most }));
    }
    case 'integer': {
      const small = fc.integer({ min: Math.max(schema.minimum ?? -1000, -1000), max: Math.min(schema.maximum ?? 1000, 1000) });
      const edges = within(
        [...integerEdges, schema.minimum, schema.maximum].filter((v): v is number => typeof v === 'number'),
        schema,
      );
      const wide = fc.integer({
        min: Math.max(schema.minimum ?? Number.MIN_SAFE_INTEGER, Number.MIN_SAFE_INTEGER),
        max: Math.min(schema.maximum ?? Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER),
      });
      return fc.oneof({ arbitrary: small, weight: 6 }, ...(edges.length ? [fc.constantFrom(...edges)] : []), wide);
    }
    case 'number': {
      const usual = fc.double({ min: schema.minimum ?? -1000, max: schema.maximum ?? 1000, noNaN: true, noDefaultInfinity: true });
      const edges = within(
        [...numberEdges, schema.minimum, schema.maximum].filter((v): v is number => typeof v === 'number'),
        schema,
      );
      const wide = fc.double({ min: schema.minimum ?? -Number.MAX_VALUE, max: schema.maximum ?? Number.MAX_VALUE, noNaN: true, noDefaultInfinity: true });
      return fc.oneof({ arbitrary: usual, weight: 6 }, ...(edges.length ? [fc.constantFrom(...edges)] : []), wide);
    }
    case 'boolean':
      return fc.boolean();
    case 'string': {
      if (schema.format === 'date-time') return fc.oneof(h.pickup_datetime, anyDateTime);
      if (schema.format === 'email') return fc.emailAddress();
      if (schema.pattern) {
        const max = schema.maxLength ?? 40;
        return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length >= (schema.minLength ?? 0) && s.length <= max);
      }
      const min = schema.minLength ?? 0;
      const max = Math.min(schema.maxLength ?? longest, longest);
      const short = fc.string({ minLength: min, maxLength: Math.min(max, 40) });
      // As long as allowed (ajv counts code points): ASCII, two-byte, and characters outside the BMP.
      const full = fc.constantFrom('x', 'é', '😀', '\u{10ffff}').map((c) => c.repeat(max));
      // Unicode edge cases, cut or padded to the lengths allowed.
      const edgy = edgeText.map((t) => {
        const chars = [...t];
        while (chars.length < min) chars.push('é');
        return chars.slice(0, max).join('');
      });
      return fc.oneof({ arbitrary: short, weight: 6 }, full, edgy, fc.string({ unit: 'binary', minLength: min, maxLength: Math.max(min, Math.min(max, 200)) }));
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Breaking a valid value

type Json = unknown;
type Path = Array<string | number>;

function paths(v: Json, at: Path = [], out: Path[] = []): Path[] {
  out.push(at);
  if (Array.isArray(v)) v.forEach((x, i) => paths(x, [...at, i], out));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) paths(x, [...at, k], out);
  return out;
}

function setAt(v: Json, at: Path, value: Json): Json {
  if (!at.length) return value;
  const [head, ...rest] = at;
  if (Array.isArray(v)) return v.map((x, i) => (i === head ? setAt(x, rest, value) : x));
  if (v && typeof v === 'object') {
    const out: Record<string, Json> = {};
    for (const [k, x] of Object.entries(v))
      Object.defineProperty(out, k, { value: k === head ? setAt(x, rest, value) : x, enumerable: true, writable: true, configurable: true });
    return out;
  }
  return v;
}

function deleteAt(v: Json, at: Path): Json {
  if (at.length === 1 && v && typeof v === 'object' && !Array.isArray(v)) {
    const { [at[0] as string]: _gone, ...rest } = v as Record<string, Json>;
    return rest;
  }
  if (!at.length || !v || typeof v !== 'object') return v;
  const [head, ...rest] = at;
  return setAt(v, [head], deleteAt((v as Record<string, Json>)[head as string], rest));
}

const getAt = (v: Json, at: Path): Json => at.reduce<Json>((x, k) => (x && typeof x === 'object' ? (x as Record<string, Json>)[k as string] : undefined), v);

/** Strings that break things elsewhere: every plane, controls, NUL, lone surrogates, huge, injections. */
export const nastyString = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    'a\u0000b',
    '\u0000',
    'A\ud800',
    '\udfffZ',
    '\ud83d',
    '😀\u200d👩\u200d👧',
    'مرحبا',
    '\u202eevil',
    'e\u0301\u0301\u0301',
    "'; drop table bookings; --",
    '../../etc/passwd',
    '%00',
    '\\u0000',
    '${7*7}',
    '<script>alert(1)</script>',
    '\r\n\r\nX-Injected: 1',
    '\ufeff',
    '\uffff',
    '\u{10ffff}',
  ),
  fc.string({ unit: 'binary', maxLength: 60 }),
  fc.string({ unit: 'grapheme', maxLength: 60 }),
  fc.integer({ min: 1000, max: 70_000 }).map((n) => 'x'.repeat(n)),
);

export const nastyNumber = fc.constantFrom(...numberEdges, -(2 ** 53) - 1, Number.MAX_SAFE_INTEGER, 4294967296);
export const nastyDate = fc.oneof(
  anyDateTime,
  anyDate,
  anyLocal,
  fc.constantFrom(
    '2026-02-30T10:00:00+05:30',
    '2026-13-01T10:00:00+05:30',
    '2026-12-01T25:61:00+05:30',
    '2026-12-01T10:00:00+25:00',
    '2026-12-01T10:00:00',
    '2026-12-01',
    '0000-01-01T00:00:00Z',
    '9999-12-31T23:59:59Z',
    '2026-12-01 10:00:00',
    '2026-02-29 10:00:00',
    'yesterday',
  ),
);
const anyJson = fc.oneof(fc.constant(null), fc.boolean(), nastyNumber, nastyString, fc.constant([]), fc.constant({}), fc.jsonValue({ maxDepth: 3 }));

export type Mutation =
  | { kind: 'none' }
  | { kind: 'wrong_type' | 'nasty_string' | 'nasty_number' | 'nasty_date' | 'deep'; at: number; value: Json }
  | { kind: 'drop'; at: number }
  | { kind: 'extra'; at: number; key: string; value: Json };

export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { arbitrary: fc.constant({ kind: 'none' as const }), weight: 3 },
  fc.record({ kind: fc.constant('wrong_type' as const), at: fc.nat(), value: anyJson }),
  fc.record({ kind: fc.constant('nasty_string' as const), at: fc.nat(), value: nastyString }),
  fc.record({ kind: fc.constant('nasty_number' as const), at: fc.nat(), value: nastyNumber }),
  fc.record({ kind: fc.constant('nasty_date' as const), at: fc.nat(), value: nastyDate }),
  fc.record({ kind: fc.constant('deep' as const), at: fc.nat(), value: fc.integer({ min: 20, max: 200 }) }),
  fc.record({ kind: fc.constant('drop' as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant('extra' as const),
    at: fc.nat(),
    key: fc.oneof(fc.constantFrom('__proto__', 'constructor', 'env', 'a\u0000b', ''), fc.string({ unit: 'binary', maxLength: 12 })),
    value: anyJson,
  }),
);

/** Applies one mutation to a JSON value (the index picks where, modulo the value's paths). */
export function mutate(v: Json, m: Mutation): Json {
  if (m.kind === 'none') return v;
  const all = paths(v);
  const pick = (filter: (p: Path) => boolean) => {
    const candidates = all.filter(filter);
    return candidates.length ? candidates[m.at % candidates.length] : undefined;
  };
  switch (m.kind) {
    case 'wrong_type':
    case 'nasty_string':
    case 'nasty_number':
    case 'nasty_date': {
      const wanted = m.kind === 'nasty_number' ? 'number' : m.kind === 'wrong_type' ? undefined : 'string';
      const at = pick((p) => p.length > 0 && (!wanted || typeof getAt(v, p) === wanted)) ?? [];
      return setAt(v, at, m.value);
    }
    case 'deep': {
      const at = pick((p) => p.length > 0) ?? [];
      let wrapped = getAt(v, at);
      for (let i = 0; i < (m.value as number); i += 1) wrapped = [wrapped];
      return setAt(v, at, wrapped);
    }
    case 'drop': {
      const at = pick((p) => p.length > 0);
      return at ? deleteAt(v, at) : v;
    }
    case 'extra': {
      const at = pick((p) => {
        const x = getAt(v, p);
        return !!x && typeof x === 'object' && !Array.isArray(x);
      });
      if (!at) return v;
      const target = { ...(getAt(v, at) as Record<string, Json>) };
      Object.defineProperty(target, m.key, { value: m.value, enumerable: true, writable: true, configurable: true });
      return setAt(v, at, target);
    }
  }
}

/** Whole bodies that are not what anyone should send. */
export const rawBody: fc.Arbitrary<{ bytes: Buffer; contentType?: string }> = fc.oneof(
  fc
    .constantFrom(
      'hello',
      '{"a":',
      '{"a":1}}',
      '[1,2',
      'null',
      '""',
      '1e400',
      '{"a":1e400}',
      '{"a":"\\u0000"}',
      '{"a":"\\ud800"}',
      '{"a":1,"a":2}',
      '\ufeff{}',
      '{}'.padEnd(70_000, ' '),
      '{"__proto__":{"x":1}}',
      'true',
      '[]',
    )
    .map((t) => ({ bytes: Buffer.from(t), contentType: 'application/json' })),
  fc.uint8Array({ maxLength: 300 }).map((b) => ({ bytes: Buffer.from(b), contentType: 'application/json' })),
  fc
    .constantFrom(
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/json; charset=latin1',
      'application/xml',
      'multipart/form-data; boundary=x',
      undefined,
    )
    .map((contentType) => ({ bytes: Buffer.from('{"a":1}'), contentType })),
  fc.constant({
    bytes: Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xc3, 0x28, 0xed, 0xa0, 0x80]), Buffer.from('"}')]),
    contentType: 'application/json',
  }),
);

export const oddMethod = fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD');
export const oddPathSuffix = fc.constantFrom(
  '/x',
  '/',
  '//',
  '/%00',
  '/%FF',
  '/..',
  '/%2e%2e/%2e%2e',
  '/%E0%A4%A',
  `/${'a'.repeat(3000)}`,
  '/🙂',
  '?a=%00',
  '?limit=-1',
  '?limit=1e400',
  '?x=%ZZ',
  '#frag',
);
