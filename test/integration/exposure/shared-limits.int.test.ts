import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { freshDatabase, startTestApp, type TestApp, type TestDatabase } from '../../support/test-app';
import { client } from '../../support/http';
import { OPS_HEADERS } from '../../support/fixtures';
import { outageProxy } from '../../support/tcp-proxy';
import { eventually } from '../../support/eventually';
import { describeIf } from '../../support/skip';

const REDIS = new URL(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');

/** Whether a Redis answers PING at REDIS (the machines of this kind run one; CI requires it), asked synchronously. */
function redisAnswers(): boolean {
  const probe = `const s = require('net').connect(${Number(REDIS.port || 6379)}, ${JSON.stringify(REDIS.hostname)});
    s.setTimeout(1000, () => process.exit(1)); s.on('error', () => process.exit(1));
    s.on('connect', () => s.write('PING\\r\\n')); s.on('data', (d) => process.exit(String(d).startsWith('+PONG') ? 0 : 1));`;
  return spawnSync(process.execPath, ['-e', probe], { timeout: 5000 }).status === 0;
}
const here = process.env.TEST_REQUIRE_SYSTEM_PROGRAMS === 'true' || redisAnswers();

const RATE = { ANON_RATE_PER_S: '2', ANON_BURST: '30' }; // a window of 15 s: the tests stay inside one
const from = (address: string) => ({ 'X-Forwarded-For': address });

/**
 * REDIS_URL: three instances behind one balancer hold one anonymous limit together (without it, each would give an
 * address its own burst: three times the limit), and keep answering, each alone, when Redis goes away.
 */
describeIf(here, `needs Redis at ${REDIS.host} (TEST_REDIS_URL), not answering here`)('The anonymous limit shared through Redis', () => {
  let database: TestDatabase;
  const apps: TestApp[] = [];
  let proxy: ReturnType<typeof outageProxy>;

  beforeAll(async () => {
    proxy = outageProxy(REDIS.hostname, Number(REDIS.port || 6379));
    await proxy.open();
    database = await freshDatabase();
    // Its own keys in the shared Redis: other runs and files never count against these addresses.
    const env = { ...RATE, TRUST_PROXY: 'loopback', REDIS_URL: `redis://127.0.0.1:${proxy.port}`, REDIS_KEY_PREFIX: `test-${randomBytes(4).toString('hex')}` };
    for (let i = 0; i < 3; i += 1) apps.push(await startTestApp({ db: database, env }));
    await eventually('every instance connected to Redis', () => everyGauge(1));
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await database?.drop();
    await proxy?.cut();
  });

  async function gauge(app: TestApp): Promise<number | undefined> {
    const text = (await client(app.url)('GET', '/metrics', { headers: OPS_HEADERS })).text;
    const m = /^rate_limit_store_up\{store="redis"\} (\d+)/m.exec(text);
    return m ? Number(m[1]) : undefined;
  }
  const everyGauge = async (value: number) => ((await Promise.all(apps.map(gauge))).every((g) => g === value) ? true : undefined);
  const fallbacks = async (app: TestApp) =>
    Number(/^rate_limit_store_fallbacks_total (\d+)/m.exec((await client(app.url)('GET', '/metrics', { headers: OPS_HEADERS })).text)?.[1] ?? 'NaN');

  /** `n` anonymous pings from `address`, round robin over the three instances, four at a time; the statuses. */
  async function flood(address: string, n: number): Promise<number[]> {
    const statuses: number[] = [];
    for (let i = 0; i < n; i += 4) {
      const batch = Array.from({ length: Math.min(4, n - i) }, (_, j) =>
        client(apps[(i + j) % 3].url)('GET', '/transfers/v1/ping', { headers: from(address) }),
      );
      statuses.push(...(await Promise.all(batch)).map((r) => r.status));
    }
    return statuses;
  }

  it('when one address floods three instances, then together they let its burst through (within 20 %), not three bursts', async () => {
    const statuses = await flood('203.0.113.50', 90);
    const let_through = statuses.filter((s) => s === 401).length;
    expect(statuses.filter((s) => s !== 401 && s !== 429)).toEqual([]);
    expect(let_through).toBeGreaterThanOrEqual(30 * 0.8);
    expect(let_through).toBeLessThanOrEqual(30 * 1.2);
    // Every instance refused some: the limit is one, wherever the request lands.
    expect(await everyGauge(1)).toBe(true);
    // Another address has its own.
    expect((await flood('198.51.100.60', 3)).every((s) => s === 401)).toBe(true);
  });

  it('when Redis goes away, then each instance limits alone, never answering 5xx, and says so; when it is back, the limit is shared again', async () => {
    await proxy.cut();
    await eventually('the instances see Redis gone', () => everyGauge(0));
    const before = await fallbacks(apps[0]);
    const statuses = await flood('192.0.2.70', 120);
    expect(statuses.filter((s) => s !== 401 && s !== 429)).toEqual([]);
    // Alone, each instance gives the address its own burst: three bursts in all.
    expect(statuses.filter((s) => s === 401).length).toBe(90);
    expect(await fallbacks(apps[0])).toBeGreaterThan(before);

    await proxy.open();
    await eventually('the instances reconnected', () => everyGauge(1));
    const shared = await flood('192.0.2.71', 60);
    expect(shared.filter((s) => s === 401).length).toBe(30);
  });
});
