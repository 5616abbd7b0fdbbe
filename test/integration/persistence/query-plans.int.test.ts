import { startTestApp, backend, OPERATOR_TOKEN, type TestApp } from '../../support/test-app';
import { startMarketplaceSim, type RunningMarketplaceSim } from '../../../simulators/marketplace/app';
import { systemClock } from '../../../src/shared/clock';
import { deliverDueOnce } from '../../../src/domain/outbox/worker';
import { HttpMarketplaceClient } from '../../../src/adapters/marketplace/http-marketplace-client';
import { runRetention } from '../../../src/retention';
import { pollFlightsOnce } from '../../../src/domain/flights/poll-flights';
import { capture, exerciseEveryPath, sequentialScans } from '../../../bench/plan-check';
import { seedGrowth } from '../../../bench/growth';
import { webhookDeliverer } from '../../support/webhooks';

const MP = { userId: '1001', privateKey: 'plan-check-key', token: 'plan-check-callback-token', inUrl: 'https://supplier.example.lk/marketplace' };
// The short version of the growth seed (npm run bench seeds 1,000,000 audit rows, 200,000 quotes, 100,000 bookings).
const SIZE = backend === 'postgres' ? { audit: 200_000, quotes: 20_000, bookings: 10_000 } : { audit: 40_000, quotes: 6_000, bookings: 3_000 };

/**
 * On a database holding a realistic amount of data, every statement the service issues while every operation of
 * every surface runs (and the outbox and retention passes) is explained: none reads a large table sequentially.
 */
describe('Query plans on a grown database', () => {
  let app: TestApp;
  let sim: RunningMarketplaceSim;

  beforeAll(async () => {
    sim = await startMarketplaceSim({ userId: MP.userId, privateKey: MP.privateKey, port: 0 });
    app = await startTestApp({
      clock: systemClock,
      outboxWorker: false,
      env: {
        WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true',
        MARKETPLACE_URL: sim.url,
        MARKETPLACE_USER_ID: MP.userId,
        MARKETPLACE_PRIVATE_KEY: MP.privateKey,
        MARKETPLACE_CALLBACK_TOKEN: MP.token,
        MARKETPLACE_IN_URL: MP.inUrl,
      },
    });
    const p = await fetch(`${app.url}/ops/v1/partners`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${OPERATOR_TOKEN}`, 'Content-Type': 'application/json' },
      body: '{"name":"Grown Travel"}',
    });
    await seedGrowth(app.db, ((await p.json()) as { partner_id: string }).partner_id, SIZE);
  }, 300_000);
  afterAll(async () => {
    await app.close();
    await sim.stop();
  });

  it('when every path runs against the seeded tables, then no statement reads a large table with a sequential scan', async () => {
    const client = new HttpMarketplaceClient({ baseUrl: sim.url, userId: MP.userId, privateKey: MP.privateKey });
    const recording = capture(app.deps.db);
    await exerciseEveryPath({
      serviceUrl: app.url,
      operatorToken: OPERATOR_TOKEN,
      marketplace: { inUrl: MP.inUrl, privateKey: MP.privateKey, callbackToken: MP.token, mount: '/marketplace' },
      seedOrder: async (order) => void sim.sim.seedOrder(order as never),
      deliver: async () => {
        await deliverDueOnce(app.deps, client, { baseDelayMs: 1 });
        await webhookDeliverer(app)();
      },
      retention: () => runRetention(app.deps),
      pollFlights: () => pollFlightsOnce(app.deps, { lookup: () => Promise.resolve(null) }),
    });
    const statements = recording.stop();
    const { explained, violations } = await sequentialScans(app.deps.db, statements, 1000);
    console.log(
      `query plans: ${explained} distinct statements explained on ${SIZE.audit.toLocaleString('en-US')} audit rows, ${SIZE.quotes.toLocaleString('en-US')} quotes, ${SIZE.bookings.toLocaleString('en-US')} bookings; ${violations.length} sequential scans of large tables`,
    );
    expect(explained).toBeGreaterThan(40);
    expect(violations).toEqual([]);
  });
});
