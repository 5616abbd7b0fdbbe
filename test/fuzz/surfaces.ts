/**
 * Property-based fuzzing of every operation of every surface, generated from the contracts and then broken.
 *
 * For each case fast-check picks an operation of the transfers API, the operator API or the marketplace surface
 * (supplier calls correctly signed, callbacks with the valid token), builds a request the contract accepts (with
 * hints so that requests reach past "not found": real places, our fleet codes, bookable dates, ids seen in earlier
 * answers; and out to the ends of what the contract allows, which the database must hold too: date-times of every
 * year 0000–9999 with every offset and fractions of any length, integers at and past int4 and int8, 1e308, -0,
 * strings as long as allowed in any plane, empty and full arrays, empty objects), then maybe breaks it: a wrong type,
 * a missing or extra field, NUL, lone surrogates, every Unicode plane, huge strings, 1e308, -0, 2^53+1, impossible
 * dates and offsets, deep nesting, raw non-JSON or non-UTF-8 bodies, wrong content types, odd methods and paths,
 * missing credentials. Every answer must hold these properties:
 *
 *   - no 5xx; every response has its X-Request-Id;
 *   - every error is in its surface's envelope with a documented code;
 *   - exactly one inbound audit row per request, with that request id;
 *   - a rejected request (4xx) changes no business table;
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
import { operator } from '../support/fixtures';
import { MARKETPLACE_ENV } from '../support/marketplace';
import { ManualClock } from '../../src/shared/clock';
import { signMarketplaceRequest } from '../../src/shared/signing/marketplace-signature';
import { sampleMarketplaceOrder } from '../../harness/fixtures/marketplace-orders';
import { loadContract } from '../../src/http/surface';
import {
  contractOperations,
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
const POOLED = ['offer_id', 'quote_id', 'booking_ref', 'partner_id', 'key_id', 'order_id', 'price_mark', 'vehicle_id', 'id'];

/** The error codes each contract documents (its Error schema): an error with any other code breaks the contract. */
const documentedCodes = (file: string): string[] =>
  (loadContract(file) as unknown as { components: { schemas: { Error: { properties: { error: { properties: { code: { enum: string[] } } } } } } } }).components
    .schemas.Error.properties.error.properties.code.enum;
const TRANSFERS_CODES = documentedCodes('transfers-v1.yaml');
const OPS_CODES = documentedCodes('ops-v1.yaml');
const DRIVER_CODES = documentedCodes('driver-v1.yaml');
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

