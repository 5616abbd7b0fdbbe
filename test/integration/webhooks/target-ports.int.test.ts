import { backend, startTestApp } from '../../support/test-app';
import { fakeDns, startWebhookTestApp, webhookDeliverer, type WebhookTestApp } from '../../support/webhooks';

/** A public address (no connection is made to it: every URL below is refused before one would be). */
const PUBLIC = '93.184.216.34';

/**
 * In production (NODE_ENV=production) a public webhook target is reached on 443, 80 or a port the operator allows
 * (WEBHOOKS_ALLOWED_PORTS), so partners cannot make the service probe other hosts' ports and read the errors back;
 * sandbox endpoints on this machine, which the deployment allows, keep any port.
 */
describe(`Webhook target ports in production (${backend})`, () => {
  const dns = fakeDns();
  dns.set('hooks.partner.example', PUBLIC);
  let h: WebhookTestApp;
  beforeAll(async () => {
    h = await startWebhookTestApp({ env: { NODE_ENV: 'production', WEBHOOKS_ALLOWED_PORTS: '8443' }, resolveHost: dns.resolve });
  });
  afterAll(() => h?.close());
  const register = (key: string, url: string) => h.call('POST', '/transfers/v1/webhook_endpoints', { key, body: { url } });

  it('when an endpoint names a public host on another port, then 400 invalid_request naming url and the allowed ports; 443 and the allowed one are registered', async () => {
    const p = await h.ops.partnerWithKeys('Port Prober');
    for (const [key, url] of [
      [p.liveKey, 'https://hooks.partner.example:8080/hooks'],
      [p.liveKey, `https://${PUBLIC}:22/`],
      [p.testKey, 'http://hooks.partner.example:6379/'],
    ]) {
      const r = await register(key, url);
      expect([url, r.status, r.body.error.code]).toEqual([url, 400, 'invalid_request']);
      const port = new URL(url).port;
      const message = `must use an allowed port: port ${port} is not open to webhooks on a public address (allowed: 443, 80, 8443)`;
      expect(r.body.error.details.fields).toEqual([{ field: 'url', message }]);
    }
    for (const url of ['https://hooks.partner.example/hooks', 'https://hooks.partner.example:8443/hooks']) {
      expect({ url, status: (await register(p.liveKey, url)).status }).toEqual({ url, status: 201 });
    }
    expect((await register(p.testKey, 'http://hooks.partner.example:80/hooks')).status).toBe(201);
  });

  it('when a sandbox endpoint targets this machine on any port (the deployment allowing it), then it is registered and its ping arrives', async () => {
    const p = await h.ops.partnerWithKeys('Local Sandbox');
    const { rx, id, created } = await h.endpoint(p.testKey);
    expect(created.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/hooks$/);
    expect((await h.call('POST', `/transfers/v1/webhook_endpoints/${id}/test`, { key: p.testKey })).status).toBe(202);
    await h.deliver();
    expect(rx.deliveries.map((d) => [d.verified, d.event?.type])).toEqual([[true, 'ping']]);
  });

  it('when the operator no longer allows an endpoint’s port, then its deliveries are not attempted: each fails as refused, before any connection', async () => {
    const p = await h.ops.partnerWithKeys('Port Since Closed');
    const created = await register(p.liveKey, 'https://hooks.partner.example:8443/hooks');
    expect(created.status).toBe(201);
    // The same database, restarted without WEBHOOKS_ALLOWED_PORTS.
    const again = await startTestApp({
      db: { db: h.app.db, env: h.app.dbEnv, drop: async () => {} },
      env: { NODE_ENV: 'production', WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' },
      resolveHost: dns.resolve,
      outboxWorker: false,
    });
    try {
      expect(again.deps.config.webhooks.allowedPorts).toEqual([443, 80]);
      const ping = await h.call('POST', `/transfers/v1/webhook_endpoints/${created.body.id}/test`, { key: p.liveKey });
      expect(ping.status).toBe(202);
      await webhookDeliverer(again)();
      const [row] = await again.db('outbox').where({ endpoint_id: created.body.id });
      expect(row.lastError).toBe(
        `refused: hooks.partner.example resolves to ${PUBLIC}: port 8443 is not open to webhooks on a public address (allowed: 443, 80)`,
      );
      expect(row.lastStatus).toBeNull();
    } finally {
      await again.close();
    }
  });
});
