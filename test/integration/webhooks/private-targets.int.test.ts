import { backend } from '../../support/test-app';
import { startWebhookTestApp, type WebhookTestApp } from '../../support/webhooks';

/**
 * Whether sandbox endpoints may target this machine when WEBHOOKS_ALLOW_PRIVATE_TARGETS is not set: yes outside
 * production (`npm start`, tests), no in production, where the refusal names the setting. Production endpoints are
 * public https only either way.
 */
describe(`Webhook targets by default (${backend})`, () => {
  const unset = { WEBHOOKS_ALLOW_PRIVATE_TARGETS: undefined };

  describe('outside production (NODE_ENV=development or test), the setting unset', () => {
    let h: WebhookTestApp;
    beforeAll(async () => {
      h = await startWebhookTestApp({ env: unset });
    });
    afterAll(() => h.close());

    it('when a sandbox endpoint targets a receiver on 127.0.0.1, then it is registered and the ping arrives, signed', async () => {
      const p = await h.ops.partnerWithKeys('Local Developer');
      const { rx, id, created } = await h.endpoint(p.testKey);
      expect(created.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/hooks$/);
      expect((await h.call('POST', `/transfers/v1/webhook_endpoints/${id}/test`, { key: p.testKey })).status).toBe(202);
      await h.deliver();
      expect(rx.deliveries.map((d) => [d.verified, d.event?.type])).toEqual([[true, 'ping']]);
      // Other private ranges too; never link-local.
      expect((await h.call('POST', '/transfers/v1/webhook_endpoints', { key: p.testKey, body: { url: 'http://192.168.1.20:8080/hooks' } })).status).toBe(201);
      const metadata = await h.call('POST', '/transfers/v1/webhook_endpoints', { key: p.testKey, body: { url: 'http://169.254.169.254/' } });
      expect(metadata.status).toBe(400);
      expect(metadata.body.error.details.fields).toEqual([
        { field: 'url', message: 'must reach a public address: 169.254.169.254 is not a public address (linkLocal)' },
      ]);
    });

    it('when a production endpoint targets 127.0.0.1, then it is refused all the same, without pointing at the setting', async () => {
      const p = await h.ops.partnerWithKeys('Live Developer');
      const r = await h.call('POST', '/transfers/v1/webhook_endpoints', { key: p.liveKey, body: { url: 'https://127.0.0.1:8443/hooks' } });
      expect([r.status, r.body.error.code]).toEqual([400, 'invalid_request']);
      expect(r.body.error.details.fields).toEqual([{ field: 'url', message: 'must reach a public address: 127.0.0.1 is not a public address (loopback)' }]);
    });
  });

  describe('in production (NODE_ENV=production), the setting unset', () => {
    let h: WebhookTestApp;
    beforeAll(async () => {
      h = await startWebhookTestApp({ env: { ...unset, NODE_ENV: 'production' } });
    });
    afterAll(() => h.close());

    it('when a sandbox endpoint targets 127.0.0.1 or a private address, then 400 invalid_request naming url, and the message names WEBHOOKS_ALLOW_PRIVATE_TARGETS', async () => {
      const p = await h.ops.partnerWithKeys('Hosted Sandbox Partner');
      for (const [url, range] of [
        ['http://127.0.0.1:8080/hooks', '127.0.0.1 is not a public address (loopback)'],
        ['http://10.1.2.3/hooks', '10.1.2.3 is not a public address (private)'],
      ]) {
        const r = await h.call('POST', '/transfers/v1/webhook_endpoints', { key: p.testKey, body: { url } });
        expect([url, r.status, r.body.error.code]).toEqual([url, 400, 'invalid_request']);
        const message = `must reach a public address: ${range}; the setting WEBHOOKS_ALLOW_PRIVATE_TARGETS=true lets sandbox endpoints reach private and loopback addresses`;
        expect(r.body.error.details.fields).toEqual([{ field: 'url', message }]);
        expect(r.body.error.message).toBe(`The request is invalid: url ${message}.`);
      }
      // What the setting would not allow does not point at it.
      const metadata = await h.call('POST', '/transfers/v1/webhook_endpoints', { key: p.testKey, body: { url: 'http://169.254.169.254/' } });
      expect(metadata.body.error.details.fields[0].message).not.toContain('WEBHOOKS_ALLOW_PRIVATE_TARGETS');
      expect((await h.call('GET', '/transfers/v1/webhook_endpoints', { key: p.testKey })).body.data).toEqual([]);
    });
  });
});
