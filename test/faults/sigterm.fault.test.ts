import { bookingLoad, databaseInvariants, dataDir, partnerKey, PG_URL, pgSchema, SHORT, sleep, startService, verifyBookings } from './support';
import { makeKnex } from '../../src/data/knex';
import { testConfig } from '../support/test-app';

/**
 * SIGTERM under load: requests already running finish; requests that arrive meanwhile are refused cleanly (503 with
 * Retry-After and Connection: close, or a refused connection once the listener is closed); the process exits 0; and
 * after a restart nothing acknowledged is missing.
 */
describe('When the service gets SIGTERM under load', () => {
  it('then in-flight requests finish, new ones are refused cleanly, and nothing is lost', async () => {
    const store = PG_URL ? await pgSchema() : dataDir();
    let svc = await startService(store.env);
    try {
      const { key } = await partnerKey(svc.url);
      const load = bookingLoad(() => svc.url, key, 10);
      await sleep(SHORT ? 1500 : 4000);
      const code = await svc.stop();
      const attempts = await load.stop();
      expect(code).toBe(0);
      const answered = attempts.filter((a) => a.reply);
      const refused = attempts.filter((a) => a.reply?.status === 503);
      const unanswered = attempts.filter((a) => !a.reply);
      console.log(
        `SIGTERM: ${attempts.length} booking attempts, ${answered.filter((a) => a.reply!.status === 201).length} booked, ${refused.length} refused with 503 while draining, ${unanswered.length} without an answer (${[...new Set(unanswered.map((a) => a.error))].join(', ') || 'none'}: refused at connect, or a keep-alive connection closed as the request went out; settled by retrying with its key)`,
      );
      expect(answered.every((a) => a.reply!.status === 201 || a.reply!.status === 503)).toBe(true);
      expect(refused.every((a) => a.reply!.headers.get('retry-after') && a.reply!.headers.get('connection') === 'close')).toBe(true);

      svc = await startService(store.env);
      const verified = await verifyBookings(svc.url, key, attempts);
      expect(verified.problems).toEqual([]);
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
