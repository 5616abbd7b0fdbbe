import { startServer, type RunningServer } from '../../../src/server';
import { ManualClock } from '../../../src/shared/clock';
import { startTestApp, backend, testConfig, type TestApp } from '../../support/test-app';
import { client, type Call } from '../../support/http';
import { operator } from '../../support/fixtures';

const NOW = '2026-11-21T08:00:00Z';
const QUOTE = {
  pickup: { iata: 'CMB' },
  dropoff: { name: 'Cinnamon Grand, 77 Galle Road, Colombo 03' },
  pickup_datetime: '2026-12-01T09:30:00+05:30',
  passengers: { adults: 2 },
};

describe(`Anonymous requests are limited per client address (${backend})`, () => {
  let app: TestApp;
  let call: Call;
  const clock = new ManualClock(NOW);

  beforeAll(async () => {
    app = await startTestApp({ clock, env: { ANON_RATE_PER_S: '2', ANON_BURST: '5', TRUST_PROXY: 'loopback' } });
    call = client(app.url);
  });
  afterAll(() => app.close());

  const from = (address: string) => ({ 'X-Forwarded-For': address });

  it('when an address sends more than its burst without a key, then 429 rate_limited with Retry-After and the RateLimit headers, audited as refused', async () => {
    const replies = [];
    for (let i = 0; i < 6; i += 1) replies.push(await call('POST', '/transfers/v1/quotes', { body: QUOTE, headers: from('203.0.113.7') }));
    expect(replies.map((r) => r.status)).toEqual([401, 401, 401, 401, 401, 429]);
    const limited = replies[5];
    expect(limited.body).toEqual({
      env: null,
      error: {
        code: 'rate_limited',
        message: 'Too many requests without a valid credential from this address; retry after 1 s.',
        details: { scope: 'anonymous', requests_per_second: 2, burst: 5, retry_after_seconds: 1 },
      },
    });
    expect(limited.headers.get('retry-after')).toBe('1');
    expect(limited.headers.get('ratelimit-policy')).toBe('"anonymous";q=5;w=3');
    expect(limited.headers.get('ratelimit')).toBe('"anonymous";r=0;t=1');
    const row = await app
      .db('audit_log')
      .where({ requestId: limited.headers.get('x-request-id') })
      .first();
    expect(row).toMatchObject({ status: 429, client: '203.0.113.7' });
    expect(row.requestBody.$refused.bytes).toBe(JSON.stringify(QUOTE).length);
  });

  it('when another address behind the same proxy asks, then it has its own bucket; when time passes, the first may ask again', async () => {
    expect((await call('GET', '/transfers/v1/ping', { headers: from('198.51.100.9') })).status).toBe(401);
    expect((await call('GET', '/transfers/v1/ping', { headers: from('203.0.113.7') })).status).toBe(429);
    clock.advance(1000);
    expect((await call('GET', '/transfers/v1/ping', { headers: from('203.0.113.7') })).status).toBe(401);
    expect((await call('GET', '/transfers/v1/ping', { headers: from('203.0.113.7') })).status).toBe(401);
    expect((await call('GET', '/transfers/v1/ping', { headers: from('203.0.113.7') })).status).toBe(429);
  });

  it('when the address is out of tokens, then a valid key from it is still served', async () => {
    const { testKey } = await operator(app.url).partnerWithKeys('Shares an office NAT');
    for (let i = 0; i < 10; i += 1) await call('GET', '/nowhere', { headers: from('192.0.2.55') });
    expect((await call('GET', '/transfers/v1/ping', { headers: from('192.0.2.55') })).status).toBe(429);
    const r = await call('GET', '/transfers/v1/ping', { key: testKey, headers: from('192.0.2.55') });
    expect(r.status).toBe(200);
  });

  it('when unknown routes, the console and the marketplace are flooded, then they are limited too', async () => {
    for (const path of ['/nowhere', '/transfers/v1/console', '/marketplace/search/']) {
      const address = `192.0.2.${path.length}`;
      const statuses = [];
      for (let i = 0; i < 6; i += 1) statuses.push((await call('GET', path, { headers: from(address) })).status);
      expect([path, statuses[5]]).toEqual([path, 429]);
    }
  });

  it('when the rate limit refuses, then the metrics count it by scope', async () => {
    const r = await call('GET', '/metrics', { headers: { Authorization: `Bearer ${app.operatorToken}` } });
    expect(r.text).toMatch(/^rate_limited_total\{scope="anonymous"\} (\d+)$/m);
    expect(Number(/^rate_limited_total\{scope="anonymous"\} (\d+)$/m.exec(r.text)![1])).toBeGreaterThanOrEqual(5);
  });
});