type Surface = 'transfers' | 'ops' | 'marketplace' | 'driver' | 'tracking';
interface Target {
  surface: Surface;
  mount: string;
  op: ContractOperation;
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
}

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

    const businessCounts = async () => {
      const [row] = (await app.db.raw(`select ${BUSINESS_TABLES.map((t) => `(select count(*) from ${t})::int as ${t}`).join(', ')}`)).rows ?? [];
      return row as Record<string, number>;
    };

    beforeAll(async () => {
      console.log(`fuzz shard ${shard + 1}/${shards}: ${runs} cases, seed ${seed} (replay it with FUZZ_SEED=${SEED})`);
      server.listen({ onUnhandledRequest: 'bypass' });
      app = await startTestApp({ clock: new ManualClock(NOW), env: MARKETPLACE_ENV, outboxWorker: false });
      partner = await operator(app.url).partnerWithKeys('Fuzz Travel');
      driverToken = (await operator(app.url).driverToken((await operator(app.url).driver('Fuzz Driver')).driver_id)).token;
      pools.deny(partner.testKeyId);
      pools.deny(partner.liveKeyId);
      targets = [
        ...(await contractOperations('transfers-v1.yaml')).map((op) => ({ surface: 'transfers' as const, mount: '/transfers/v1', op })),
        ...(await contractOperations('ops-v1.yaml')).map((op) => ({ surface: 'ops' as const, mount: '/ops/v1', op })),
        ...(await contractOperations('marketplace-inbound.yaml')).map((op) => ({ surface: 'marketplace' as const, mount: '/marketplace', op })),
        // The reference console's pages: public, in the Transfers envelope.
        ...(await contractOperations('console.yaml')).map((op) => ({ surface: 'transfers' as const, mount: '/transfers/v1/console', op })),
        ...(await contractOperations('driver-v1.yaml')).map((op) => ({ surface: 'driver' as const, mount: '/driver/v1', op })),
        ...(await contractOperations('tracking.yaml')).map((op) => ({ surface: 'tracking' as const, mount: '/t', op })),
      ];
      counts = await businessCounts();
    });
    afterAll(async () => {
      await app?.close();
      server.close();
    });

    function caseArbitrary(): fc.Arbitrary<Case> {
      const h = hints(pools, NOW);
      h['Idempotency-Key'] = fc.oneof(fc.constantFrom('fz-1', 'fz-2', 'fz-3'), fc.stringMatching(/^[\x21-\x7E]{1,40}$/));
      const weighted = targets.flatMap((t) =>
        ['createQuote', 'createBooking', 'searchVehicles', 'createOrder'].includes(t.op.operationId) ? [t, t, t, t] : [t],
      );
      const perTarget = new Map(weighted.map((t) => [t, targetCase(t, h)]));
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
        body: target.op.body ? valid(target.op.body, h) : fc.constant(undefined),
      };
      const clean = fc.record({
        ...parts,
        mutation: fc.constant({ kind: 'none' as const }),
        raw: fc.constant(null),
        method: fc.constant(null),
        suffix: fc.constant(null),
        nastyParam: fc.constant(null),
        auth: fc.constant('good' as const),
      });
      const broken = fc.record({
        ...parts,
        mutation,
        raw: fc.option(rawBody, { freq: 12 }),
        method: fc.option(oddMethod, { freq: 15 }),
        suffix: fc.option(oddPathSuffix, { freq: 15 }),
        nastyParam: fc.option(
          nastyString.map((s) => s.slice(0, 300)),
          { freq: 12 },
        ),
        auth: fc.constantFrom<Case['auth']>('good', 'good', 'good', 'good', 'good', 'good', 'good', 'live', 'none', 'wrong'),
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
        } else if (c.body !== undefined) {
          bytes = Buffer.from(JSON.stringify(mutate(c.body, c.mutation)) ?? 'null');
          headers['Content-Type'] = 'application/json';
        }
      }
      const auth = c.auth;
      if (surface === 'transfers' && auth !== 'none')
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
      const codes = surface === 'ops' ? OPS_CODES : surface === 'driver' ? DRIVER_CODES : TRANSFERS_CODES;
      const e = body?.error;
      if (!e || !codes.includes(e.code) || typeof e.message !== 'string' || typeof e.details !== 'object')
        return 'not the error envelope with a documented code';
      if (surface === 'transfers' && !('env' in body)) return 'transfers error without env';
      return null;
    }

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

    // Built once, when the first case is drawn (after beforeAll has read the contracts); pooled ids are read lazily by
    // the hints, so every case can use the ids found so far.
    let built: fc.Arbitrary<Case> | undefined;
    const anyCase = fc.constant(null).chain(() => (built ??= caseArbitrary()));
    let cases = 0;

    test.prop([anyCase], { numRuns: runs, seed, endOnFailure: true })(
      `when ${runs} generated and broken requests hit every surface, then no 5xx, every error in its envelope, one audit row each, and rejected requests change nothing`,
      async (c) => {
        cases += 1;
        if (cases % 97 === 0) expect(await race()).toBeNull();
        const req = build(c);
        const r = await send(req);
        const where = `${req.method} ${req.path.slice(0, 200)} (${c.target.op.operationId}, auth ${c.auth}, mutation ${c.mutation.kind}${c.raw ? ', raw body' : ''}) → ${r.status} ${r.text.slice(0, 300)}`;
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
        const audited = await app.db('audit_log').where({ requestId, direction: 'inbound' }).count({ n: '*' });
        expect({ where, audited: Number(audited[0].n) }).toEqual({ where, audited: 1 });
        if (r.status >= 400) expect({ where, tables: await businessCounts() }).toEqual({ where, tables: counts });
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
