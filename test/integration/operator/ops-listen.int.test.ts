import { startTestApp, type TestApp } from '../../support/test-app';
import { client } from '../../support/http';
import { operator, OPS_HEADERS } from '../../support/fixtures';

/**
 * Where the operator surface is served. By default one port serves everything; with OPS_LISTEN the operator API
 * and its console are served on that address only, and the main port answers /ops as if it did not exist.
 */
describe('The operator surface on one port (default)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close());

  it('when OPS_LISTEN is unset, then the main port serves the operator API and the console next to the partner API', async () => {
    const call = client(app.url);
    expect(app.opsUrl).toBe(app.url);
    const ping = await call('GET', '/ops/v1/ping', { headers: OPS_HEADERS });
    expect(ping).toMatchObject({ status: 200, body: { ok: true, time: '2026-11-21T08:00:00.000Z', today: '2026-11-21' } });
    const page = await call('GET', '/ops/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(page.text).toContain('<title>Operator console');
    expect((await call('GET', '/ops')).text).toBe(page.text);
    expect((await call('GET', '/ops/assets/ops.js')).headers.get('content-type')).toBe('application/javascript; charset=utf-8');
    const missing = await call('GET', '/ops/assets/nope.js');
    expect(missing).toMatchObject({ status: 404, body: { error: { code: 'not_found', message: 'No console asset nope.js.', details: {} } } });
    expect((await call('GET', '/transfers/v1/ping')).status).toBe(401);
  });
});

describe('The operator surface on its own address (OPS_LISTEN)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ env: { OPS_LISTEN: '127.0.0.1:0' } });
  });
  afterAll(() => app.close());

  it('when OPS_LISTEN is set, then the operator API and console answer there, and the main port does not know /ops at all', async () => {
    expect(app.opsUrl).not.toBe(app.url);
    const main = client(app.url);
    const ops = client(app.opsUrl);

    // The main port: the partner API as before; /ops is an unknown route, even with the right token.
    expect((await main('GET', '/transfers/v1/ping')).status).toBe(401);
    for (const path of ['/ops/v1/ping', '/ops/v1/partners', '/ops/', '/ops/assets/ops.js']) {
      const r = await main('GET', path, { headers: OPS_HEADERS });
      expect({ path, status: r.status, body: r.body }).toEqual({
        path,
        status: 404,
        body: { env: null, error: { code: 'not_found', message: `No route GET ${path}. The Transfers API lives under /transfers/v1.`, details: {} } },
      });
    }
    const created = await main('POST', '/ops/v1/partners', { headers: OPS_HEADERS, body: { name: 'Through the front door' } });
    expect(created.status).toBe(404);
    expect(await app.db('partners').where({ name: 'Through the front door' })).toEqual([]);

    // The operator address: the API, the console, nothing else.
    expect((await ops('GET', '/ops/v1/ping', { headers: OPS_HEADERS })).body).toMatchObject({ ok: true, today: '2026-11-21' });
    expect((await operator(app.opsUrl).partner('Through the back office')).name).toBe('Through the back office');
    const page = await ops('GET', '/ops/');
    expect(page.status).toBe(200);
    // On its own address the page names its files from the root (PUBLIC_BASE_URL's path is the main port's).
    expect(page.text).toContain('src="/ops/assets/ops.js"');
    const partnerApi = await ops('GET', '/transfers/v1/ping');
    expect(partnerApi).toMatchObject({
      status: 404,
      body: { error: { code: 'not_found', message: expect.stringContaining('This address serves the operator API (/ops/v1) and its console (/ops/)') } },
    });
    expect((await ops('POST', '/marketplace/booking/', { body: {} })).status).toBe(404);

    // Every one of those requests has its audit row, on whichever listener it arrived.
    const rows = await operator(app.opsUrl).audit({ limit: '100' });
    const seen = rows.map((r) => `${r.surface} ${r.method} ${r.path} ${r.status}`);
    expect(seen).toEqual(
      expect.arrayContaining([
        'none GET /ops/v1/ping 404',
        'none POST /ops/v1/partners 404',
        'none GET /ops/ 404',
        'ops GET /ops/v1/ping 200',
        'ops-console GET /ops/ 200',
        'none GET /transfers/v1/ping 404',
        'transfers GET /transfers/v1/ping 401',
      ]),
    );
  });
});