describe(`Without TRUST_PROXY, X-Forwarded-For names nobody (${backend})`, () => {
  it('when a client claims another address, then its own is the one limited and audited', async () => {
    const app = await startTestApp({ env: { ANON_BURST: '2' } });
    try {
      const call = client(app.url);
      const statuses = [];
      for (let i = 0; i < 3; i += 1) statuses.push((await call('GET', '/transfers/v1/ping', { headers: { 'X-Forwarded-For': `10.9.9.${i}` } })).status);
      expect(statuses).toEqual([401, 401, 429]);
      const rows = await app.db('audit_log').where({ path: '/transfers/v1/ping' }).select('client');
      expect(new Set(rows.map((r) => r.client))).toEqual(new Set(['127.0.0.1']));
    } finally {
      await app.close();
    }
  });
});

describe(`A partner's own limit holds across instances (${backend})`, () => {
  let app: TestApp;
  let second: RunningServer;
  const clock = new ManualClock(NOW);

  beforeAll(async () => {
    app = await startTestApp({ clock });
    // A second instance on the same database, as a second process behind a balancer would be.
    second = await startServer({ config: testConfig({ ...app.dbEnv }), db: app.db, clock, outboxWorker: false });
  });
  afterAll(async () => {
    await second.stop();
    await app.close();
  });

  it('when an operator sets a limit, then the two instances together serve exactly the burst, then the rate; null removes it', async () => {
    const ops = operator(app.url);
    const partner = await ops.partnerWithKeys('Limited Partner');
    const set = await ops.call('PUT', `/partners/${partner.partner_id}/rate-limit`, { body: { env: 'sandbox', requests_per_second: 2, burst: 6 } });
    expect(set.status).toBe(200);
    expect(set.body.rate_limits).toEqual({ sandbox: { requests_per_second: 2, burst: 6 }, production: null });

    const calls = [client(app.url), client(second.url)];
    const quote = (i: number) => calls[i % 2]('POST', '/transfers/v1/quotes', { key: partner.testKey, body: QUOTE });
    const first = await Promise.all(Array.from({ length: 20 }, (_, i) => quote(i)));
    expect(first.filter((r) => r.status === 200)).toHaveLength(6);
    const refused = first.filter((r) => r.status === 429);
    expect(refused).toHaveLength(14);
    expect(refused[0].body.error.details.scope).toBe('partner');
    expect(refused[0].headers.get('ratelimit-policy')).toBe('"partner";q=6;w=3');
    expect(Number(refused[0].headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Refused quotes stored nothing but their audit rows.
    const quotes = await app.db('quotes').where({ partnerId: partner.partner_id }).count<{ count: string }[]>('* as count');
    expect(Number(quotes[0].count)).toBe(6);
    // The production key has no limit.
    expect((await client(app.url)('POST', '/transfers/v1/quotes', { key: partner.liveKey, body: QUOTE })).status).toBe(200);

    clock.advance(1000);
    const next = await Promise.all(Array.from({ length: 6 }, (_, i) => quote(i)));
    expect(next.filter((r) => r.status === 200)).toHaveLength(2);

    const removed = await ops.call('PUT', `/partners/${partner.partner_id}/rate-limit`, { body: { env: 'sandbox', requests_per_second: null } });
    expect(removed.body.rate_limits).toEqual({ sandbox: null, production: null });
    // Both instances heard the bucket was empty; the change reaches them on the partner's next request all the same.
    const free = await Promise.all(Array.from({ length: 10 }, (_, i) => quote(i)));
    expect(free.every((r) => r.status === 200)).toBe(true);
  });

  it('when a limit is removed while this instance still holds the key with it, then the sandbox resume helper does not bring the old limit back', async () => {
    const ops = operator(app.url);
    const partner = await ops.partnerWithKeys('Resumed After Its Limit');
    const call = client(app.url);
    await ops.call('PUT', `/partners/${partner.partner_id}/rate-limit`, { body: { env: 'sandbox', requests_per_second: 1, burst: 3 } });
    // This instance now knows the key with the limit (burst 3), and the clock stands still: nothing refills.
    expect((await call('GET', '/transfers/v1/ping', { key: partner.testKey })).status).toBe(200);
    const removed = await ops.call('PUT', `/partners/${partner.partner_id}/rate-limit`, { body: { env: 'sandbox', requests_per_second: null } });
    expect(removed.body.rate_limits).toEqual({ sandbox: null, production: null });

    // The helper changes the partner itself: it must not commit on the credentials it held (the removed limit's).
    expect((await call('POST', '/transfers/v1/test_helpers/account/resume', { key: partner.testKey })).status).toBe(200);
    const pings = await Promise.all(Array.from({ length: 6 }, () => call('GET', '/transfers/v1/ping', { key: partner.testKey })));
    expect(pings.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    // The bucket is the default limit's (SANDBOX_BURST), not one refilled to the removed limit's 3.
    const [bucket] = await app.db('rate_buckets').where({ scope: `partner:${partner.partner_id}:sandbox` });
    expect(bucket.tokens).toBeGreaterThan(1000);
  });

  it('when a partner is over its limit, then a booking is refused too and nothing of it is kept', async () => {
    const ops = operator(app.url);
    const partner = await ops.partnerWithKeys('Booking Limited');
    const call = client(app.url);
    const q = await call('POST', '/transfers/v1/quotes', { key: partner.testKey, body: QUOTE });
    await ops.call('PUT', `/partners/${partner.partner_id}/rate-limit`, { body: { env: 'sandbox', requests_per_second: 1, burst: 1 } });
    expect((await call('GET', '/transfers/v1/ping', { key: partner.testKey })).status).toBe(200);
    const offer = q.body.offers[0];
    const b = await call('POST', '/transfers/v1/bookings', {
      key: partner.testKey,
      headers: { 'Idempotency-Key': 'limited-1' },
      body: {
        quote_id: q.body.quote_id,
        offer_id: offer.offer_id,
        partner_reference: 'LIM-1',
        passenger: { first_name: 'A', last_name: 'B' },
        passengers: { adults: 2 },
        flight_number: 'UL504',
      },
    });
    expect(b.status).toBe(429);
    expect(await app.db('bookings').where({ partnerId: partner.partner_id })).toHaveLength(0);
    expect(await app.db('idempotency_keys').where({ partnerId: partner.partner_id })).toHaveLength(0);
  });
});

describe(`Sandbox keys have a default limit, production none; IPv6 clients count per /64 (${backend})`, () => {
  let app: TestApp;
  const clock = new ManualClock(NOW);

  beforeAll(async () => {
    app = await startTestApp({ clock, env: { SANDBOX_RATE_PER_S: '1', SANDBOX_BURST: '3', ANON_RATE_PER_S: '1', ANON_BURST: '2', TRUST_PROXY: 'loopback' } });
  });
  afterAll(() => app.close());

  it('when a sandbox key has no limit of its own, then the default holds it; production is not limited; an operator raises it', async () => {
    const call = client(app.url);
    const ops = operator(app.url);
    const partner = await ops.partnerWithKeys('Default Limited Partner');
    const sandbox = await Promise.all(Array.from({ length: 5 }, () => call('POST', '/transfers/v1/quotes', { key: partner.testKey, body: QUOTE })));
    expect(sandbox.map((r) => r.status).sort()).toEqual([200, 200, 200, 429, 429]);
    const refused = sandbox.find((r) => r.status === 429)!;
    expect(refused.body.error.details).toMatchObject({ scope: 'partner', requests_per_second: 1, burst: 3 });
    expect(refused.headers.get('ratelimit-policy')).toBe('"partner";q=3;w=3');
    const live = await Promise.all(Array.from({ length: 5 }, () => call('POST', '/transfers/v1/quotes', { key: partner.liveKey, body: QUOTE })));
    expect(live.every((r) => r.status === 200)).toBe(true);
    // The partner's view shows no limit set; the default applies to sandbox until an operator sets one.
    const raised = await ops.call('PUT', `/partners/${partner.partner_id}/rate-limit`, { body: { env: 'sandbox', requests_per_second: 100, burst: 200 } });
    expect(raised.body.rate_limits.sandbox).toEqual({ requests_per_second: 100, burst: 200 });
    const after = await Promise.all(Array.from({ length: 10 }, () => call('POST', '/transfers/v1/quotes', { key: partner.testKey, body: QUOTE })));
    expect(after.every((r) => r.status === 200)).toBe(true);
  });

  it('when addresses of one IPv6 /64 send without a key, then they share one bucket; another /64 has its own', async () => {
    const call = client(app.url);
    const from = (address: string) => ({ headers: { 'X-Forwarded-For': address } });
    const statuses = [];
    for (const a of ['2001:db8:1:2::1', '2001:db8:1:2::2', '2001:db8:1:2:ffff::3']) statuses.push((await call('GET', '/transfers/v1/ping', from(a))).status);
    expect(statuses).toEqual([401, 401, 429]);
    expect((await call('GET', '/transfers/v1/ping', from('2001:db8:1:3::1'))).status).toBe(401);
  });
});
