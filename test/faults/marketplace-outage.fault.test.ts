import { startMarketplaceSim } from '../../simulators/marketplace/app';
import { sampleMarketplaceOrder } from '../../harness/fixtures/marketplace-orders';
import {
  call,
  dataDir,
  localInDays,
  marketplaceEnv,
  MP_IN_URL,
  MP_KEY,
  MP_TOKEN,
  OPERATOR_TOKEN,
  PG_URL,
  pgSchema,
  SHORT,
  sim,
  sleep,
  startService,
  waitUntil,
} from './support';

/**
 * The marketplace goes down (every call 503), then is slow (1.5 s per call), then is back. Orders taken meanwhile
 * owe it a confirmation each: after recovery every one is delivered, exactly once, well inside the marketplace's
 * 60-minute deadline for confirmations.
 */
describe('When the marketplace is down, then slow, then back', () => {
  it('then every confirmation owed is delivered exactly once after recovery, within the deadline', async () => {
    const mp = await startMarketplaceSim({ userId: '1001', privateKey: MP_KEY, port: 0 });
    const store = PG_URL ? await pgSchema() : dataDir();
    const svc = await startService({ ...store.env, ...marketplaceEnv(mp.url) });
    mp.sim.setSupplier({ inUrl: MP_IN_URL, baseUrl: `${svc.url}/marketplace`, callbackToken: MP_TOKEN });
    try {
      const n = SHORT ? 6 : 20;
      expect(await sim(mp.url, 'POST', '/scenarios', { fail_next: { count: 1000, status: 503 } })).toMatchObject({
        scenario: { fail_next: { count: 1000, status: 503 } },
      });
      const orderIds = Array.from({ length: n }, (_, i) => `FAULT-MP-${Date.now()}-${i}`);
      // Each order its own day: the embedded demo fleet has room for every one.
      for (const [i, id] of orderIds.entries()) {
        const r = await sim(mp.url, 'POST', '/drive/book', { order: sampleMarketplaceOrder(id, { date: localInDays(6 + i) }) });
        expect(r.response).toMatchObject({ status: 200, body: { order_state: 'confirmed' } });
      }
      await sleep(SHORT ? 2000 : 5000);
      const whileDown = (await sim(mp.url, 'GET', '/calls?operation=confirmOrder')).calls as Array<{ status: number }>;
      expect(whileDown.length).toBeGreaterThanOrEqual(n);
      expect(whileDown.every((c) => c.status === 503)).toBe(true);
      const failedWhileDown = whileDown.length;
      // Until this moment every call was refused: nothing can have been delivered before it.
      const backAt = Date.now();
      expect(await sim(mp.url, 'POST', '/scenarios', { fail_next: null, latency_ms: 1500 })).toMatchObject({ scenario: { fail_next: null, latency_ms: 1500 } });
      await sleep(SHORT ? 2000 : 5000);
      await sim(mp.url, 'POST', '/scenarios', { latency_ms: 0 });

      const delivered = async () => {
        const r = await call(svc.url, 'GET', '/ops/v1/outbox?limit=200', { token: OPERATOR_TOKEN });
        const confirms = (r.body.data as Array<{ kind: string; status: string }>).filter((m) => m.kind === 'confirm_order');
        return confirms.length === n && confirms.every((m) => m.status === 'delivered');
      };
      await waitUntil(delivered, 120_000, 'every confirmation delivered');

      const calls = (await sim(mp.url, 'GET', '/calls?operation=confirmOrder')).calls as Array<{ status: number; json: { order_id: string } }>;
      const accepted = calls.filter((c) => c.status === 200);
      console.log(
        `marketplace outage: ${n} orders; ${failedWhileDown} confirm attempts refused while down, ${calls.length} attempts in all, ${accepted.length} accepted`,
      );
      expect(accepted.map((c) => c.json.order_id).sort()).toEqual([...orderIds].sort());
      const outbox = (await call(svc.url, 'GET', '/ops/v1/outbox?limit=200', { token: OPERATOR_TOKEN })).body.data as Array<{
        kind: string;
        created_at: string;
        delivered_at: string;
        attempts: number;
      }>;
      const confirmed = outbox.filter((m) => m.kind === 'confirm_order');
      expect(confirmed).toHaveLength(n);
      // Each was queued while the marketplace was down and delivered only once it was back.
      for (const m of confirmed) {
        expect(Date.parse(m.created_at)).toBeLessThan(backAt);
        expect(Date.parse(m.delivered_at)).toBeGreaterThanOrEqual(backAt);
      }
    } finally {
      await svc.stop();
      await mp.stop();
      await store.drop();
    }
  });
});
