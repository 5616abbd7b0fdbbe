import net from 'node:net';
import { backend, startTestApp, type TestApp } from '../../support/test-app';
import { client, type Call } from '../../support/http';
import { operator } from '../../support/fixtures';
import { MARKETPLACE_ENV } from '../../support/marketplace';
import { systemClock } from '../../../src/shared/clock';
import { enqueueOutbound } from '../../../src/domain/outbox/outbox';
import { startWebhookReceiver, type WebhookReceiver } from '../../../simulators/partner/webhook-receiver';
import { startMarketplaceSim, type RunningMarketplaceSim } from '../../../simulators/marketplace/app';
import { eventually } from '../../support/eventually';

/**
 * Deliveries that cannot be held hostage (issue 28), with the background worker, real sockets and the real clock:
 * one partner points 10 endpoints at a server that accepts connections and never answers (the webhook timeout is
 * 2 s here, 15 s by default) and queues 30 pings; another partner's ping, and a marketplace confirmation, still go
 * out at once. Before the fix the other partner's ping took 81 s (each pass waited for its slowest attempt).
 */
const TIMEOUT_MS = 2000;

/** Accepts every connection and never answers. */
async function blackHole(): Promise<{ url: string; sockets: Set<net.Socket>; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    sockets,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

describe(`Webhooks that cannot be held hostage (${backend})`, () => {
  let app: TestApp;
  let call: Call;
  let hole: Awaited<ReturnType<typeof blackHole>>;
  let mp: RunningMarketplaceSim;
  let rx: WebhookReceiver;
  const ops = () => operator(app.url);

  beforeAll(async () => {
    hole = await blackHole();
    mp = await startMarketplaceSim({ userId: MARKETPLACE_ENV.MARKETPLACE_USER_ID, privateKey: MARKETPLACE_ENV.MARKETPLACE_PRIVATE_KEY });
    rx = await startWebhookReceiver();
    app = await startTestApp({
      clock: systemClock,
      env: {
        ...MARKETPLACE_ENV,
        MARKETPLACE_URL: mp.url,
        WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true',
        WEBHOOKS_TIMEOUT_MS: String(TIMEOUT_MS),
        OUTBOX_POLL_MS: '200',
      },
    });
    call = client(app.url);
  });
  afterAll(async () => {
    await app?.close();
    await hole?.close();
    await rx?.close();
    await mp?.stop();
  });

  /** Milliseconds from `since` until `check` holds (polled by the shared `eventually`); fails after 20 s. */
  async function msUntil(since: number, check: () => boolean | Promise<boolean>): Promise<number> {
    await eventually('the condition', async () => ((await check()) ? true : undefined), 20_000 - (Date.now() - since));
    return Date.now() - since;
  }

  it("when one partner's 10 endpoints hang with 30 pings queued, then another partner's ping and a marketplace confirmation still go out within 5 s", async () => {
    const hostage = await ops().partnerWithKeys('Hanging Partner');
    const ids: string[] = [];
    for (let i = 0; i < 10; i += 1) {
      const r = await call('POST', '/transfers/v1/webhook_endpoints', { key: hostage.testKey, body: { url: `${hole.url}/hooks/${i}` } });
      expect(r.status).toBe(201);
      ids.push(r.body.id);
    }
    for (let round = 0; round < 3; round += 1) {
      for (const id of ids) expect((await call('POST', `/transfers/v1/webhook_endpoints/${id}/test`, { key: hostage.testKey })).status).toBe(202);
    }
    // The backlog is in flight: the hanging server holds connections.
    await msUntil(Date.now(), () => hole.sockets.size > 0);

    const other = await ops().partnerWithKeys('Other Partner');
    const created = await call('POST', '/transfers/v1/webhook_endpoints', { key: other.testKey, body: { url: `${rx.url}/hooks` } });
    rx.setSecrets([created.body.secret]);
    const sent = Date.now();
    const ping = await call('POST', `/transfers/v1/webhook_endpoints/${created.body.id}/test`, { key: other.testKey });
    expect(ping.status).toBe(202);
    const pingMs = await msUntil(sent, () => rx.deliveries.some((d) => d.webhookId === ping.body.id));
    expect(rx.deliveries.find((d) => d.webhookId === ping.body.id)).toMatchObject({ verified: true, status: 200 });
    expect(pingMs).toBeLessThan(5000);

    // The marketplace's loop is its own: a confirmation enqueued behind the backlog goes out at once too.
    const queued = Date.now();
    await app.deps.db.transaction((tx) =>
      enqueueOutbound(
        tx,
        { kind: 'confirm_order', orderId: 'HOSTAGE-1', payload: { order_id: 'HOSTAGE-1', supplier_order_id: 'MO-HOSTAGE-1' } },
        app.clock.now(),
      ),
    );
    const confirmMs = await msUntil(queued, () => mp.sim.state.calls.some((c) => c.body.includes('HOSTAGE-1')));
    // Unaffected: it never waited for a hanging attempt's timeout (as it did when both channels shared one pass).
    expect(confirmMs).toBeLessThan(TIMEOUT_MS);

    // Meanwhile the hanging endpoints were tried, never more than one attempt at a time each.
    const attempts = await app.db('outbox').whereIn('endpoint_id', ids).sum({ n: 'attempts' }).first();
    expect(Number(attempts?.n)).toBeGreaterThan(0);
    process.stdout.write(`hostage (${backend}): other partner's ping delivered in ${pingMs} ms, marketplace confirmation sent in ${confirmMs} ms\n`);
  }, 60_000);
});
