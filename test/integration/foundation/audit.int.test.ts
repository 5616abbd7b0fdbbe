import { OPERATOR_TOKEN } from '../../support/test-app';
import { type Call } from '../../support/http';
import { useTestApp } from '../../support/use-test-app';

describe('The audit log', () => {
  const svc = useTestApp({ partner: 'Audited Travel' });

  const rowsFor = (requestId: string) => svc.app.db('audit_log').where({ requestId });

  /**
   * A call, with how long it took as this process saw it: the server's duration (same process, same monotonic
   * clock, measured from the request's arrival to its audit row, before the answer leaves) cannot exceed it.
   */
  const timed = async (...args: Parameters<Call>) => {
    const started = performance.now();
    const reply = await svc.call(...args);
    return { reply, elapsedMs: performance.now() - started };
  };

  it('when requests succeed, fail validation, fail authentication or miss a route, then each has one audit row with its request id', async () => {
    const ok = await timed('GET', '/transfers/v1/ping', { key: svc.partner.testKey });
    const invalid = await timed('POST', '/transfers/v1/quotes', { key: svc.partner.testKey, body: { pickup: {} } });
    const unauth = await timed('GET', '/transfers/v1/ping', { key: svc.partner.testKey.slice(0, -2) + 'zz' });
    const unknown = await timed('GET', '/no/such/thing?x=1');
    const expectations: Array<[typeof ok, number, string, string | null, string | null]> = [
      [ok, 200, 'transfers', svc.partner.partner_id, 'sandbox'],
      [invalid, 400, 'transfers', svc.partner.partner_id, 'sandbox'],
      [unauth, 401, 'transfers', null, null],
      [unknown, 404, 'none', null, null],
    ];
    for (const [{ reply, elapsedMs }, status, surface, partnerId, env] of expectations) {
      expect(reply.status).toBe(status);
      const rows = await rowsFor(reply.headers.get('x-request-id')!);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ status, surface, direction: 'inbound', partnerId, env });
      // Whole milliseconds, within the round trip the client saw (seconds, microseconds or an epoch would not be).
      expect(Number.isInteger(rows[0].durationMs)).toBe(true);
      expect(rows[0].durationMs).toBeGreaterThanOrEqual(0);
      expect(rows[0].durationMs).toBeLessThanOrEqual(elapsedMs);
      expect(rows[0].responseBody).toEqual(reply.body);
      expect(rows[0].responseHeaders['x-request-id']).toBe(reply.headers.get('x-request-id'));
    }
    const [invalidRow] = await rowsFor(invalid.reply.headers.get('x-request-id')!);
    expect(invalidRow.requestBody).toEqual({ pickup: {} });
    expect(invalidRow.method).toBe('POST');
    expect(invalidRow.path).toBe('/transfers/v1/quotes');
  });

  it('when a request is held a known time, then its audit row says so: at least the hold, at most the round trip', async () => {
    // Sandbox-Simulate: slow holds the answer SANDBOX_SLOW_MS (200 in the test config) on a real timer before it runs.
    const { reply, elapsedMs } = await timed('GET', '/transfers/v1/ping', { key: svc.partner.testKey, headers: { 'Sandbox-Simulate': 'slow' } });
    expect([reply.status, reply.headers.get('sandbox-simulated')]).toEqual([200, 'slow']);
    const [row] = await rowsFor(reply.headers.get('x-request-id')!);
    expect(Number.isInteger(row.durationMs)).toBe(true);
    // A duration measured in seconds, or not measured (0), is under the hold; one in microseconds is over the trip.
    // (Less one millisecond: Node's timers run on a loop clock of whole milliseconds and may fire that much early.)
    expect(row.durationMs).toBeGreaterThanOrEqual(svc.app.deps.config.sandboxSlowMs - 1);
    expect(row.durationMs).toBeLessThanOrEqual(elapsedMs);
  });

  it('when secrets travel in headers, query or bodies, then none reaches the audit log', async () => {
    const issued = await svc.ops.call('POST', `/partners/${svc.partner.partner_id}/keys`, { body: { env: 'sandbox' } });
    expect(issued.status).toBe(201);
    await svc.call('GET', '/transfers/v1/ping', { key: issued.body.key, keyHeader: 'x-api-key' });
    await svc.call('GET', '/transfers/v1/ping', { key: issued.body.key });
    await svc.call('POST', '/marketplace/callback?token=callback-secret-123', {
      body: { type: 'new' },
      headers: { PrivateKey: 'deadbeefsignature', 'X-Callback-Token': 'callback-secret-123' },
    });
    const dump = JSON.stringify(await svc.app.db('audit_log').select());
    const secret = issued.body.key.split('_').pop();
    expect(dump).not.toContain(secret);
    expect(dump).not.toContain(OPERATOR_TOKEN);
    expect(dump).not.toContain(svc.partner.testKey.split('_').pop());
    expect(dump).not.toContain('callback-secret-123');
    expect(dump).not.toContain('deadbeefsignature');
    // The non-secret key prefix stays, so an operator can tell which key was used.
    expect(dump).toContain(`svc_sk_test_${issued.body.key_id}_[REDACTED]`);
  });

  it('when anyone tries to change or remove audit rows, then the database refuses', async () => {
    await svc.call('GET', '/transfers/v1/ping', { key: svc.partner.testKey });
    await expect(svc.app.db('audit_log').update({ status: 299 })).rejects.toThrow(/append-only/);
    await expect(svc.app.db('audit_log').delete()).rejects.toThrow(/append-only/);
    await expect(svc.app.db.raw('truncate audit_log')).rejects.toThrow(/append-only/);
    const statuses = await svc.app.db('audit_log').where({ status: 299 });
    expect(statuses).toHaveLength(0);
  });

  it('when the audit row cannot be written, then the request is answered 503 and changes nothing', async () => {
    // Make the database reject audit rows for this one path, as a full disk or broken table would.
    await svc.app.db.raw(`alter table audit_log add constraint reject_partner_audit check (path <> '/ops/v1/partners') not valid`);
    try {
      const before = await svc.app.db('partners').count({ n: '*' }).first();
      const r = await svc.ops.call('POST', '/partners', { body: { name: 'Never Created' } });
      expect(r.status).toBe(503);
      expect(r.headers.get('retry-after')).toBe('2');
      expect(r.body.error.code).toBe('service_unavailable');
      const after = await svc.app.db('partners').count({ n: '*' }).first();
      expect(Number(after!.n)).toBe(Number(before!.n));
      expect(await svc.app.db('partners').where({ name: 'Never Created' })).toHaveLength(0);
    } finally {
      await svc.app.db.raw('alter table audit_log drop constraint reject_partner_audit');
    }
    expect((await svc.ops.call('POST', '/partners', { body: { name: 'Created Later' } })).status).toBe(201);
  });

  it('when an operator reads the audit API, then the latest entries come back filtered and redacted', async () => {
    const ping = await svc.call('GET', '/transfers/v1/ping', { key: svc.partner.testKey });
    const byRequest = await svc.ops.audit({ request_id: ping.headers.get('x-request-id')! });
    expect(byRequest).toHaveLength(1);
    expect(byRequest[0]).toMatchObject({ path: '/transfers/v1/ping', status: 200, partner_id: svc.partner.partner_id, env: 'sandbox' });
    expect(byRequest[0].request_headers.authorization).toMatch(/^Bearer svc_sk_test_[a-z0-9]{12}_\[REDACTED\]$/);
    const byPartner = await svc.ops.audit({ partner_id: svc.partner.partner_id, limit: '2' });
    expect(byPartner).toHaveLength(2);
    expect(Number(byPartner[0].id)).toBeGreaterThan(Number(byPartner[1].id));
    const byPath = await svc.ops.audit({ path: '/transfers/v1/pi', limit: '500' });
    expect(byPath.length).toBeGreaterThan(0);
    expect(byPath.every((e) => e.path.startsWith('/transfers/v1/pi'))).toBe(true);
    expect((await svc.ops.call('GET', '/audit?limit=0')).status).toBe(400);
  });
});
