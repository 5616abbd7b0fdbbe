import { pooledDatabase, startTestApp, type TestApp, type TestDatabase } from '../../support/test-app';
import { client } from '../../support/http';
import { operator } from '../../support/fixtures';
import { firstOfferBooking, quote } from '../../support/bookings';
import { capturedLogger } from '../../support/logs';
import { backend } from '../../support/test-app';
import { describeIf, hasProgram, needsPostgres, needsProgram } from '../../support/skip';

/** scripts/pgbouncer.js: PgBouncer from deploy/pgbouncer.ini on a free port (plain JavaScript, shared with scripts/test.js). */
interface Pooler {
  url(database: string): string;
  stop(): void;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startPgbouncer } = require('../../../scripts/pgbouncer') as { startPgbouncer(o: { upstream: string; connectQuery?: boolean }): Pooler };

const PGBOUNCER = '/usr/sbin/pgbouncer';
const here = backend === 'postgres' && (process.env.TEST_REQUIRE_SYSTEM_PROGRAMS === 'true' || hasProgram(PGBOUNCER));
const why = backend !== 'postgres' ? needsPostgres('PgBouncer sits in front of a PostgreSQL server') : needsProgram(PGBOUNCER);

/**
 * The service behind PgBouncer in transaction mode (deploy/pgbouncer.ini), as production runs it: the tries the
 * issue was measured with (20 bookings of one offer, 10 requests with one Idempotency-Key, a partner made through
 * the operator API), on the direct run too. The whole integration phase also runs through one (integration-pooled).
 */
describeIf(here, why)('Behind a transaction pooler', () => {
  let pooler: Pooler;
  let database: TestDatabase;
  let app: TestApp;
  const logs = capturedLogger('info');

  beforeAll(async () => {
    pooler = startPgbouncer({ upstream: process.env.DATABASE_URL! });
    database = await pooledDatabase(pooler.url(''));
    app = await startTestApp({ db: database, logger: logs.logger, env: { IDEMPOTENCY_WAIT_MS: '5000' } });
  });
  afterAll(async () => {
    await app?.close();
    await database?.drop();
    pooler?.stop();
  });

  it('when 20 requests race for one offer and 10 share one Idempotency-Key, then one booking each way and no 5xx; the operator API works', async () => {
    const ops = operator(app.url);
    const p = await ops.partnerWithKeys('Pooled Travel');
    const call = client(app.url);
    const book = async (key: string, headers: Record<string, string>, reference: string) => {
      const q = await quote(call, key);
      return {
        q,
        send: (h = headers, ref = reference) =>
          call('POST', '/transfers/v1/bookings', {
            key,
            headers: h,
            body: firstOfferBooking(q.body, ref),
          }),
      };
    };

    const race = await book(p.testKey, {}, 'R');
    const raced = await Promise.all(Array.from({ length: 20 }, (_, i) => race.send({ 'Idempotency-Key': `race-${i}` }, `RACE-${i}`)));
    const statuses = raced.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s !== 201)).toEqual(Array(19).fill(409));

    const same = await book(p.testKey, { 'Idempotency-Key': 'one-key' }, 'ONE-KEY');
    const replays = await Promise.all(Array.from({ length: 10 }, () => same.send()));
    // One booking: the first 201, the others its replay (200) or, while it was still running, 409 in_progress.
    expect(replays.every((r) => [200, 201, 409].includes(r.status))).toBe(true);
    const refs = new Set(replays.filter((r) => r.status < 300).map((r) => r.body.booking_ref));
    expect(refs.size).toBe(1);
    const stored = await app.db('bookings').where({ partner_reference: 'ONE-KEY' });
    expect(stored).toHaveLength(1);
    expect(await app.db('bookings').where({ offer_id: race.q.body.offers[0].offer_id })).toHaveLength(1);
    // Every request audited, once.
    const audited = await app
      .db('audit_log')
      .where({ surface: 'transfers', direction: 'inbound', path: '/transfers/v1/bookings' })
      .count<{ count: string }[]>('* as count');
    expect(Number(audited[0].count)).toBe(30);

    const created = await ops.call('POST', '/partners', { body: { name: 'Made Through The Pooler' } });
    expect(created.status).toBe(201);
    // The pooler sets the timeouts per server connection (connect_query): the start found them and said nothing.
    expect(logs.lines.join('')).not.toMatch(/no lock_timeout or statement_timeout/);
  });

  it('when the pooler sets no timeouts on its server connections, then the start says so, naming both settings', async () => {
    const bare = startPgbouncer({ upstream: process.env.DATABASE_URL!, connectQuery: false });
    const seen = capturedLogger('info');
    const db = await pooledDatabase(bare.url(''));
    try {
      const other = await startTestApp({ db, logger: seen.logger });
      await other.close();
    } finally {
      await db.drop();
      bare.stop();
    }
    const line = seen.lines
      .map((l) => JSON.parse(l) as { level: number; msg: string; lockTimeout?: string })
      .find((l) => /no lock_timeout or statement_timeout/.test(l.msg));
    expect(line).toMatchObject({ level: 50, lockTimeout: '0' });
    expect(line?.msg).toContain('deploy/pgbouncer.ini');
  });
});
