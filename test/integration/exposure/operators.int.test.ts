import { createHash } from 'node:crypto';
import { backend } from '../../support/test-app';
import { operator } from '../../support/fixtures';
import { useTestApp } from '../../support/use-test-app';

describe(`Named operators with roles (${backend})`, () => {
  const as = (token: string) => ({ headers: { Authorization: `Bearer ${token}` } });
  const tokens: Record<string, string> = {};
  const ids: Record<string, string> = {};
  const svc = useTestApp();

  it('when the bootstrap admin names operators, then each token is shown once, kept only as its hash, and never listed', async () => {
    const ops = operator(svc.app.url);
    for (const role of ['admin', 'dispatcher', 'viewer'] as const) {
      const r = await ops.call('POST', '/operators', { body: { name: `Nimali ${role}`, role } });
      expect(r.status).toBe(201);
      expect(r.body).toEqual({
        operator_id: expect.stringMatching(/^opr_[a-z0-9]{10}$/),
        name: `Nimali ${role}`,
        role,
        token: expect.stringMatching(/^op_[A-Za-z0-9]{40}$/),
        created_at: expect.any(String),
        created_by: 'bootstrap',
        revoked_at: null,
      });
      tokens[role] = r.body.token;
      ids[role] = r.body.operator_id;
    }
    const stored = await svc.app.db('operators').select();
    expect(stored.map((o) => o.tokenHash).sort()).toEqual(
      Object.values(tokens)
        .map((t) => createHash('sha256').update(t).digest('hex'))
        .sort(),
    );
    expect(JSON.stringify(stored)).not.toContain(tokens.admin.slice(3));
    const list = await svc.call('GET', '/ops/v1/operators', as(tokens.viewer));
    expect(list.status).toBe(200);
    expect(list.body.data.map((o: { name: string }) => o.name).sort()).toEqual(['Nimali admin', 'Nimali dispatcher', 'Nimali viewer']);
    expect(list.text).not.toContain('op_');
    // The creation's audit row does not keep the token either.
    const row = await svc.app.db('audit_log').where({ path: '/ops/v1/operators', method: 'POST' }).first();
    expect(JSON.stringify(row)).not.toContain(tokens.admin.slice(3));
  });

  it('when each role calls what it may and may not, then it is served or refused 403 in the operator envelope', async () => {
    const me = await svc.call('GET', '/ops/v1/me', as(tokens.dispatcher));
    expect(me.body).toEqual({ operator_id: ids.dispatcher, name: 'Nimali dispatcher', role: 'dispatcher' });

    // Viewer: reads and metrics only.
    expect((await svc.call('GET', '/ops/v1/jobs?date=2026-11-21', as(tokens.viewer))).status).toBe(200);
    expect((await svc.call('GET', '/metrics', as(tokens.viewer))).status).toBe(200);
    const refused = await svc.call('POST', '/ops/v1/vehicles', {
      ...as(tokens.viewer),
      body: { fleet_code: 'standard_car', plate: 'VW-1', brand: 'Toyota', model: 'Axio', colour: 'White' },
    });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      error: {
        code: 'forbidden',
        message: `This needs the dispatcher role; operator ${ids.viewer} is a viewer.`,
        details: { required_role: 'dispatcher', role: 'viewer' },
      },
    });
    expect(await svc.app.db('vehicles').where({ plate: 'VW-1' })).toEqual([]);
    expect((await svc.call('GET', '/ops/v1/audit', as(tokens.viewer))).status).toBe(403);

    // Dispatcher: the fleet, jobs, retries and the audit log; not partners, keys or operators.
    expect(
      (
        await svc.call('POST', '/ops/v1/vehicles', {
          ...as(tokens.dispatcher),
          body: { fleet_code: 'standard_car', plate: 'DS-1', brand: 'Toyota', model: 'Axio', colour: 'White' },
        })
      ).status,
    ).toBe(201);
    expect((await svc.call('GET', '/ops/v1/audit?limit=1', as(tokens.dispatcher))).status).toBe(200);
    expect((await svc.call('POST', '/ops/v1/partners', { ...as(tokens.dispatcher), body: { name: 'Not mine' } })).status).toBe(403);
    expect((await svc.call('POST', '/ops/v1/operators', { ...as(tokens.dispatcher), body: { name: 'Sneaky', role: 'admin' } })).status).toBe(403);

    // A named admin: everything.
    const partner = await svc.call('POST', '/ops/v1/partners', { ...as(tokens.admin), body: { name: 'Named Admin Partner' } });
    expect(partner.status).toBe(201);
    expect(
      (
        await svc.call('PUT', `/ops/v1/partners/${partner.body.partner_id}/rate-limit`, {
          ...as(tokens.admin),
          body: { env: 'production', requests_per_second: 5 },
        })
      ).body.rate_limits,
    ).toEqual({
      sandbox: null,
      production: { requests_per_second: 5, burst: 10 },
    });
  });

  it('when operators act, then every audit row names who, and the audit search filters by operator', async () => {
    const ops = operator(svc.app.url);
    const byDispatcher = await ops.audit({ operator_id: ids.dispatcher });
    expect(byDispatcher.length).toBeGreaterThanOrEqual(5);
    expect(new Set(byDispatcher.map((r) => r.operator_id))).toEqual(new Set([ids.dispatcher]));
    expect(byDispatcher.map((r) => `${r.method} ${r.path} ${r.status}`)).toContain('POST /ops/v1/partners 403');
    const bootstrap = await ops.audit({ operator_id: 'bootstrap', path: '/ops/v1/operators' });
    expect(bootstrap.length).toBeGreaterThanOrEqual(3);
    // A request without a valid token names nobody.
    const anonymous = await svc.call('GET', '/ops/v1/ping');
    expect((await ops.audit({ request_id: anonymous.headers.get('x-request-id')! }))[0].operator_id).toBeNull();
  });

  it('when an operator is revoked, then its very next request is refused, and a second revoke keeps the first time', async () => {
    const ops = operator(svc.app.url);
    expect((await svc.call('GET', '/ops/v1/ping', as(tokens.viewer))).status).toBe(200);
    const revoked = await ops.call('POST', `/operators/${ids.viewer}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).toEqual(expect.any(String));
    expect((await svc.call('GET', '/ops/v1/ping', as(tokens.viewer))).status).toBe(401);
    const again = await ops.call('POST', `/operators/${ids.viewer}/revoke`);
    expect(again.body.revoked_at).toBe(revoked.body.revoked_at);
    expect((await ops.call('POST', '/operators/opr_nobody0000/revoke')).status).toBe(404);
  });
});
