import http from 'node:http';
import { freshDatabase, startTestApp, testConfig, type TestApp } from '../../support/test-app';
import { client } from '../../support/http';
import { outageProxy } from '../../support/tcp-proxy';
import { operator } from '../../support/fixtures';
import { makeKnex } from '../../../src/data/knex';
import { startServer } from '../../../src/server';
import { describeOnPostgres } from '../../support/skip';
import { eventually } from '../../support/eventually';
import { quoteAndBook } from '../../support/bookings';

describeOnPostgres('a TCP proxy in front of a database server is cut; the embedded database has no connection to cut')(
  'When the database goes away and comes back',
  () => {
    it('then requests get 503 with Retry-After, and the service recovers by itself', async () => {
      const fresh = await freshDatabase();
      // The database as the service reaches it (the pooler, on the pass through one).
      const target = new URL(fresh.env.DATABASE_URL ?? process.env.DATABASE_URL!);
      const proxy = outageProxy(target.hostname, Number(target.port || 5432));
      await proxy.open();
      const viaProxy = new URL(target.toString());
      viaProxy.hostname = '127.0.0.1';
      viaProxy.port = String(proxy.port);
      const config = testConfig({ ...fresh.env, DATABASE_URL: viaProxy.toString() });
      const db = makeKnex({ ...config });
      (db.client.config as { acquireConnectionTimeout: number }).acquireConnectionTimeout = 1500;
      const running = await startServer({ config, db });
      try {
        const ops = operator(running.url);
        const p = await ops.partnerWithKeys('Outage Travel');
        const call = client(running.url);
        expect((await call('GET', '/transfers/v1/ping', { key: p.testKey })).status).toBe(200);

        await proxy.cut();
        const down = await call('GET', '/transfers/v1/ping', { key: p.testKey });
        expect(down.status).toBe(503);
        expect(down.headers.get('retry-after')).toBe('2');
        // The key was verified by this instance before the outage: the answer names its environment.
        expect(down.body).toEqual({ env: 'sandbox', error: { code: 'service_unavailable', message: expect.any(String), details: {} } });
        const createDuringOutage = await ops.call('POST', '/partners', { body: { name: 'During Outage' } });
        expect(createDuringOutage.status).toBe(503);

        await proxy.open();
        // Recovers by itself: the pool reconnects on the next requests (within a few seconds, no restart).
        const up = await eventually(
          'a 200 once the database is back',
          async () => {
            const r = await call('GET', '/transfers/v1/ping', { key: p.testKey });
            return r.status === 200 ? r : undefined;
          },
          15_000,
        );
        expect(up.status).toBe(200);
        expect(await fresh.db('partners').where({ name: 'During Outage' })).toHaveLength(0);
      } finally {
        await running.stop();
        await db.destroy();
        await proxy.cut().catch(() => undefined);
        await fresh.drop();
      }
    });
  },
);

