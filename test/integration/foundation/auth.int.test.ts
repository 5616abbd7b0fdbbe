import { startTestApp, type TestApp } from '../../support/test-app';
import { client } from '../../support/http';
import { operator } from '../../support/fixtures';
import { useTestApp } from '../../support/use-test-app';

describe('Partner keys and environments', () => {
  const svc = useTestApp({ partner: 'Island Holidays' });

  it('when a sandbox key pings, then sandbox answers by header and body, with a request id', async () => {
    const r = await svc.call('GET', '/transfers/v1/ping', { key: svc.partner.testKey });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-service-env')).toBe('sandbox');
    expect(r.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{24}$/);
    expect(r.body).toEqual({ env: 'sandbox', ok: true, partner: 'Island Holidays', time: '2026-11-21T08:00:00.000Z' });
  });

  it('when a live key pings through X-Api-Key, then production answers', async () => {
    const r = await svc.call('GET', '/transfers/v1/ping', { key: svc.partner.liveKey, keyHeader: 'x-api-key' });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-service-env')).toBe('production');
    expect(r.body.env).toBe('production');
  });

  it('when the key is missing, malformed, unknown, has a wrong secret or is revoked, then the 401 bodies are byte-identical', async () => {
    const spare = await svc.ops.key(svc.partner.partner_id, 'sandbox');
    expect((await svc.ops.call('POST', `/keys/${spare.key_id}/revoke`)).status).toBe(200);
    const [, , keyId, secret] = svc.partner.testKey.split('_').slice(1);
    const wrongSecret = `svc_sk_test_${keyId}_${secret.slice(0, -1)}${secret.endsWith('a') ? 'b' : 'a'}`;
    const unknown = `svc_sk_test_zzzzzzzzzzzz_${secret}`;
    const liveWithTestId = svc.partner.testKey.replace('svc_sk_test_', 'svc_sk_live_');
    const attempts = [
      await svc.call('GET', '/transfers/v1/ping'),
      await svc.call('GET', '/transfers/v1/ping', { key: 'not-a-key' }),
      await svc.call('GET', '/transfers/v1/ping', { headers: { Authorization: 'Basic Zm9vOmJhcg==' } }),
      await svc.call('GET', '/transfers/v1/ping', { key: unknown }),
      await svc.call('GET', '/transfers/v1/ping', { key: wrongSecret }),
      await svc.call('GET', '/transfers/v1/ping', { key: spare.key }),
      await svc.call('GET', '/transfers/v1/ping', { key: liveWithTestId }),
      await svc.call('POST', '/transfers/v1/quotes', { key: wrongSecret, body: {} }),
    ];
    for (const r of attempts) {
      expect(r.status).toBe(401);
      expect(r.headers.get('x-service-env')).toBe('none');
      expect(r.text).toBe(attempts[0].text);
    }
    expect(attempts[0].body).toEqual({
      env: null,
      error: { code: 'unauthorized', message: expect.any(String), details: {} },
    });
  });

  it('when one of two keys is revoked, then it fails on the next request and its sibling still works', async () => {
    const second = await svc.ops.key(svc.partner.partner_id, 'sandbox');
    expect((await svc.call('GET', '/transfers/v1/ping', { key: second.key })).status).toBe(200);
    const revoked = await svc.ops.call('POST', `/keys/${second.key_id}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).toEqual(expect.any(String));
    expect((await svc.call('GET', '/transfers/v1/ping', { key: second.key })).status).toBe(401);
    expect((await svc.call('GET', '/transfers/v1/ping', { key: svc.partner.testKey })).status).toBe(200);
    const keys = await svc.ops.call('GET', `/partners/${svc.partner.partner_id}/keys`);
    expect(keys.text).not.toContain(svc.partner.testKey.split('_').pop());
    expect(keys.body.data.find((k: any) => k.key_id === second.key_id).revoked_at).not.toBeNull();
  });

  it('when only a hash is stored, then the database never holds the secret', async () => {
    const rows = await svc.app.db('api_keys').select('secretHash');
    const secret = svc.partner.testKey.split('_').pop()!;
    for (const r of rows) {
      expect(r.secretHash).toMatch(/^[0-9a-f]{64}$/);
      expect(r.secretHash).not.toContain(secret);
    }
  });

  it('when an unknown route is asked with a valid key, then 404 from that environment; without one, 401', async () => {
    const known = await svc.call('GET', '/transfers/v1/nothing-here', { key: svc.partner.testKey });
    expect(known.status).toBe(404);
    expect(known.body).toEqual({ env: 'sandbox', error: { code: 'not_found', message: expect.any(String), details: {} } });
    expect((await svc.call('GET', '/transfers/v1/nothing-here')).status).toBe(401);
    const wrongMethod = await svc.call('DELETE', '/transfers/v1/ping', { key: svc.partner.testKey });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.body.error.code).toBe('method_not_allowed');
  });
});

describe('Keys kept in memory between requests are checked again by every commit', () => {
  let a: TestApp;
  let b: TestApp;
  let partner: Awaited<ReturnType<ReturnType<typeof operator>['partnerWithKeys']>>;
  const quoteBody = { pickup: { iata: 'CMB' }, dropoff: { name: 'Kandy' }, pickup_datetime: '2026-12-01T09:30:00+05:30', passengers: { adults: 2 } };

  beforeAll(async () => {
    // Two instances on one database: what one changes, the other must honour on its very next request.
    a = await startTestApp();
    b = await startTestApp({ db: { db: a.db, env: a.dbEnv, drop: async () => undefined } });
    partner = await operator(a.url).partnerWithKeys('Cached Travel');
  });
  afterAll(async () => {
    await b.close();
    await a.close();
  });

  it('when a key another instance has in memory is revoked, then its next request there is 401 and writes nothing', async () => {
    const key = await operator(a.url).key(partner.partner_id, 'sandbox');
    expect((await client(b.url)('POST', '/transfers/v1/quotes', { key: key.key, body: quoteBody })).status).toBe(200);
    const quotesBefore = Number((await a.db('quotes').where({ partnerId: partner.partner_id }).count({ n: '*' }))[0].n);
    expect((await operator(a.url).call('POST', `/keys/${key.key_id}/revoke`)).status).toBe(200);
    const r = await client(b.url)('POST', '/transfers/v1/quotes', { key: key.key, body: quoteBody });
    expect(r.status).toBe(401);
    expect(Number((await a.db('quotes').where({ partnerId: partner.partner_id }).count({ n: '*' }))[0].n)).toBe(quotesBefore);
    const audit = await a.db('audit_log').where({ requestId: r.headers.get('x-request-id')! });
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ status: 401, partnerId: null });
  });

  it('when an operator pauses the partner or maps a vehicle code through another instance, then the next quote there follows', async () => {
    const quote = () => client(b.url)('POST', '/transfers/v1/quotes', { key: partner.liveKey, body: quoteBody });
    expect((await quote()).body.declined).toBeNull();
    expect((await operator(a.url).call('POST', `/partners/${partner.partner_id}/pause`)).status).toBe(200);
    expect((await quote()).body.declined).toMatchObject({ reason: 'partner_paused' });
    expect((await operator(a.url).call('POST', `/partners/${partner.partner_id}/resume`)).status).toBe(200);
    expect((await operator(a.url).call('PUT', `/partners/${partner.partner_id}/vehicle-codes/SEDAN`, { body: { vehicle: 'standard_car' } })).status).toBe(200);
    const mapped = await quote();
    expect(mapped.body.declined).toBeNull();
    expect(mapped.body.offers.map((o: { vehicle_code: string }) => o.vehicle_code)).toContain('SEDAN');
  });
});
