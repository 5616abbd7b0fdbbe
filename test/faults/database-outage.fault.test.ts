import { outageProxy } from '../support/tcp-proxy';
import { bookingLoad, databaseInvariants, partnerKey, PG_URL, pgSchema, SHORT, sleep, startService, verifyBookings } from './support';
import { describeIf, needsPostgres } from '../support/skip';

/**
 * PostgreSQL becomes unreachable in the middle of a booking load (a TCP proxy in front of it is cut) and comes back:
 * meanwhile the service answers 503 with Retry-After and writes nothing half; afterwards it recovers by itself, with
 * no restart, and every attempt refused during the outage books when retried with its key.
 */
describeIf(!!PG_URL, needsPostgres('a TCP proxy in front of the database server is cut'))('When PostgreSQL becomes unreachable under load', () => {
  it('then 503 with Retry-After meanwhile, nothing half-written, and recovery without a restart', async () => {
    const store = await pgSchema();
    const target = new URL(PG_URL!);
    const proxy = outageProxy(target.hostname, Number(target.port || 5432));
    await proxy.open();
    const viaProxy = new URL(PG_URL!);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    const svc = await startService({ ...store.env, DATABASE_URL: viaProxy.toString(), DATABASE_STATEMENT_TIMEOUT_MS: '3000' });
    try {
      const { key } = await partnerKey(svc.url);
      const load = bookingLoad(() => svc.url, key, 6);
      await sleep(SHORT ? 1000 : 3000);
      const cutAt = Date.now();
      await proxy.cut();
      await sleep(SHORT ? 2000 : 5000);
      await proxy.open();
      const restoredAt = Date.now();
      await sleep(SHORT ? 3000 : 6000);
      const attempts = await load.stop();

      const during = attempts.filter((a) => a.at >= cutAt && a.at < restoredAt);
      const refused = attempts.filter((a) => a.reply?.status === 503);
      const after = attempts.filter((a) => a.at > restoredAt + 1500);
      const other5xx = attempts.filter((a) => a.reply && a.reply.status >= 500 && a.reply.status !== 503);
      console.log(
        `database outage: ${attempts.length} booking attempts; ${during.length} started during the ${((restoredAt - cutAt) / 1000).toFixed(1)} s outage, ` +
          `${refused.length} bookings and ${load.quotesRefused.length} quotes answered 503 + Retry-After; ${after.filter((a) => a.reply?.status === 201).length} booked after recovery (no restart)`,
      );
      expect(refused.length + load.quotesRefused.length).toBeGreaterThan(0);
      expect(load.quotesRefused.every((q) => q.retryAfter)).toBe(true);
      expect(other5xx.map((a) => a.reply!.text)).toEqual([]);
      expect(refused.every((a) => a.reply!.headers.get('retry-after'))).toBe(true);
      expect(after.some((a) => a.reply?.status === 201)).toBe(true);

      const verified = await verifyBookings(svc.url, key, attempts);
      expect(verified.problems).toEqual([]);
      expect(await databaseInvariants(store.knex)).toEqual([]);
    } finally {
      await svc.stop();
      await proxy.cut();
      await store.drop();
    }
  });
});
