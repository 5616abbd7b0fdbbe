import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { makeKnex } from '../../src/data/knex';
import { testConfig } from '../support/test-app';
import { bookingLoad, databaseInvariants, dataDir, partnerKey, PG_URL, pgSchema, ROOT, SHORT, sleep, startService, verifyBookings } from './support';
import { itIf, needsPostgres, onEmbeddedRun } from '../support/skip';

/**
 * kill -9 in the middle of a booking load, then a restart on the same data: nothing acknowledged is lost, nothing
 * is booked twice, and every attempt whose answer was lost settles by retrying it with its key.
 */
describe.each([
  ['PostgreSQL', !!PG_URL, needsPostgres('this variant runs the service on a database server; the embedded-directory variant runs here')],
  ['the embedded database directory', !PG_URL, onEmbeddedRun('the embedded-directory variant')],
])('When the service is killed (-9) under a booking load on %s', (name, available, reason) => {
  itIf(available, reason)('then after a restart every 201 reads back and replays, no offer is booked twice, and every 201 has its audit row', async () => {
    const store = name === 'PostgreSQL' ? await pgSchema() : dataDir();
    try {
      // `npm run migrate` prepares the database before the first start, as a deployment would.
      const migrated = await promisify(execFile)(process.execPath, ['dist/src/cli/migrate.js'], { cwd: ROOT, env: { PATH: process.env.PATH, ...store.env } });
      expect(migrated.stdout).toMatch(/migrated from none to \d+/);

      let svc = await startService(store.env);
      const { key } = await partnerKey(svc.url);
      const load = bookingLoad(() => svc.url, key, 8);
      await sleep(SHORT ? 1500 : 5000);
      svc.proc.kill('SIGKILL');
      expect(await svc.exited).toBeNull();
      const attempts = await load.stop();

      svc = await startService(store.env);
      const verified = await verifyBookings(svc.url, key, attempts);
      console.log(
        `kill -9 on ${name}: ${verified.attempts} booking attempts, ${verified.acknowledged} acknowledged (201) before the kill, ${verified.settledByReplay} in flight and settled by retrying with their key`,
      );
      expect(verified.problems).toEqual([]);
      expect(verified.acknowledged).toBeGreaterThan(0);
      expect(await svc.stop()).toBe(0);

      const knex = 'knex' in store ? store.knex : makeKnex(testConfig({ DATABASE_URL: undefined, DATA_DIR: store.dir }));
      try {
        expect(await databaseInvariants(knex)).toEqual([]);
      } finally {
        if (!('knex' in store)) await knex.destroy();
      }
    } finally {
      await store.drop();
    }
  });
});
