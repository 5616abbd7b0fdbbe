/**
 * Property-based fuzzing of every operation of every surface, generated from the contracts and then broken.
 *
 * For each case fast-check picks an operation of the transfers API, the operator API, the marketplace surface
 * (supplier calls correctly signed, callbacks with the valid token), the driver API, the tracking page or the MCP
 * server (its own operations, and a JSON-RPC tools/call of each tool, its arguments from the schema the tool takes),
 * builds a request the contract accepts (with hints so that requests reach past "not found": real places, our fleet
 * codes, bookable dates, ids and confirmation tokens seen in earlier answers; and out to the ends of what the contract
 * allows, which the database must hold too: date-times of every year 0000–9999 with every offset and fractions of
 * any length, integers at and past int4 and int8, 1e308, -0, strings as long as allowed in any plane, empty and full
 * arrays, empty objects), then maybe breaks it: a wrong type, a missing or extra field, NUL, lone surrogates, every
 * Unicode plane, huge strings, 1e308, -0, 2^53+1, impossible dates and offsets, deep nesting, raw non-JSON or
 * non-UTF-8 bodies, wrong content types, odd methods and paths, missing credentials; and for a tool call its JSON-RPC
 * envelope too (wrong jsonrpc, no id, odd ids, unknown methods and tools, params or arguments not objects, batches,
 * huge strings, odd Accept headers). Every answer must hold these properties:
 *
 *   - no 5xx; every response has its X-Request-Id;
 *   - every error is in its surface's envelope with a documented code (the MCP server's: a JSON-RPC error with id
 *     null); every answer of POST /mcp is a JSON-RPC response, a tool's error with its documented code;
 *   - exactly one inbound audit row per request, with that request id (the MCP server's with surface 'mcp');
 *   - a rejected request (4xx; from the MCP server also a JSON-RPC error or a tool's error) changes no business table;
 *   - an offer never yields two bookings (also under concurrent attempts, fired now and then).
 *
 * FUZZ_RUNS cases (default 2,000; `npm run test:fuzz` 20,000). The seed is printed; FUZZ_SEED=<seed> replays a run.
 * The run is split in two shards (surfaces-1.fuzz.test.ts and surfaces-2.fuzz.test.ts, half the cases each, seeds
 * FUZZ_SEED and FUZZ_SEED + 1), each against a service and database of its own, so the two cores fuzz at once.
 */
import fc from 'fast-check';
import { test } from '@fast-check/jest';
import { setupServer } from 'msw/node';
import { http, HttpResponse } from 'msw';
import { startTestApp, OPERATOR_TOKEN, type TestApp } from '../support/test-app';
import { OPERATOR_AUTH_RULES } from '../../src/domain/operators/operator-auth';
import { operator } from '../support/fixtures';
import { MARKETPLACE_ENV } from '../support/marketplace';
import { ManualClock } from '../../src/shared/clock';
import { signMarketplaceRequest } from '../../src/shared/signing/marketplace-signature';
import { sampleMarketplaceOrder } from '../../harness/fixtures/marketplace-orders';
import { loadContract } from '../../src/http/surface';
import { TOOLS } from '../../src/http/mcp/tools';
import {
  contractOperations,
  contractSchema,
  hints,
  mutate,
  mutation,
  nastyString,
  oddMethod,
  oddPathSuffix,
  Pools,
  rawBody,
  valid,
  type ContractOperation,
  type Mutation,
} from './contract-arbitraries';

const RUNS = Number(process.env.FUZZ_RUNS ?? 2000);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
const NOW = new Date('2026-11-21T08:00:00Z');
const MP = `${MARKETPLACE_ENV.MARKETPLACE_URL}/apiin/${MARKETPLACE_ENV.MARKETPLACE_USER_ID}`;
const POOLED = ['offer_id', 'quote_id', 'booking_ref', 'partner_id', 'key_id', 'order_id', 'price_mark', 'vehicle_id', 'id', 'confirmation_token'];

/** The error codes each contract documents (its Error schema): an error with any other code breaks the contract. */
const documentedCodes = (file: string): string[] =>
  (loadContract(file) as unknown as { components: { schemas: { Error: { properties: { error: { properties: { code: { enum: string[] } } } } } } } }).components
    .schemas.Error.properties.error.properties.code.enum;
const TRANSFERS_CODES = documentedCodes('transfers-v1.yaml');
const OPS_CODES = documentedCodes('ops-v1.yaml');
const DRIVER_CODES = documentedCodes('driver-v1.yaml');
/** A tool's error codes (mcp.yaml's ToolError): the Transfers API's, and the MCP server's two. */
const TOOL_CODES = [...TRANSFERS_CODES, 'limit_exceeded', 'confirmation_invalid'];
/** What a well-behaved MCP client accepts (the Streamable HTTP transport asks for both). */
const MCP_ACCEPT = 'application/json, text/event-stream';

