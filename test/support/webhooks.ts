import { HttpWebhookSender } from '../../src/adapters/webhooks/http-webhook-sender';
import { deliverChannelOnce } from '../../src/domain/outbox/worker';
import { webhookChannel } from '../../src/domain/webhooks/delivery';
import { systemResolve, type Resolve } from '../../src/domain/webhooks/targets';
import { startWebhookReceiver, type WebhookReceiver } from '../../simulators/partner/webhook-receiver';
import { operator } from './fixtures';
import { client, type Call } from './http';
import { startTestApp, type TestApp, type TestAppOptions } from './test-app';

/** DNS for the tests: names set here resolve to the addresses given (changeable, to re-point a name); others as usual. */
export function fakeDns() {
  const names = new Map<string, string[]>();
  const resolve: Resolve = async (host) => {
    const set = names.get(host);
    if (!set) return systemResolve(host);
    return set.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { resolve, set: (host: string, ...addresses: string[]) => void names.set(host, addresses) };
}

/** One pass of webhook deliveries, as the background worker makes them (tests that drive time run it themselves). */
export function webhookDeliverer(app: TestApp, timeoutMs = 2000) {
  const sender = new HttpWebhookSender({ timeoutMs, resolve: app.deps.resolveHost, allowedPorts: app.deps.config.webhooks.allowedPorts });
  const channel = webhookChannel(app.deps, sender);
  return () => deliverChannelOnce(app.deps, channel);
}

let seq = 0;
export const PICKUP = '2026-12-01T09:30:00+05:30';

/** Quotes and books CMB → Colombo for a partner key; returns the 201 booking. */
export async function bookTransfer(call: Call, key: string, pickup = PICKUP) {
  const q = await call('POST', '/transfers/v1/quotes', {
    key,
    body: {
      pickup: { iata: 'CMB' },
      dropoff: { name: 'Cinnamon Grand, 77 Galle Road, Colombo 03' },
      pickup_datetime: pickup,
      passengers: { adults: 2, luggage: 2 },
    },
  });
  if (q.status !== 200 || !q.body.offers.length) throw new Error(`quote ${q.status} ${q.text}`);
  const offer = q.body.offers.find((o: { vehicle_code: string }) => o.vehicle_code === 'standard_car') ?? q.body.offers[0];
  seq += 1;
  const r = await call('POST', '/transfers/v1/bookings', {
    key,
    headers: { 'Idempotency-Key': `wh-${process.pid}-${seq}` },
    body: {
      quote_id: q.body.quote_id,
      offer_id: offer.offer_id,
      partner_reference: `WH-${seq}-${Date.now()}`,
      passenger: { first_name: 'Ayesha', last_name: 'Perera', email: 'ayesha@example.com', phone: '+94771234567' },
      passengers: { adults: 2, luggage: 2 },
      flight_number: 'UL504',
    },
  });
  if (r.status !== 201) throw new Error(`book ${r.status} ${r.text}`);
  return r.body as { booking_ref: string; env: string; status: string } & Record<string, unknown>;
}

/**
 * A partner's events once `n` are listed. An event is listed once every transaction that began writing before it
 * has ended: on a PostgreSQL server shared with other tests, theirs too, so this waits rather than reads once.
 */
export async function listedEvents(call: Call, key: string, n: number, ms = 30_000): Promise<Array<Record<string, any>>> {
  const end = Date.now() + ms;
  for (;;) {
    const data = (await call('GET', '/transfers/v1/events?limit=100', { key })).body.data;
    if (data.length >= n || Date.now() > end) return data;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * The service for webhook tests: sandbox endpoints may target this machine (WEBHOOKS_ALLOW_PRIVATE_TARGETS), no
 * background worker (tests deliver pass by pass with `deliver`), and receivers that know their endpoint's secret.
 */
export async function startWebhookTestApp(opts: TestAppOptions = {}) {
  const app = await startTestApp({ ...opts, env: { WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true', ...opts.env }, outboxWorker: false });
  const call = client(app.url);
  const receivers: WebhookReceiver[] = [];
  const receiver = async () => {
    const r = await startWebhookReceiver();
    receivers.push(r);
    return r;
  };
  return {
    app,
    call,
    ops: operator(app.url),
    deliver: webhookDeliverer(app),
    receiver,
    /** A sandbox endpoint of `key` at a fresh receiver that knows its secret. */
    async endpoint(key: string, body: Record<string, unknown> = {}) {
      const rx = await receiver();
      const r = await call('POST', '/transfers/v1/webhook_endpoints', { key, body: { url: `${rx.url}/hooks`, ...body } });
      if (r.status !== 201) throw new Error(`endpoint ${r.status} ${r.text}`);
      rx.setSecrets([r.body.secret]);
      return { rx, id: r.body.id as string, secret: r.body.secret as string, created: r.body as Record<string, unknown> };
    },
    async close() {
      await Promise.all(receivers.map((r) => r.close()));
      await app.close();
    },
  };
}

export type WebhookTestApp = Awaited<ReturnType<typeof startWebhookTestApp>>;
