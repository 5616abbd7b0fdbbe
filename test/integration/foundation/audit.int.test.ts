import { startTestApp, type TestApp, OPERATOR_TOKEN } from '../../support/test-app';
import { client, type Call } from '../../support/http';
import { operator } from '../../support/fixtures';

describe('The audit log', () => {
  let app: TestApp;
  let call: Call;
  let ops: ReturnType<typeof operator>;
  let partner: Awaited<ReturnType<ReturnType<typeof operator>['partnerWithKeys']>>;

  beforeAll(async () => {
    app = await startTestApp();
    call = client(app.url);
    ops = operator(app.url);
    partner = await ops.partnerWithKeys('Audited Travel');
  });
  afterAll(() => app.close());

  const rowsFor = (requestId: string) => app.db('audit_log').where({ requestId });

  it('when requests succeed, fail validation, fail authentication or miss a route, then each has one audit row with its request id', async () => {
    const ok = await call('GET', '/transfers/v1/ping', { key: partner.testKey });
    const invalid = await call('POST', '/transfers/v1/quotes', { key: partner.testKey, body: { pickup: {} } });
    const unauth = await call('GET', '/transfers/v1/ping', { key: partner.testKey.slice(0, -2) + 'zz' });
    const unknown = await call('GET', '/no/such/thing?x=1');
    const expectations: Array<[typeof ok, number, string, string | null, string | null]> = [
      [ok, 200, 'transfers', partner.partner_id, 'sandbox'],
      [invalid, 400, 'transfers', partner.partner_id, 'sandbox'],
      [unauth, 401, 'transfers', null, null],
      [unknown, 404, 'none', null, null],
    ];
    for (const [reply, status, surface, partnerId, env] of expectations) {
      expect(reply.status).toBe(status);
      const rows = await rowsFor(reply.headers.get('x-request-id')!);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ status, surface, direction: 'inbound', partnerId, env });
      expect(rows[0].durationMs).toBeGreaterThanOrEqual(0);
      expect(rows[0].responseBody).toEqual(reply.body);
      expect(rows[0].responseHeaders['x-request-id']).toBe(reply.headers.get('x-request-id'));
    }
    const [invalidRow] = await rowsFor(invalid.headers.get('x-request-id')!);
    expect(invalidRow.requestBody).toEqual({ pickup: {} });
    expect(invalidRow.method).toBe('POST');
    expect(invalidRow.path).toBe('/transfers/v1/quotes');
  });

  it('when secrets travel in headers, query or bodies, then none reaches the audit log', async () => {
    const issued = await ops.call('POST', `/partners/${partner.partner_id}/keys`, { body: { env: 'sandbox' } });
    expect(issued.status).toBe(201);
    await call('GET', '/transfers/v1/ping', { key: issued.body.key, keyHeader: 'x-api-key' });
    await call('GET', '/transfers/v1/ping', { key: issued.body.key });
    await call('POST', '/marketplace/callback?token=callback-secret-123', {
      body: { type: 'new' },
      headers: { PrivateKey: 'deadbeefsignature', 'X-Callback-Token': 'callback-secret-123' },
    });
    const dump = JSON.stringify(await app.db('audit_log').select());
    const secret = issued.body.key.split('_').pop();
    expect(dump).not.toContain(secret);
    expect(dump).not.toContain(OPERATOR_TOKEN);
    expect(dump).not.toContain(partner.testKey.split('_').pop());
    expect(dump).not.toContain('callback-secret-123');
    expect(dump).not.toContain('deadbeefsignature');
    // The non-secret key prefix stays, so an operator can tell which key was used.
    expect(dump).toContain(`svc_sk_test_${issued.body.key_id}_[REDACTED]`);
  });

  it('when anyone tries to change or remove audit rows, then the database refuses', async () => {
    await call('GET', '/transfers/v1/ping', { key: partner.testKey });
    await expect(app.db('audit_log').update({ status: 299 })).rejects.toThrow(/append-only/);
    await expect(app.db('audit_log').delete()).rejects.toThrow(/append-only/);
    await expect(app.db.raw('truncate audit_log')).rejects.toThrow(/append-only/);
    const statuses = await app.db('audit_log').where({ status: 299 });
    expect(statuses).toHaveLength(0);
  });

  it('when the audit row cannot be written, then the request is answered 503 and changes nothing', async () => {
    // Make the database reject audit rows for this one path, as a full disk or broken table would.
    await app.db.raw(`alter table audit_log add constraint reject_partner_audit check (path <> '/ops/v1/partners') not valid`);
    try {
      const before = await app.db('partners').count({ n: '*' }).first();
      const r = await ops.call('POST', '/partners', { body: { name: 'Never Created' } });
      expect(r.status).toBe(503);
      expect(r.headers.get('retry-after')).toBe('2');
      expect(r.body.error.code).toBe('service_unavailable');
      const after = await app.db('partners').count({ n: '*' }).first();
      expect(Number(after!.n)).toBe(Number(before!.n));
      expect(await app.db('partners').where({ name: 'Never Created' })).toHaveLength(0);
    } finally {
      await app.db.raw('alter table audit_log drop constraint reject_partner_audit');
    }
    expect((await ops.call('POST', '/partners', { body: { name: 'Created Later' } })).status).toBe(201);
  });

  it('when an operator reads the audit API, then the latest entries come back filtered and redacted', async () => {
    const ping = await call('GET', '/transfers/v1/ping', { key: partner.testKey });
    const byRequest = await ops.audit({ request_id: ping.headers.get('x-request-id')! });
    expect(byRequest).toHaveLength(1);
    expect(byRequest[0]).toMatchObject({ path: '/transfers/v1/ping', status: 200, partner_id: partner.partner_id, env: 'sandbox' });
    expect(byRequest[0].request_headers.authorization).toMatch(/^Bearer svc_sk_test_[a-z0-9]{12}_\[REDACTED\]$/);
    const byPartner = await ops.audit({ partner_id: partner.partner_id, limit: '2' });
    expect(byPartner).toHaveLength(2);
    expect(Number(byPartner[0].id)).toBeGreaterThan(Number(byPartner[1].id));
    const byPath = await ops.audit({ path: '/transfers/v1/pi', limit: '500' });
    expect(byPath.length).toBeGreaterThan(0);
    expect(byPath.every((e) => e.path.startsWith('/transfers/v1/pi'))).toBe(true);
    expect((await ops.call('GET', '/audit?limit=0')).status).toBe(400);
  });
});