/** The arguments each MCP tool takes: the contracts' schemas its inputSchema is made of (src/http/mcp/*-tools.ts). */
const TOOL_INPUTS: Record<string, [file: string, schema: string]> = {
  find_place: ['mcp.yaml', 'FindPlaceInput'],
  quote_transfer: ['transfers-v1.yaml', 'QuoteRequest'],
  prepare_booking: ['transfers-v1.yaml', 'BookingRequest'],
  confirm_booking: ['mcp.yaml', 'ConfirmBookingInput'],
  get_booking: ['mcp.yaml', 'BookingRefInput'],
  list_bookings: ['mcp.yaml', 'ListBookingsInput'],
  preview_cancellation: ['mcp.yaml', 'BookingRefInput'],
  cancel_booking: ['mcp.yaml', 'CancelBookingInput'],
  amend_booking: ['mcp.yaml', 'AmendBookingInput'],
};

/**
 * How a tool call's JSON-RPC envelope is broken (its arguments are broken by the case's mutation, unless `whole`
 * says the mutation goes to the envelope instead).
 */
type RpcBreak =
  | { kind: 'none' | 'whole' | 'no_jsonrpc' | 'no_id' | 'no_arguments' }
  | { kind: 'jsonrpc' | 'id' | 'method' | 'params' | 'arguments' | 'tool' | 'meta'; value: unknown }
  | { kind: 'batch'; count: number }
  | { kind: 'huge'; where: 'argument' | 'method' | 'tool' | 'id' | 'extra'; size: number };

const anyJsonValue = fc.oneof(
  fc.constantFrom(null, true, false, 0, -0, 1.5, 2 ** 53 + 2, 1e308, -1, '', '0', [], {}, [1], { a: 1 }),
  nastyString.map((s) => s.slice(0, 300)),
  fc.jsonValue({ maxDepth: 2 }),
);
const rpcBreak: fc.Arbitrary<RpcBreak> = fc.oneof(
  { arbitrary: fc.constant({ kind: 'none' as const }), weight: 8 },
  { arbitrary: fc.constant({ kind: 'whole' as const }), weight: 2 },
  fc.constantFrom({ kind: 'no_jsonrpc' as const }, { kind: 'no_id' as const }, { kind: 'no_arguments' as const }),
  fc.record({ kind: fc.constant('jsonrpc' as const), value: fc.oneof(fc.constantFrom('1.0', '2', 2, 2.0, '2.0 ', ' 2.0', '3.0', null), anyJsonValue) }),
  fc.record({ kind: fc.constant('id' as const), value: anyJsonValue }),
  fc.record({
    kind: fc.constant('method' as const),
    value: fc.oneof(
      fc.constantFrom(
        'tools/cal',
        'TOOLS/CALL',
        'tools/call ',
        'tools/list',
        'initialize',
        'ping',
        'notifications/initialized',
        'notifications/cancelled',
        'resources/list',
        'resources/read',
        'prompts/list',
        'prompts/get',
        'completion/complete',
        'logging/setLevel',
        'tasks/get',
        'rpc.discover',
        '',
        '__proto__',
        'constructor',
        'hasOwnProperty',
      ),
      anyJsonValue,
    ),
  }),
  fc.record({ kind: fc.constant('params' as const), value: anyJsonValue }),
  fc.record({ kind: fc.constant('arguments' as const), value: anyJsonValue }),
  fc.record({
    kind: fc.constant('tool' as const),
    value: fc.oneof(fc.constantFrom('', 'nope', 'Quote_Transfer', 'quote_transfer ', '__proto__', 'constructor', 'toString', 'hasOwnProperty'), anyJsonValue),
  }),
  fc.record({ kind: fc.constant('meta' as const), value: fc.oneof(fc.record({ progressToken: anyJsonValue }), anyJsonValue) }),
  fc.record({ kind: fc.constant('batch' as const), count: fc.integer({ min: 0, max: 4 }) }),
  fc.record({
    kind: fc.constant('huge' as const),
    where: fc.constantFrom('argument', 'method', 'tool', 'id', 'extra'),
    size: fc.constantFrom(1_000, 30_000, 63_000, 65_600, 200_000),
  }),
);
/** The Accept header of a broken MCP request: '' sends none. */
const oddAccept = fc.constantFrom(
  '',
  'application/json',
  'text/event-stream',
  '*/*',
  'text/html',
  'application/*, text/*',
  `${MCP_ACCEPT}; q=0`,
  'application/json;q=0.1, text/event-stream',
);
const BUSINESS_TABLES = [
  'quotes',
  'offers',
  'bookings',
  'jobs',
  'partners',
  'api_keys',
  'partner_vehicle_codes',
  'marketplace_orders',
  'price_marks',
  'outbox',
  'vehicles',
  'drivers',
  'job_locations',
];

