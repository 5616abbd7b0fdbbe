import { backend } from '../../support/test-app';
import { bookTransfer, listedEvents, startWebhookTestApp, type WebhookTestApp } from '../../support/webhooks';
import { MAX_PENDING_PER_ENDPOINT, NOT_QUEUED } from '../../../src/data/repositories/webhook-events-repository';
import { ManualClock } from '../../../src/shared/clock';

/**
 * Per-endpoint limits (issue 28): test pings and redeliveries share a bucket of 5 a minute per endpoint, held in the
 * database; nothing is queued by hand while 1,000 deliveries wait for the endpoint; a booking's event over that cap
 * is recorded, not queued, and the booking goes through. Refusals are 429 rate_limited with Retry-After, RateLimit
 * and RateLimit-Policy, and audited.
 */
describe(`Webhook endpoint limits (${backend})`, () => {
  let h: WebhookTestApp;
  const clock = new ManualClock('2026-11-21T08:00:00Z');

  beforeAll(async () => {
    h = await startWebhookTestApp({ clock });
  });
  afterAll(() => h.close());

  const ping = (key: string, endpointId: string) => h.call('POST', `/transfers/v1/webhook_endpoints/${endpointId}/test`, { key });
  const queuedFor = async (endpointId: string) => Number((await h.app.db('outbox').where({ endpointId }).count({ n: '*' }).first())?.n);
  const auditOf = async (requestId: string | null) => h.app.db('audit_log').where({ requestId }).first();

  it('when a partner sends a sixth test ping or redelivery to one endpoint within a minute, then 429 with the limit headers, audited, and nothing queued', async () => {
    const p = await h.ops.partnerWithKeys('Pinging Too Much');
    const one = await h.endpoint(p.testKey);
    const two = await h.endpoint(p.testKey);
    const pings = [];
    for (let i = 0; i < 5; i += 1) pings.push(await ping(p.testKey, one.id));
    expect(pings.map((r) => r.status)).toEqual([202, 202, 202, 202, 202]);

    const refused = await ping(p.testKey, one.id);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: 'rate_limited', details: { scope: 'endpoint_manual', endpoint_id: one.id, per_minute: 5, burst: 5 } });
    expect(refused.headers.get('retry-after')).toBe('12');
    expect(refused.headers.get('ratelimit-policy')).toBe('"endpoint_manual";q=5;w=60');
    expect(refused.headers.get('ratelimit')).toBe('"endpoint_manual";r=0;t=12');
    expect(await auditOf(refused.headers.get('x-request-id'))).toMatchObject({ status: 429, partnerId: p.partner_id, env: 'sandbox' });
    expect(await queuedFor(one.id)).toBe(5);

    // Redeliveries share the bucket; another endpoint has its own.
    const again = await h.call('POST', `/transfers/v1/events/${pings[0].body.id}/redeliver`, { key: p.testKey, body: { endpoint_id: one.id } });
    expect(again.status).toBe(429);
    expect((await ping(p.testKey, two.id)).status).toBe(202);

    // A token is due every 12 s.
    clock.advance(12_000);
    expect((await ping(p.testKey, one.id)).status).toBe(202);
    expect((await ping(p.testKey, one.id)).status).toBe(429);
    expect(await queuedFor(one.id)).toBe(6);
  });

  it('when 1,000 deliveries wait for an endpoint, then a ping is refused with 429, and a new booking goes through with its delivery recorded, not queued', async () => {
    const p = await h.ops.partnerWithKeys('Backlogged Partner');
    const { id } = await h.endpoint(p.testKey);
    const first = await ping(p.testKey, id);
    // The receiver has been down a while: its deliveries wait for their retries.
    const now = h.app.clock.now();
    const later = new Date(now.getTime() + 3600_000);
    const rows = Array.from({ length: MAX_PENDING_PER_ENDPOINT - 1 }, () => ({
      kind: 'webhook',
      payload: '{}',
      status: 'pending',
      attempts: 1,
      maxAttempts: 8,
      nextAttemptAt: later,
      createdAt: now,
      updatedAt: now,
      eventId: first.body.id,
      endpointId: id,
    }));
    for (let i = 0; i < rows.length; i += 250) await h.app.db('outbox').insert(rows.slice(i, i + 250));

    const refused = await ping(p.testKey, id);
    expect(refused.status).toBe(429);
    expect(refused.body.error.details).toMatchObject({
      scope: 'endpoint_pending',
      endpoint_id: id,
      pending: MAX_PENDING_PER_ENDPOINT,
      limit: MAX_PENDING_PER_ENDPOINT,
    });
    expect(refused.headers.get('retry-after')).toBe('60');
    expect(refused.headers.get('ratelimit-policy')).toBe('"endpoint_pending";q=1000;w=60');
    expect(await auditOf(refused.headers.get('x-request-id'))).toMatchObject({ status: 429 });

    const booking = await bookTransfer(h.call, p.testKey);
    expect(booking.status).toBe('confirmed');
    const deliveries = (await h.call('GET', `/transfers/v1/webhook_deliveries?status=failed`, { key: p.testKey })).body.data;
    expect(deliveries).toEqual([
      expect.objectContaining({
        endpoint_id: id,
        type: 'booking.confirmed',
        booking_ref: booking.booking_ref,
        status: 'failed',
        attempts: 0,
        last_error: NOT_QUEUED,
      }),
    ]);
    expect(await queuedFor(id)).toBe(MAX_PENDING_PER_ENDPOINT + 1);
    // The event itself is kept and listed.
    const events = await listedEvents(h.call, p.testKey, 2);
    expect(events.map((e) => e.type)).toEqual(['ping', 'booking.confirmed']);
  });
});
