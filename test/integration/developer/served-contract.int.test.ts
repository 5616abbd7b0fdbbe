import yaml from 'js-yaml';
import { createHash } from 'node:crypto';
import { operator } from '../../support/fixtures';
import { loadContract } from '../../../src/http/surface';
import { useTestApp } from '../../support/use-test-app';

const PUBLIC_BASE_URL = 'https://transfers.example.lk';

/** The contract's operations as "METHOD /path" (path templates as written). */
function operationsOf(doc: { paths: Record<string, Record<string, unknown>> }): string[] {
  return Object.entries(doc.paths)
    .flatMap(([p, ops]) =>
      Object.keys(ops)
        .filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
        .map((m) => `${m.toUpperCase()} ${p}`),
    )
    .sort();
}

describe('The Transfers contract, served by the deployment', () => {
  const svc = useTestApp({ env: { PUBLIC_BASE_URL } });

  it('when GET /openapi.json is asked without a key, then the contract comes back naming this deployment, examples inlined, and is audited by digest', async () => {
    const r = await svc.call('GET', '/transfers/v1/openapi.json');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(r.headers.get('cache-control')).toBe('public, max-age=300');
    expect(r.body.servers[0].url).toBe(`${PUBLIC_BASE_URL}/transfers/v1`);
    expect(operationsOf(r.body)).toEqual(operationsOf(loadContract('transfers-v1.yaml') as never));
    // `example: {$ref}` (our contracts' shorthand, which renderers do not follow) is inlined: the real output shows.
    expect(r.text).not.toMatch(/"example":\{"\$ref"/);
    expect(r.body.paths['/bookings/{booking_ref}'].get.responses['200'].content['application/json'].example).toMatchObject({ booking_ref: 'GM32DFCW' });

    const [row] = await operator(svc.app.url).audit({ request_id: r.headers.get('x-request-id')! });
    expect(row).toMatchObject({ surface: 'transfers', status: 200, env: null, partner_id: null, path: '/transfers/v1/openapi.json' });
    expect(row.response_body).toEqual({
      $document: 'application/json; charset=utf-8',
      bytes: Buffer.byteLength(r.text),
      sha256: createHash('sha256').update(r.text).digest('hex'),
    });
  });

  it('when GET /openapi.yaml is asked, then it is the same document as YAML', async () => {
    const [y, j] = await Promise.all([svc.call('GET', '/transfers/v1/openapi.yaml'), svc.call('GET', '/transfers/v1/openapi.json')]);
    expect(y.status).toBe(200);
    expect(y.headers.get('content-type')).toBe('application/yaml; charset=utf-8');
    expect(yaml.load(y.text)).toEqual(j.body);
  });

  it('when a key is sent with it, then the same document comes back (the key is not needed, and not refused)', async () => {
    const p = await operator(svc.app.url).partnerWithKeys('Contract Reader');
    const r = await svc.call('GET', '/transfers/v1/openapi.json', { key: p.testKey });
    expect(r.status).toBe(200);
    expect(r.body.servers[0].url).toBe(`${PUBLIC_BASE_URL}/transfers/v1`);
  });

  it('when the Postman collection is imported, then it has one request per contract operation, the base URL and the key as variables, and Idempotency-Key on', async () => {
    const r = await svc.call('GET', '/transfers/v1/postman.json');
    expect(r.status).toBe(200);
    const c = r.body;
    expect(c.info.schema).toMatch(/schema\.getpostman\.com\/json\/collection\/v2\.1\.0/);
    expect(c.variable).toContainEqual(expect.objectContaining({ key: 'baseUrl', value: `${PUBLIC_BASE_URL}/transfers/v1` }));
    expect(c.auth).toEqual({ type: 'bearer', bearer: [{ key: 'token', value: '{{apiKey}}', type: 'string' }] });
    expect(c.variable).toContainEqual(expect.objectContaining({ key: 'apiKey', value: '' }));
    type Item = {
      item?: Item[];
      request?: { method: string; url: { host: string[]; path: string[] }; header?: Array<{ key: string; value: string; disabled?: boolean }> };
    };
    const requests: NonNullable<Item['request']>[] = [];
    const walk = (items: Item[]) => items.forEach((i) => (i.item ? walk(i.item) : requests.push(i.request!)));
    walk(c.item);
    const imported = requests.map((q) => `${q.method} /${q.url.path.map((s) => (s.startsWith(':') ? `{${s.slice(1)}}` : s)).join('/')}`).sort();
    expect(imported).toEqual(operationsOf(loadContract('transfers-v1.yaml') as never));
    for (const q of requests) expect(q.url.host).toEqual(['{{baseUrl}}']);
    const booking = requests.find((q) => q.method === 'POST' && q.url.path.join('/') === 'bookings')!;
    expect(booking.header).toContainEqual({ key: 'Idempotency-Key', value: '{{$guid}}', disabled: false, description: expect.any(String) });
    // The simulated-fault header is offered, but off: an imported request does what it says.
    for (const q of requests) for (const h of q.header ?? []) if (h.key === 'Sandbox-Simulate') expect(h.disabled).toBe(true);
  });
});