/** Orders the fake marketplace knows, by id: the re-fetch behind a callback answers them, 404 otherwise. */
const knownOrders = new Map<string, unknown>();
const server = setupServer(
  http.get(`${MP}/booking/:orderId/`, ({ params }) => {
    const order = knownOrders.get(String(params.orderId));
    return order ? HttpResponse.json({ status: 'OK', order }) : HttpResponse.json({ status: 'ERROR', error: 'order not found' }, { status: 404 });
  }),
);

type Surface = 'transfers' | 'ops' | 'marketplace' | 'driver' | 'tracking' | 'mcp';
interface Target {
  surface: Surface;
  mount: string;
  op: ContractOperation;
  /** A tools/call of the MCP server (op is postMcp): the tool's name and the schema of its arguments. */
  tool?: { name: string; args: Record<string, any> };
}

interface Case {
  target: Target;
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  headers: Record<string, unknown>;
  body: unknown;
  mutation: Mutation;
  raw: { bytes: Buffer; contentType?: string } | null;
  method: string | null;
  suffix: string | null;
  nastyParam: string | null;
  auth: 'good' | 'live' | 'none' | 'wrong';
  /** MCP only: how the tool call's envelope is broken (tool targets), and an odd Accept header (null: the usual). */
  rpc: { id: string | number; breakage: RpcBreak } | null;
  accept: string | null;
}

/**
 * A value of `arb` one time in `n`, null otherwise. (Not fc.option, whose `freq` is the other way round: null one
 * time in `freq`. With it, nearly every broken request had a raw body, an odd method and an odd path at once, and
 * what the mutations break was hardly ever read.)
 */
const oneIn = <T>(n: number, arb: fc.Arbitrary<T>): fc.Arbitrary<T | null> =>
  fc.oneof({ arbitrary: fc.constant(null), weight: n - 1 }, { arbitrary: arb, weight: 1 });

