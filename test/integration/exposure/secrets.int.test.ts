import fc from 'fast-check';
import { capturedLogger } from '../../support/logs';
import { startTestApp, backend, OPERATOR_TOKEN, type TestApp } from '../../support/test-app';

const MARKETPLACE_PRIVATE_KEY = 'mp-private-key-8d1f0c2a9b7e4d5f6a3c';
const MARKETPLACE_CALLBACK_TOKEN = 'mp-callback-token-51e0a9c7d3b2f4e8';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const chars = (alphabet: string, n: number) => fc.array(fc.constantFrom(...alphabet), { minLength: n, maxLength: n }).map((a) => a.join(''));

/** A secret as a client might hold it, and the part of it that must never be stored or logged. */
interface Planted {
  secret: string;
  mustNotAppear: string;
}

const secrets: fc.Arbitrary<Planted> = fc.oneof(
  fc
    .tuple(fc.constantFrom('test', 'live'), chars('abcdefghijklmnopqrstuvwxyz0123456789', 12), chars(BASE62, 40))
    .map(([env, id, s]) => ({ secret: `svc_sk_${env}_${id}_${s}`, mustNotAppear: s })),
  fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => {
    const s = Buffer.from(b).toString('base64');
    return { secret: `whsec_${s}`, mustNotAppear: s };
  }),
  chars(BASE62, 40).map((s) => ({ secret: `op_${s}`, mustNotAppear: s })),
  chars(BASE62, 40).map((s) => ({ secret: `drv_${s}`, mustNotAppear: s })),
  fc.constantFrom(OPERATOR_TOKEN, MARKETPLACE_PRIVATE_KEY, MARKETPLACE_CALLBACK_TOKEN).map((s) => ({ secret: s, mustNotAppear: s })),
);

const places = [
  'path',
  'path-encoded',
  'query-named',
  'query-any',
  'query-encoded',
  'header-named',
  'header-any',
  'body-field',
  'body-nested',
  'body-key',
  'body-text',
  'body-form',
] as const;
type Place = (typeof places)[number];

const surfaces = [
  '/transfers/v1/bookings',
  '/transfers/v1/quotes',
  '/ops/v1/partners',
  '/marketplace/booking/update',
  '/transfers/v1/console/guide',
  '/nowhere',
  '/metrics',
];

function request(base: string, place: Place, secret: string, name: string): { path: string; init: RequestInit } {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  let path = base;
  let body: string | undefined;
  switch (place) {
    case 'path':
      path = `${base}/${secret}`;
      break;
    case 'path-encoded':
      path = `${base}/${encodeURIComponent(secret)}/x`;
      break;
    case 'query-named':
      path = `${base}?${name}=${encodeURIComponent(secret)}&limit=5`;
      break;
    case 'query-any':
      path = `${base}?q_${name}=${secret}`;
      break;
    case 'query-encoded':
      path = `${base}?note=${encodeURIComponent(`see ${secret} here`)}`;
      break;
    case 'header-named':
      headers[name] = secret;
      break;
    case 'header-any':
      headers[`X-Note-${name}`] = `sent ${secret}`;
      break;
    case 'body-field':
      body = JSON.stringify({ [name]: secret, pickup: { iata: 'CMB' } });
      break;
    case 'body-nested':
      body = JSON.stringify({ passenger: { notes: [`call me, ${secret}`] } });
      break;
    case 'body-key':
      body = JSON.stringify({ [secret]: true });
      break;
    case 'body-text':
      body = `{"broken": "${secret}"`;
      break;
    case 'body-form':
      headers['Content-Type'] = 'application/x-www-form-urlencoded';
      body = `a=1&${name}=${secret}&b=2`;
      break;
  }
  return { path, init: { method: body === undefined ? 'GET' : 'POST', headers, body } };
}

/** Credential-like names partners and proxies use for headers, query parameters and fields. */
const names = fc.constantFrom(
  'apikey',
  'api_key',
  'access_token',
  'token',
  'key',
  'secret',
  'password',
  'Authorization',
  'X-Api-Key',
  'client_secret',
  'signing_secret',
  'x-auth-token',
);

describe(`No secret reaches the audit log or a log line, wherever a client puts it (${backend})`, () => {
  let app: TestApp;
  const { logger, lines } = capturedLogger('debug');

  beforeAll(async () => {
    app = await startTestApp({ env: { MARKETPLACE_PRIVATE_KEY, MARKETPLACE_CALLBACK_TOKEN, LOG_LEVEL: 'debug' }, logger });
  });
  afterAll(() => app.close());

  it('when secrets of every kind are planted in paths, queries, headers and bodies of every surface, then none is found in the audit rows or the logs', async () => {
    const planted: Planted[] = [];
    await fc.assert(
      fc.asyncProperty(secrets, fc.constantFrom(...places), fc.constantFrom(...surfaces), names, async (s, place, base, name) => {
        planted.push(s);
        const { path, init } = request(base, place, s.secret, name);
        const r = await fetch(`${app.url}${path}`, init);
        await r.arrayBuffer();
        expect(r.status).toBeLessThan(500);
        const id = r.headers.get('x-request-id');
        const rows = await app.db('audit_log').where({ requestId: id });
        expect(rows).toHaveLength(1);
        const stored = JSON.stringify(rows[0]);
        if (stored.includes(s.mustNotAppear)) throw new Error(`${place} on ${base}: the secret is in the audit row: ${stored.slice(0, 400)}`);
      }),
      { numRuns: Number(process.env.SECRET_RUNS ?? 300), seed: Number(process.env.FC_SEED ?? Date.now() % 100000) },
    );
    // Nothing anywhere: every audit row (outbound calls included) and every log line.
    const all = JSON.stringify(await app.db('audit_log').select());
    const logs = lines.join('');
    const found = planted.filter((s) => all.includes(s.mustNotAppear) || logs.includes(s.mustNotAppear));
    expect(lines.length).toBeGreaterThanOrEqual(planted.length);
    expect(found.map((s) => s.secret)).toEqual([]);
    console.log(`secrets planted: ${planted.length}; found in the audit log or the logs: ${found.length} (${backend})`);
  });
});
