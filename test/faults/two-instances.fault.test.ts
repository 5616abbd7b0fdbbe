import { startMarketplaceSim } from '../../simulators/marketplace/app';
import { sampleMarketplaceOrder } from '../../harness/fixtures/marketplace-orders';
import {
  call,
  databaseInvariants,
  localInDays,
  marketplaceEnv,
  MP_IN_URL,
  MP_KEY,
  MP_TOKEN,
  OPERATOR_TOKEN,
  partnerKey,
  PG_URL,
  pgSchema,
  quoteBody,
  roundRobin,
  SHORT,
  sim,
  startService,
  waitUntil,
} from './support';
import { describeIf, needsPostgres } from '../support/skip';

/**
 * Two instances of the service on one PostgreSQL database behind a round-robin proxy: how the service grows past one
 * machine. Races are decided by the database, so they hold across instances.
 */
describeIf(!!PG_URL, needsPostgres('two service processes share one database server'))(
  'When two instances serve one database behind a round-robin proxy',
  () => {
    it('then a booking race has one winner, replays agree across instances, and outbox messages are delivered once', async () => {
      const mp = await startMarketplaceSim({ userId: '1001', privateKey: MP_KEY, port: 0 });
      const store = await pgSchema();
      const a = await startService({ ...store.env, ...marketplaceEnv(mp.url) });
      const b = await startService({ ...store.env, ...marketplaceEnv(mp.url) });
      const proxy = await roundRobin([a.url, b.url]);
      mp.sim.setSupplier({ inUrl: MP_IN_URL, baseUrl: `${proxy.url}/marketplace`, callbackToken: MP_TOKEN });
      try {
        const { key } = await partnerKey(proxy.url);
        // A race for one offer, through both instances.
        const q = await call(proxy.url, 'POST', '/transfers/v1/quotes', { key, body: quoteBody() });
        const offer = q.body.offers[0];
        const racers = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            call(proxy.url, 'POST', '/transfers/v1/bookings', {
              key,
              headers: { 'Idempotency-Key': `race-${i}` },
              body: {
                quote_id: q.body.quote_id,
                offer_id: offer.offer_id,
                partner_reference: `RACE-${i}`,
                passenger: { first_name: 'A', last_name: 'B' },
                passengers: { adults: 2, luggage: 1 },
              },
            }),
          ),
        );
        expect(racers.map((r) => r.status).sort()).toEqual([201, ...Array(19).fill(409)]);

        // One key, many concurrent calls, both instances: one booking, every other answer its replay.
        const q2 = await call(proxy.url, 'POST', '/transfers/v1/quotes', { key, body: quoteBody() });
        const body = {
          quote_id: q2.body.quote_id,
          offer_id: q2.body.offers[0].offer_id,
          partner_reference: 'ONE-KEY',
          passenger: { first_name: 'A', last_name: 'B' },
          passengers: { adults: 2, luggage: 1 },
        };
        const same = await Promise.all(
          Array.from({ length: 10 }, () => call(proxy.url, 'POST', '/transfers/v1/bookings', { key, body, headers: { 'Idempotency-Key': 'one-key' } })),
        );
        const created = same.filter((r) => r.status === 201);
        expect(created).toHaveLength(1);
        for (const r of same.filter((x) => x.status !== 201)) {
          expect(r.status).toBe(200);
          expect(r.headers.get('idempotent-replayed')).toBe('true');
          expect(r.text).toBe(created[0].text);
        }

        // Orders through both instances; both run outbox workers against one marketplace.
        const n = SHORT ? 10 : 30;
        const ids = Array.from({ length: n }, (_, i) => `FAULT-2I-${Date.now()}-${i}`);
        await Promise.all(ids.map((id, i) => sim(mp.url, 'POST', '/drive/book', { order: sampleMarketplaceOrder(id, { date: localInDays(6 + i) }) })));
        await waitUntil(async () => (await sim(mp.url, 'GET', '/calls?operation=confirmOrder')).calls.length >= n, 60_000, 'confirmations');
        await new Promise((r) => setTimeout(r, 2000)); // a duplicate, if any, would arrive meanwhile
        const confirms = (await sim(mp.url, 'GET', '/calls?operation=confirmOrder')).calls as Array<{ json: { order_id: string } }>;
        expect(confirms.map((c) => c.json.order_id).sort()).toEqual([...ids].sort());
        const outbox = (await call(proxy.url, 'GET', '/ops/v1/outbox?limit=200', { token: OPERATOR_TOKEN })).body.data as Array<{
          status: string;
          attempts: number;
        }>;
        expect(outbox.every((m) => m.status === 'delivered' && m.attempts === 1)).toBe(true);
        console.log(
          `two instances: requests served ${proxy.served.join(' / ')}; race 1 × 201 + 19 × 409; one key → 1 booking + 9 replays; ${n} orders, ${confirms.length} confirmations, none twice`,
        );
        expect(await databaseInvariants(store.knex)).toEqual([]);
      } finally {
        await proxy.close();
        await Promise.all([a.stop(), b.stop()]);
        await mp.stop();
        await store.drop();
      }
    });
  },
);