/** The JSON object a request sent, or {}. */
const sentObject = (bytes: Buffer | undefined): Record<string, unknown> => {
  try {
    const v: unknown = bytes ? JSON.parse(bytes.toString('utf8')) : undefined;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
};

const safeSegment = (v: unknown) => {
  const s = String(v);
  try {
    return encodeURIComponent(s);
  } catch {
    return '%ED%A0%80'; // a lone surrogate has no UTF-8 form: send the bytes of one
  }
};

/**
 * One shard of the run: `shard` (from 0) of `shards`, with its share of FUZZ_RUNS and the seed FUZZ_SEED + shard,
 * against a service and database of its own. Each shard is a test file of its own, which jest runs beside the other.
 */
export function fuzzSurfaces(shard: number, shards: number): void {
  const runs = Math.floor(RUNS / shards) + (shard < RUNS % shards ? 1 : 0);
  const seed = SEED + shard;
  jest.setTimeout(120_000 + runs * 250);

  describe(`Fuzzing every surface from its contract (shard ${shard + 1} of ${shards})`, () => {
    let app: TestApp;
    let targets: Target[];
    let partner: Awaited<ReturnType<ReturnType<typeof operator>['partnerWithKeys']>>;
    let driverToken: string;
    const pools = new Pools();
    let counts: Record<string, number>;
    let sent = 0;
    let built: fc.Arbitrary<Case> | undefined;

    const businessCounts = async () => {
      const [row] = (await app.db.raw(`select ${BUSINESS_TABLES.map((t) => `(select count(*) from ${t})::int as ${t}`).join(', ')}`)).rows ?? [];
      return row as Record<string, number>;
    };

    beforeAll(async () => {
      console.log(`fuzz shard ${shard + 1}/${shards}: ${runs} cases, seed ${seed} (replay it with FUZZ_SEED=${SEED})`);
      // Every tool the server lists is fuzzed, with the arguments its inputSchema is made of.
      expect(Object.keys(TOOL_INPUTS).sort()).toEqual(TOOLS.map((t) => t.name).sort());
      const mcpOps = await contractOperations('mcp.yaml');
      targets = [
        ...(await contractOperations('transfers-v1.yaml')).map((op) => ({ surface: 'transfers' as const, mount: '/transfers/v1', op })),
        ...(await contractOperations('ops-v1.yaml')).map((op) => ({ surface: 'ops' as const, mount: '/ops/v1', op })),
        ...(await contractOperations('marketplace-inbound.yaml')).map((op) => ({ surface: 'marketplace' as const, mount: '/marketplace', op })),
        // The reference console's pages: public, in the Transfers envelope.
        ...(await contractOperations('console.yaml')).map((op) => ({ surface: 'transfers' as const, mount: '/transfers/v1/console', op })),
        ...(await contractOperations('driver-v1.yaml')).map((op) => ({ surface: 'driver' as const, mount: '/driver/v1', op })),
        ...(await contractOperations('tracking.yaml')).map((op) => ({ surface: 'tracking' as const, mount: '/t', op })),
        // The MCP server's own operations (its paths are absolute), and a tools/call of each tool.
        ...mcpOps.map((op) => ({ surface: 'mcp' as const, mount: '', op })),
        ...(await Promise.all(
          Object.entries(TOOL_INPUTS).map(async ([name, [file, schema]]) => ({
            surface: 'mcp' as const,
            mount: '',
            op: mcpOps.find((o) => o.operationId === 'postMcp')!,
            tool: { name, args: await contractSchema(file, schema) },
          })),
        )),
      ];
      built = caseArbitrary();
      // The service last: reading the contracts and building the cases keep the event loop busy for seconds on a
      // busy machine, and a keep-alive connection left idle that long can be closed by the server just as the
      // first case is sent on it (ECONNRESET, not the service's fault).
      server.listen({ onUnhandledRequest: 'bypass' });
      // Sandbox-Simulate: slow still waits on a timer, 5 ms instead of the other tests' 200 (nothing here times it).
      app = await startTestApp({ clock: new ManualClock(NOW), env: { ...MARKETPLACE_ENV, SANDBOX_SLOW_MS: '5' }, outboxWorker: false });
      partner = await operator(app.url).partnerWithKeys('Fuzz Travel');
      driverToken = (await operator(app.url).driverToken((await operator(app.url).driver('Fuzz Driver')).driver_id)).token;
      pools.deny(partner.testKeyId);
      pools.deny(partner.liveKeyId);
      counts = await businessCounts();
    });
    afterAll(async () => {
      await app?.close();
      server.close();
    });

    function caseArbitrary(): fc.Arbitrary<Case> {
      const h = hints(pools, NOW);
      h['Idempotency-Key'] = fc.oneof(fc.constantFrom('fz-1', 'fz-2', 'fz-3'), fc.stringMatching(/^[\x21-\x7E]{1,40}$/));
      // The protocol versions the SDK speaks, now and then any other.
      h['MCP-Protocol-Version'] = fc.oneof(
        { arbitrary: fc.constantFrom('2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'), weight: 5 },
        fc.string({ maxLength: 32 }),
      );
      // find_place's text: a place we know, mostly.
      const toolHints = { ...h, query: h.name };
      const weighted = targets.flatMap((t) =>
        t.tool || ['createQuote', 'createBooking', 'searchVehicles', 'createOrder'].includes(t.op.operationId) ? [t, t, t, t] : [t],
      );
      const perTarget = new Map(targets.map((t) => [t, targetCase(t, t.tool ? toolHints : h)]));
      return fc.constantFrom(...weighted).chain((t) => perTarget.get(t)!);
    }

    /** A case of one operation: 40% a request the contract accepts, with good credentials; the rest broken somehow. */
    function targetCase(target: Target, h: ReturnType<typeof hints>): fc.Arbitrary<Case> {
      const parts = {
        target: fc.constant(target),
        // Parameters travel in the URL and headers, whose sizes the server limits: long, not as long as a body's.
        params: fc.record(Object.fromEntries(target.op.pathParams.map((p) => [p.name, valid(p.schema, h, p.name, 0, 1000)]))),
        query: fc.record(Object.fromEntries(target.op.queryParams.map((p) => [p.name, valid(p.schema, h, p.name, 0, 1000)])), { requiredKeys: [] }),
        headers: fc.record(Object.fromEntries(target.op.headerParams.map((p) => [p.name, valid(p.schema, h, p.name, 0, 1000)])), { requiredKeys: [] }),
        body: target.tool ? valid(target.tool.args, h) : target.op.body ? valid(target.op.body, h) : fc.constant(undefined),
      };
      const rpcId = fc.oneof(fc.integer({ min: 0, max: 1_000_000 }), fc.string({ minLength: 1, maxLength: 20 }));
      const clean = fc.record({
        ...parts,
        mutation: fc.constant({ kind: 'none' as const }),
        raw: fc.constant(null),
        method: fc.constant(null),
        suffix: fc.constant(null),
        nastyParam: fc.constant(null),
        auth: fc.constant('good' as const),
        rpc: target.tool ? fc.record({ id: rpcId, breakage: fc.constant<RpcBreak>({ kind: 'none' }) }) : fc.constant(null),
        accept: fc.constant(null),
      });
      const broken = fc.record({
        ...parts,
        mutation,
        raw: oneIn(12, rawBody),
        method: oneIn(15, oddMethod),
        suffix: oneIn(15, oddPathSuffix),
        nastyParam: oneIn(
          12,
          nastyString.map((s) => s.slice(0, 300)),
        ),
        auth: fc.constantFrom<Case['auth']>('good', 'good', 'good', 'good', 'good', 'good', 'good', 'live', 'none', 'wrong'),
        rpc: target.tool ? fc.record({ id: rpcId, breakage: rpcBreak }) : fc.constant(null),
        accept: target.surface === 'mcp' ? oneIn(10, oddAccept) : fc.constant(null),
      });
      return fc.oneof({ arbitrary: clean, weight: 2 }, { arbitrary: broken, weight: 3 }) as fc.Arbitrary<Case>;
    }

    function build(c: Case) {
      const { surface, mount, op } = c.target;
      const params = { ...c.params };
      if (c.nastyParam !== null && op.pathParams.length) params[op.pathParams[0].name] = c.nastyParam;
      let path = mount + op.path.replace(/\{([^}]+)\}/g, (_, n: string) => safeSegment(params[n]));
      const query = new URLSearchParams(
        Object.entries(c.query)
          .filter(([, v]) => v !== undefined)
          .map(([k, v]) => [k, String(v)] as [string, string]),
      ).toString();
      const method = c.method ?? op.method;
      path += c.suffix ?? '';
      if (query) path += `${path.includes('?') ? '&' : '?'}${query}`;
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(c.headers)) if (v !== undefined) headers[k] = String(v).replace(/[^\x20-\x7e]/g, '?');
      let bytes: Buffer | undefined;
      if (method !== 'GET' && method !== 'HEAD') {
        if (c.raw) {
          bytes = c.raw.bytes;
          if (c.raw.contentType) headers['Content-Type'] = c.raw.contentType;
        } else if (c.target.tool && c.rpc) {
          bytes = Buffer.from(JSON.stringify(toolCall(c.target.tool.name, c.rpc, c.body, c.mutation)) ?? 'null');
          headers['Content-Type'] = 'application/json';
        } else if (c.body !== undefined) {
          bytes = Buffer.from(JSON.stringify(mutate(c.body, c.mutation)) ?? 'null');
          headers['Content-Type'] = 'application/json';
        }
      }
      if (surface === 'mcp' && c.accept !== '') headers.Accept = c.accept ?? MCP_ACCEPT;
      const auth = c.auth;
      if ((surface === 'transfers' || surface === 'mcp') && auth !== 'none')
        headers.Authorization = `Bearer ${auth === 'live' ? partner.liveKey : auth === 'wrong' ? partner.testKey.slice(0, -3) + 'XYZ' : partner.testKey}`;
      if (surface === 'driver' && auth !== 'none')
        headers.Authorization = `Bearer ${auth === 'wrong' ? 'drv_wrong_token_000000000000000000000000000' : driverToken}`;
      if (surface === 'ops' && auth !== 'none') headers.Authorization = `Bearer ${auth === 'wrong' ? 'op_wrong_token_0000000000' : OPERATOR_TOKEN}`;
      if (surface === 'marketplace' && auth !== 'none') {
        if (op.operationId === 'receiveCallback') headers['X-Callback-Token'] = auth === 'wrong' ? 'nope' : MARKETPLACE_ENV.MARKETPLACE_CALLBACK_TOKEN;
        else {
          const addressed = `${MARKETPLACE_ENV.MARKETPLACE_IN_URL}${path.slice(mount.length)}`;
          headers.PrivateKey = signMarketplaceRequest(
            addressed,
            bytes ?? Buffer.alloc(0),
            auth === 'wrong' ? 'wrong-key' : MARKETPLACE_ENV.MARKETPLACE_PRIVATE_KEY,
          );
        }
      }
      return { method, path, headers, bytes };
    }

    /** A tools/call of the tool with these arguments, broken as the case says. */
    function toolCall(tool: string, rpc: NonNullable<Case['rpc']>, args: unknown, m: Mutation): unknown {
      const b = rpc.breakage;
      const message: Record<string, unknown> = {
        jsonrpc: '2.0',
        id: rpc.id,
        method: 'tools/call',
        params: { name: tool, arguments: b.kind === 'whole' ? args : mutate(args, m) },
      };
      const params = message.params as Record<string, unknown>;
      switch (b.kind) {
        case 'none':
          return message;
        case 'whole':
          return mutate(message, m);
        case 'no_jsonrpc':
          delete message.jsonrpc;
          return message;
        case 'no_id':
          delete message.id;
          return message;
        case 'no_arguments':
          delete params.arguments;
          return message;
        case 'jsonrpc':
        case 'id':
        case 'method':
        case 'params':
          message[b.kind] = b.value;
          return message;
        case 'arguments':
          params.arguments = b.value;
          return message;
        case 'tool':
          params.name = b.value;
          return message;
        case 'meta':
          params._meta = b.value;
          return message;
        case 'batch':
          return Array.from({ length: b.count }, (_, i) => ({ ...message, id: typeof rpc.id === 'number' ? rpc.id + i : `${rpc.id}-${i}` }));
        case 'huge': {
          const huge = 'x'.repeat(b.size);
          if (b.where === 'argument')
            return { ...message, params: { ...params, arguments: mutate(params.arguments, { kind: 'nasty_string', at: b.size, value: huge }) } };
          if (b.where === 'tool') return { ...message, params: { ...params, name: huge } };
          if (b.where === 'extra') return { ...message, params: { ...params, arguments: { ...(params.arguments as object), [huge.slice(0, 64)]: huge } } };
          return { ...message, [b.where]: huge };
        }
      }
    }

    async function send(req: { method: string; path: string; headers: Record<string, string>; bytes?: Buffer }) {
      const res = await fetch(`${app.url}${req.path}`, { method: req.method, headers: req.headers, body: req.bytes });
      const text = await res.text();
      let body: any;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = undefined;
      }
      sent += 1;
      return { status: res.status, headers: res.headers, text, body };
    }

    /** The surface a path lands on: the operator API, its console and the driver app answer in the operator envelope. */
    function surfaceAt(landed: string): Surface {
      // Express mounts /mcp and the protected resource documents as prefixes (and without regard to case).
      const lower = landed.toLowerCase();
      if (['/mcp', '/.well-known/oauth-protected-resource'].some((m) => lower === m || lower.startsWith(`${m}/`))) return 'mcp';
      if (landed === '/ops' || landed.startsWith('/ops/')) return 'ops';
      if (landed.startsWith('/marketplace')) return 'marketplace';
      if (landed === '/driver/v1' || landed.startsWith('/driver/v1/')) return 'driver';
      if (landed === '/driver' || landed.startsWith('/driver/')) return 'ops';
      if (landed === '/t' || landed.startsWith('/t/')) return 'tracking';
      return 'transfers';
    }

    function checkEnvelope(surface: Surface, status: number, body: any): string | null {
      if (status < 400) return null;
      if (surface === 'marketplace') return body?.status === 'ERROR' && typeof body.error === 'string' ? null : 'not the marketplace error envelope';
      // The tracking page answers a traveller's browser in plain text.
      if (surface === 'tracking') return body === undefined ? null : 'tracking refusal not in plain text';
      // The MCP server refuses in JSON-RPC's words: an error response with id null.
      if (surface === 'mcp')
        return body?.jsonrpc === '2.0' && body.id === null && Number.isInteger(body.error?.code) && typeof body.error.message === 'string'
          ? null
          : 'not a JSON-RPC error envelope with id null';
      const codes = surface === 'ops' ? OPS_CODES : surface === 'driver' ? DRIVER_CODES : TRANSFERS_CODES;
      const e = body?.error;
      if (!e || !codes.includes(e.code) || typeof e.message !== 'string' || typeof e.details !== 'object')
        return 'not the error envelope with a documented code';
      if (surface === 'transfers' && !('env' in body)) return 'transfers error without env';
      return null;
    }

    /** One JSON-RPC response of the MCP server; a tool's error carries its code. Null when it holds. */
    function checkRpcAnswer(a: any): string | null {
      if (!a || typeof a !== 'object' || Array.isArray(a) || a.jsonrpc !== '2.0') return 'not a JSON-RPC 2.0 response';
      if ('result' in a === 'error' in a) return 'a JSON-RPC response needs a result or an error, not both';
      if (!(typeof a.id === 'string' || Number.isInteger(a.id) || a.id === null)) return 'a JSON-RPC response id that is neither string, integer nor null';
      if ('error' in a) {
        if (!Number.isInteger(a.error?.code) || typeof a.error.message !== 'string') return 'a JSON-RPC error without integer code and message';
        // JSON-RPC's internal error: something threw where the server should have answered (a 5xx in a 200). Params
        // the SDK's own schema refuses are -32602 (src/http/mcp/params.ts).
        return a.error.code === -32603 ? `a JSON-RPC internal error (-32603): ${String(a.error.message).slice(0, 200)}` : null;
      }
      if (!a.result || typeof a.result !== 'object') return 'a JSON-RPC result that is not an object';
      if (a.result.isError === true) {
        const code = a.result.structuredContent?.error?.code;
        if (typeof code !== 'string' || typeof a.result.structuredContent.error.message !== 'string')
          return 'a tool error without structuredContent.error code and message';
        if (!TOOL_CODES.includes(code)) return `a tool error with the undocumented code ${code}`;
        // A Transfers operation's 5xx, passed on as a tool's result, is still a 5xx.
        if (code === 'internal_error') return 'a tool error internal_error (a 5xx inside the tool call)';
      }
      return null;
    }

    /**
     * An MCP answer that got past the HTTP layer: a POST's is the JSON-RPC response (one, or one per message of a
     * batch), or 202 and nothing for notifications; the metadata documents are documents. Null when it holds.
     */
    function checkMcpAnswer(c: Case, method: string, landed: string, r: { status: number; text: string; body: any }): string | null {
      if (r.status >= 400 || method === 'HEAD') return null;
      const lower = landed.toLowerCase().replace(/\/$/, '');
      if (method === 'GET' && lower.startsWith('/.well-known/oauth-protected-resource') && r.status === 200)
        return typeof r.body?.resource === 'string' && Array.isArray(r.body.bearer_methods_supported) ? null : 'not the protected resource metadata';
      if (method !== 'POST' || lower !== '/mcp') return null;
      if (r.status === 202) return r.text === '' ? null : '202 with a body';
      if (r.status !== 200) return `POST /mcp answered ${r.status}`;
      const answers = Array.isArray(r.body) ? r.body : [r.body];
      if (!answers.length) return 'an empty batch answered';
      for (const a of answers) {
        const wrong = checkRpcAnswer(a);
        if (wrong) return wrong;
      }
      // A tool call whose envelope was whole answers to its id.
      const b = c.rpc?.breakage.kind;
      if (c.rpc && !c.raw && (b === 'none' || b === 'arguments' || b === 'no_arguments' || b === 'tool' || b === 'meta') && r.body?.id !== c.rpc.id)
        return `answered id ${JSON.stringify(r.body?.id)} to id ${JSON.stringify(c.rpc.id)}`;
      return null;
    }

    /** Whether the MCP server refused what the request asked (a JSON-RPC error, or a tool's error). */
    const mcpRefused = (body: unknown) =>
      (Array.isArray(body) ? body : [body]).some((a: any) => a && typeof a === 'object' && ('error' in a || a.result?.isError === true));

    /** Several bookings of one offer at once, with different keys and references: at most one 201. */
    async function race(): Promise<string | null> {
      // The fuzzing may have paused the partner (operator pause or its sandbox helper) or limited its rate: undo all first.
      await send({ method: 'POST', path: `/ops/v1/partners/${partner.partner_id}/resume`, headers: { Authorization: `Bearer ${OPERATOR_TOKEN}` } });
      await send({
        method: 'PUT',
        path: `/ops/v1/partners/${partner.partner_id}/rate-limit`,
        headers: { Authorization: `Bearer ${OPERATOR_TOKEN}`, 'Content-Type': 'application/json' },
        bytes: Buffer.from(JSON.stringify({ env: 'sandbox', requests_per_second: null })),
      });
      await send({ method: 'POST', path: '/transfers/v1/test_helpers/account/resume', headers: { Authorization: `Bearer ${partner.testKey}` } });
      const q = await send({
        method: 'POST',
        path: '/transfers/v1/quotes',
        headers: { Authorization: `Bearer ${partner.testKey}`, 'Content-Type': 'application/json' },
        bytes: Buffer.from(
          JSON.stringify({ pickup: { name: 'Kandy' }, dropoff: { name: 'Galle' }, pickup_datetime: '2026-12-05T09:30:00+05:30', passengers: { adults: 1 } }),
        ),
      });
      const offer = q.body?.offers?.[0];
      if (!offer) return `race set-up quote answered ${q.status}`;
      const replies = await Promise.all(
        Array.from({ length: 5 }, (_, i) =>
          send({
            method: 'POST',
            path: '/transfers/v1/bookings',
            headers: { Authorization: `Bearer ${partner.testKey}`, 'Content-Type': 'application/json', 'Idempotency-Key': `race-${sent}-${i}` },
            bytes: Buffer.from(
              JSON.stringify({
                quote_id: q.body.quote_id,
                offer_id: offer.offer_id,
                partner_reference: `RACE-${sent}-${i}`,
                passenger: { first_name: 'A', last_name: 'B' },
                passengers: { adults: 1 },
              }),
            ),
          }),
        ),
      );
      const created = replies.filter((r) => r.status === 201).length;
      if (created !== 1 || replies.some((r) => r.status >= 500)) return `race: ${replies.map((r) => r.status).join(',')}`;
      counts = await businessCounts();
      return null;
    }

    // Built once, in beforeAll (after it has read the contracts, before the service starts); pooled ids are read
    // lazily by the hints, so every case can use the ids found so far.
    const anyCase = fc.constant(null).chain(() => (built ??= caseArbitrary()));
    let cases = 0;

    test.prop([anyCase], { numRuns: runs, seed, endOnFailure: true })(
      `when ${runs} generated and broken requests hit every surface, then no 5xx, every error in its envelope, one audit row each, and rejected requests change nothing`,
      async (c) => {
        cases += 1;
        if (cases % 97 === 0) expect(await race()).toBeNull();
        const req = build(c);
        const r = await send(req);
        const tool = c.target.tool ? `, tool ${c.target.tool.name}, envelope ${c.rpc?.breakage.kind}` : '';
        const accept = c.accept !== null ? `, accept ${JSON.stringify(c.accept)}` : '';
        const where = `${req.method} ${req.path.slice(0, 200)} (${c.target.op.operationId}${tool}, auth ${c.auth}, mutation ${c.mutation.kind}${c.raw ? ', raw body' : ''}${accept}) → ${r.status} ${r.text.slice(0, 300)}`;
        // A 503 the request asked for (Sandbox-Simulate with a test key) is the answer it wanted, not a fault of ours.
        const simulated = r.headers.get('sandbox-simulated') === 'service_unavailable' && req.headers['Sandbox-Simulate'] === 'service_unavailable';
        expect({ where, status: r.status < 500 || simulated }).toEqual({ where, status: true });
        const requestId = r.headers.get('x-request-id');
        expect({ where, requestId: !!requestId }).toEqual({ where, requestId: true });
        // Where the request landed (the URL parser resolves dot segments, %2e%2e included): that surface's envelope.
        const landed = new URL(`${app.url}${req.path}`).pathname;
        // The operator API and its console (/ops/) answer in the operator envelope.
        const surface = surfaceAt(landed);
        if (req.method !== 'HEAD') expect({ where, envelope: checkEnvelope(surface, r.status, r.body) }).toEqual({ where, envelope: null });
        if (surface === 'mcp') expect({ where, answer: checkMcpAnswer(c, req.method, landed, r) }).toEqual({ where, answer: null });
        const audited = await app.db('audit_log').where({ requestId, direction: 'inbound' }).select('surface');
        expect({ where, audited: audited.length }).toEqual({ where, audited: 1 });
        // The MCP server's requests are audited as its own (a tool call's Transfers operation adds no row of its own).
        if (surface === 'mcp') expect({ where, auditedAs: audited[0].surface }).toEqual({ where, auditedAs: 'mcp' });
        // The client's wrong-token count kept below the slowdown: past it every wrong token waits up to 4 s (most of a
        // shard's time when left to climb). The slowdown and the refusal have their own tests (wrong-tokens.int.test.ts).
        if (c.auth === 'wrong')
          await app
            .db('operator_auth_failures')
            .where('failures', '>=', OPERATOR_AUTH_RULES.slowFrom - 1)
            .del();
        // A refusal (an HTTP error; from the MCP server also a JSON-RPC error or a tool's error) changes nothing.
        if (r.status >= 400 || (surface === 'mcp' && mcpRefused(r.body))) expect({ where, tables: await businessCounts() }).toEqual({ where, tables: counts });
        else {
          pools.harvest(r.body, POOLED);
          // The marketplace's record of an order is what was sent (dates, prices and all), for callbacks to re-fetch.
          if (c.target.op.operationId === 'createOrder' && r.body?.order_id)
            knownOrders.set(r.body.order_id, { ...sampleMarketplaceOrder(r.body.order_id), ...sentObject(req.bytes), order_id: r.body.order_id, state: 'new' });
          if (c.target.op.operationId === 'listOutbox') for (const m of r.body?.data ?? []) pools.add('outbox_id', m.id);
          counts = await businessCounts();
        }
      },
    );

    it('when the fuzzing is over, then no offer was booked twice, every production booking has its job, and no sandbox one has', async () => {
      expect(cases).toBe(runs);
      const doubled = await app.db('bookings').select('offer_id').count({ n: '*' }).groupBy('offer_id').havingRaw('count(*) > 1');
      expect(doubled).toEqual([]);
      const orphans = await app
        .db('bookings as b')
        .leftJoin('jobs as j', function join() {
          this.on('j.source_ref', '=', 'b.booking_ref').andOnVal('j.source', '=', 'partner_booking');
        })
        .where('b.env', 'production')
        .whereNull('j.job_id')
        .select('b.booking_ref');
      expect(orphans).toEqual([]);
      expect(await app.db('jobs').where({ env: 'sandbox' })).toEqual([]);
      console.log(`fuzz shard ${shard + 1}/${shards}: ${cases} cases, ${sent} requests sent, every property held (FUZZ_SEED=${SEED})`);
    });
  });
}
