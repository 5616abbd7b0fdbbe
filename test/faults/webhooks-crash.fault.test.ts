import { startWebhookReceiver } from '../../simulators/partner/webhook-receiver';
import { bookingLoad, call, dataDir, partnerKey, PG_URL, pgSchema, SHORT, sleep, startService, waitUntil } from './support';
import { itIf, needsPostgres, onEmbeddedRun } from '../support/skip';

/**
 * kill -9 while webhooks are owed: bookings commit faster than a slow receiver takes their events, so at the kill
 * some events are committed and not yet delivered, and some deliveries are in flight. After a restart on the same
 * data, every event the service holds reaches the receiver, signed, at least once: nothing is lost between commit
 * and delivery.
 */
describe.each([
  ['PostgreSQL', !!PG_URL, needsPostgres('this variant runs the service on a database server; the embedded-directory variant runs here')],
  ['the embedded database directory', !PG_URL, onEmbeddedRun('the embedded-directory variant')],
])('When the service is killed (-9) with webhooks owed on %s', (name, available, reason) => {
  itIf(available, reason)('then after a restart every committed event is delivered, signed, and every acknowledged booking has its event', async () => {
    const store = name === 'PostgreSQL' ? await pgSchema() : dataDir();
    // Slow while the load runs (a backlog builds), quick after the restart.
    const rx = await startWebhookReceiver({ respond: () => new Promise((r) => setTimeout(() => r(200), 500)) });
    const env = { ...store.env, WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true', OUTBOX_POLL_MS: '300', WEBHOOKS_TIMEOUT_MS: '2000' };
    try {
      let svc = await startService(env);
      const { key } = await partnerKey(svc.url, 'sandbox');
      const endpoint = await call(svc.url, 'POST', '/transfers/v1/webhook_endpoints', { key, body: { url: `${rx.url}/hooks` } });
      expect(endpoint.status).toBe(201);
      rx.setSecrets([endpoint.body.secret]);

      const load = bookingLoad(() => svc.url, key, 6);
      await sleep(SHORT ? 2000 : 5000);
      svc.proc.kill('SIGKILL');
      expect(await svc.exited).toBeNull();
      const attempts = await load.stop();
      const acknowledged = attempts.filter((a) => a.reply?.status === 201).map((a) => a.reply!.body.booking_ref as string);
      const bookingOf = (d: (typeof rx.deliveries)[number]) => (d.event && 'booking' in d.event.data ? d.event.data.booking?.booking_ref : undefined);
      const deliveredBeforeKill = new Set(rx.deliveries.map(bookingOf));
      const owed = acknowledged.filter((ref) => !deliveredBeforeKill.has(ref));
      // The window this test is about: committed (acknowledged, even) and not yet delivered when the process died.
      expect(owed.length).toBeGreaterThan(0);

      rx.setResponder(() => 200);
      svc = await startService(env);
      const listAll = async () => {
        const events: Array<{ id: string; data: { booking: { booking_ref: string } } }> = [];
        let after = '';
        for (;;) {
          const page = await call(svc.url, 'GET', `/transfers/v1/events?limit=100${after ? `&after=${after}` : ''}`, { key });
          events.push(...page.body.data);
          if (!page.body.has_more) return events;
          after = page.body.data.at(-1).id;
        }
      };
      const received = () => new Set(rx.deliveries.filter((d) => d.verified).map((d) => d.webhookId));
      let events = await listAll();
      await waitUntil(
        async () => {
          events = await listAll();
          const got = received();
          return events.every((e) => got.has(e.id));
        },
        120_000,
        'every committed event delivered',
      );
      const listed = new Set(events.map((e) => e.data.booking.booking_ref));
      expect(acknowledged.filter((ref) => !listed.has(ref))).toEqual([]);
      expect(rx.deliveries.every((d) => d.verified)).toBe(true);
      // At least once: a delivery in flight at the kill may come twice, always the same bytes.
      const bodies = new Map<string, Set<string>>();
      for (const d of rx.deliveries) bodies.set(d.webhookId!, (bodies.get(d.webhookId!) ?? new Set()).add(d.body));
      expect([...bodies.values()].every((b) => b.size === 1)).toBe(true);
      console.log(
        `webhooks kill -9 on ${name}: ${acknowledged.length} bookings acknowledged, ${owed.length} of their events undelivered at the kill; ` +
          `${events.length} events delivered after the restart (${rx.deliveries.length - bodies.size} duplicate deliveries)`,
      );
      expect(await svc.stop()).toBe(0);
    } finally {
      await rx.close();
      await store.drop();
    }
  });
});
