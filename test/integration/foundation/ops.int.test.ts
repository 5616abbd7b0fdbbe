import { client } from '../../support/http';
import { useTestApp } from '../../support/use-test-app';

describe('Operator API', () => {
  const svc = useTestApp();

  it('when the operator token is missing or wrong, then 401 and nothing is created', async () => {
    const call = client(svc.app.url);
    expect((await call('GET', '/ops/v1/partners')).status).toBe(401);
    const wrong = await call('POST', '/ops/v1/partners', { body: { name: 'Nope' }, headers: { Authorization: 'Bearer op_wrong_token_000000000' } });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ error: { code: 'unauthorized', message: expect.any(String), details: {} } });
    expect(await svc.app.db('partners').where({ name: 'Nope' })).toHaveLength(0);
  });

  it('when a partner is created, then it is listed with its currency (USD by default) and can be paused and resumed', async () => {
    const eur = await svc.ops.partner('Euro Tours', 'EUR');
    expect(eur).toEqual({
      partner_id: expect.stringMatching(/^ptn_[a-z0-9]{16}$/),
      name: 'Euro Tours',
      currency: 'EUR',
      paused: false,
      rate_limits: { sandbox: null, production: null },
      created_at: expect.any(String),
    });
    const usd = await svc.ops.partner('Dollar Trips');
    expect(usd.currency).toBe('USD');
    const list = await svc.ops.call('GET', '/partners');
    expect(list.body.data.map((p: { partner_id: string }) => p.partner_id)).toEqual(expect.arrayContaining([eur.partner_id, usd.partner_id]));
    const paused = await svc.ops.call('POST', `/partners/${eur.partner_id}/pause`);
    expect(paused.status).toBe(200);
    expect(paused.body.paused).toBe(true);
    expect((await svc.ops.call('POST', `/partners/${eur.partner_id}/pause`)).body.paused).toBe(true);
    expect((await svc.ops.call('POST', `/partners/${eur.partner_id}/resume`)).body.paused).toBe(false);
    expect((await svc.ops.call('GET', `/partners/${eur.partner_id}`)).body.paused).toBe(false);
  });

  it('when input is bad or a partner unknown, then 400 or 404 in the envelope', async () => {
    const bad = await svc.ops.call('POST', '/partners', { body: { name: '', currency: 'GBP' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.fields.map((f: { field: string }) => f.field).sort()).toEqual(['currency', 'name']);
    expect((await svc.ops.call('POST', '/partners/ptn_nope/pause')).status).toBe(404);
    expect((await svc.ops.call('POST', '/partners/ptn_nope/keys', { body: { env: 'sandbox' } })).status).toBe(404);
    expect((await svc.ops.call('POST', '/keys/nope/revoke')).status).toBe(404);
    expect((await svc.ops.call('POST', '/partners/ptn_nope/keys', { body: { env: 'staging' } })).status).toBe(400);
  });

  it('when a key is issued, then it is shown once in the right shape and listed without its secret', async () => {
    const p = await svc.ops.partner('Key Holder');
    const test = await svc.ops.key(p.partner_id, 'sandbox');
    const live = await svc.ops.key(p.partner_id, 'production');
    expect(test.key).toMatch(/^svc_sk_test_[a-z0-9]{12}_[A-Za-z0-9]{40}$/);
    expect(live.key).toMatch(/^svc_sk_live_[a-z0-9]{12}_[A-Za-z0-9]{40}$/);
    const list = await svc.ops.call('GET', `/partners/${p.partner_id}/keys`);
    expect(list.body.data).toHaveLength(2);
    expect(list.body.data.map((k: { prefix: string }) => k.prefix).sort()).toEqual([`svc_sk_live_${live.key_id}_`, `svc_sk_test_${test.key_id}_`].sort());
    expect(list.text).not.toContain(test.key.split('_').pop());
  });

  it('when vehicle codes are mapped, then they are listed, replaced, and removed; an unknown fleet code is refused', async () => {
    const p = await svc.ops.partner('Vocab Partner');
    const put = await svc.ops.call('PUT', `/partners/${p.partner_id}/vehicle-codes/SEDAN`, { body: { vehicle: 'standard_car' } });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ partner_id: p.partner_id, code: 'SEDAN', vehicle: 'standard_car' });
    await svc.ops.call('PUT', `/partners/${p.partner_id}/vehicle-codes/SEDAN`, { body: { vehicle: 'premium_car' } });
    await svc.ops.call('PUT', `/partners/${p.partner_id}/vehicle-codes/MPV5`, { body: { vehicle: 'suv' } });
    const list = await svc.ops.call('GET', `/partners/${p.partner_id}/vehicle-codes`);
    expect(list.body.data).toEqual([
      { partner_id: p.partner_id, code: 'MPV5', vehicle: 'suv' },
      { partner_id: p.partner_id, code: 'SEDAN', vehicle: 'premium_car' },
    ]);
    expect((await svc.ops.call('PUT', `/partners/${p.partner_id}/vehicle-codes/X`, { body: { vehicle: 'rickshaw' } })).status).toBe(400);
    expect((await svc.ops.call('DELETE', `/partners/${p.partner_id}/vehicle-codes/MPV5`)).status).toBe(200);
    expect((await svc.ops.call('DELETE', `/partners/${p.partner_id}/vehicle-codes/MPV5`)).status).toBe(404);
  });
});