describeOnPostgres('the embedded database has one connection: nothing else can hold a row')('When another transaction holds a row past lock_timeout', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ env: { IDEMPOTENCY_WAIT_MS: '300' } });
  });
  afterAll(async () => {
    await app.close();
  });

  it('then a request that needs it is answered 503 with Retry-After (busy, not a bug), audited, and changes nothing; retried once the row is free, it runs', async () => {
    const p = await operator(app.url).partnerWithKeys('Locked Row Travel');
    const call = client(app.url);
    const { booking } = await quoteAndBook(call, p.testKey);
    const ref = booking.booking_ref as string;
    // Another session (a stuck transaction, an operator's console) holds the booking's row.
    const holder = await app.db.transaction();
    try {
      await holder.raw('select 1 from bookings where booking_ref = ? for update', [ref]);
      const busy = await call('POST', `/transfers/v1/bookings/${ref}/cancel`, { key: p.testKey, headers: { 'Idempotency-Key': `cancel-${ref}` } });
      expect(busy.status).toBe(503);
      expect(busy.headers.get('retry-after')).toBe('2');
      expect(busy.body.error.code).toBe('service_unavailable');
      const audited = await app.db('audit_log').where({ requestId: busy.headers.get('x-request-id') });
      expect(audited.map((a) => a.status)).toEqual([503]);
    } finally {
      await holder.rollback();
    }
    expect((await app.db('bookings').where({ bookingRef: ref }).first()).status).toBe('confirmed');
    const done = await call('POST', `/transfers/v1/bookings/${ref}/cancel`, { key: p.testKey, headers: { 'Idempotency-Key': `cancel-${ref}` } });
    expect(done.status).toBe(200);
    expect(done.body.status).toBe('cancelled');
  });

  it('then a request whose commit waits on the audit log itself past lock_timeout is answered 503 (busy), not 500, and changes nothing', async () => {
    const p = await operator(app.url).partnerWithKeys('Locked Log Travel');
    const call = client(app.url);
    const { booking } = await quoteAndBook(call, p.testKey);
    const ref = booking.booking_ref as string;
    // Another session holds the audit log (a long report, a migration): the cancel runs, then cannot append its row.
    // It lets go as soon as the cancel has given up waiting once, so an answer written after that wait (a 500 and its
    // own audit row) would go through.
    const holder = await app.db.transaction();
    const waiters = async (): Promise<string[]> =>
      (await app.db.raw(`select virtualtransaction as v from pg_locks where not granted and relation = 'audit_log'::regclass`)).rows.map(
        (r: { v: string }) => r.v,
      );
    try {
      await holder.raw('lock table audit_log in share mode');
      const answer = call('POST', `/transfers/v1/bookings/${ref}/cancel`, { key: p.testKey, headers: { 'Idempotency-Key': `cancel-${ref}` } });
      const [first] = await eventually('the cancel waiting on the audit log', async () => {
        const w = await waiters();
        return w.length ? w : undefined;
      });
      await eventually('the cancel past lock_timeout', async () => ((await waiters()).includes(first) ? undefined : true));
      await holder.rollback();
      const busy = await answer;
      expect(busy.status).toBe(503);
      expect(busy.headers.get('retry-after')).toBe('2');
      expect(busy.body.error.code).toBe('service_unavailable');
    } finally {
      if (!holder.isCompleted()) await holder.rollback();
    }
    expect((await app.db('bookings').where({ bookingRef: ref }).first()).status).toBe('confirmed');
    const done = await call('POST', `/transfers/v1/bookings/${ref}/cancel`, { key: p.testKey, headers: { 'Idempotency-Key': `cancel-${ref}` } });
    expect(done.status).toBe(200);
    expect(done.body.status).toBe('cancelled');
  });
});

describe('Graceful shutdown', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app.close().catch(() => undefined);
  });

  it('when stop is called while a request is in flight, then that request completes before the server closes', async () => {
    await operator(app.url).partnerWithKeys('Drain Travel');
    const body = JSON.stringify({ name: 'Slow Upload Partner' });
    // The server has the request (its head parsed, its body not all sent) before stop is called: no waiting on time.
    const arrived = new Promise<void>((resolve) => app.server.once('request', () => resolve()));
    let req!: http.ClientRequest;
    const reply = new Promise<{ status: number; body: string }>((resolve, reject) => {
      req = http.request(
        `${app.url}/ops/v1/partners`,
        {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), Authorization: 'Bearer op_test_operator_token_0123456789' },
        },
        (res) => {
          let text = '';
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode!, body: text }));
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, 5));
    });
    await arrived;
    // stop() closes the listener at once (before its first await); the rest of the body comes after that.
    const stopped = app.stop();
    req.end(body.slice(5));
    const r = await reply;
    await stopped;
    expect(r.status).toBe(201);
    expect(JSON.parse(r.body).name).toBe('Slow Upload Partner');
    // What the drained request wrote is kept (the test's database outlives the server).
    expect(await app.db('partners').where({ name: 'Slow Upload Partner' })).toHaveLength(1);
    await expect(fetch(`${app.url}/transfers/v1/ping`)).rejects.toThrow();
  });
});
