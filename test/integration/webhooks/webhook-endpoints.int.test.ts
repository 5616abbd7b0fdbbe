import { startTestApp, backend } from '../../support/test-app';
import { client, type Call } from '../../support/http';
import { operator } from '../../support/fixtures';
import { bookTransfer, listedEvents, startWebhookTestApp, type WebhookTestApp } from '../../support/webhooks';
import { ManualClock } from '../../../src/shared/clock';
import { startWebhookReceiver } from '../../../simulators/partner/webhook-receiver';

/**
 * Living with endpoints: pings and redeliveries, deletion, the 3-day disable and what operators see and do about
 * it, events of production dispatch, and the background worker delivering with no marketplace configured.
 */
const NOW = '2026-11-21T08:00:00Z';
const DAY = 24 * 3600_000;

describe(`Webhook endpoints (${backend})`, () => {
  let h: WebhookTestApp;
  let call: Call;
  let ops: WebhookTestApp['ops'];
  let deliver: WebhookTestApp['deliver'];
  const clock = new ManualClock(NOW);
  const endpoint = (key: string, body?: Record<string, unknown>) => h.endpoint(key, body);

  beforeAll(async () => {
    h = await startWebhookTestApp({ clock });
    ({ call, ops, deliver } = h);
  });
  afterAll(() => h.close());
  afterEach(() => clock.set(NOW));

  it('when an endpoint is tested, then it alone receives a signed ping; a redelivery sends an event again with the same webhook-id', async () => {
    const p = await ops.partnerWithKeys('Pinging Partner');
    const one = await endpoint(p.testKey);
    const two = await endpoint(p.testKey, { events: ['booking.cancelled'] });
    const ping = await call('POST', `/transfers/v1/webhook_endpoints/${one.id}/test`, { key: p.testKey });
    expect(ping.status).toBe(202);
    expect(ping.body).toMatchObject({ env: 'sandbox', id: expect.stringMatching(/^evt_/), type: 'ping', sequence: null, data: { endpoint_id: one.id } });
    await deliver();
    expect(one.rx.deliveries.map((d) => [d.verified, d.event?.type, d.webhookId])).toEqual([[true, 'ping', ping.body.id]]);
    expect(two.rx.deliveries).toEqual([]);

    // Only endpoints subscribed to a type are owed its events.
    const booking = await bookTransfer(call, p.testKey);
    await call('POST', `/transfers/v1/bookings/${booking.booking_ref}/cancel`, { key: p.testKey });
    // A booking's events go to an endpoint in order: booking.cancelled waits for booking.confirmed's delivery (the
    // pass's pool claims it as soon as booking.confirmed is answered).
    expect(await deliver()).toEqual({ delivered: 3, retried: 0, failed: 0 });
    expect(await deliver()).toEqual({ delivered: 0, retried: 0, failed: 0 });
    expect(one.rx.deliveries.map((d) => d.event?.type)).toEqual(['ping', 'booking.confirmed', 'booking.cancelled']);
    expect(two.rx.deliveries.map((d) => d.event?.type)).toEqual(['booking.cancelled']);

    const confirmed = one.rx.deliveries.find((d) => d.event?.type === 'booking.confirmed')!;
    const again = await call('POST', `/transfers/v1/events/${confirmed.webhookId}/redeliver`, { key: p.testKey });
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ env: 'sandbox', event_id: confirmed.webhookId, deliveries: [{ endpoint_id: one.id, delivery_id: expect.any(String) }] });
    const toTwo = await call('POST', `/transfers/v1/events/${confirmed.webhookId}/redeliver`, { key: p.testKey, body: { endpoint_id: two.id } });
    expect(toTwo.body.deliveries).toEqual([{ endpoint_id: two.id, delivery_id: expect.any(String) }]);
    await deliver();
    expect(one.rx.deliveries[3]).toMatchObject({ webhookId: confirmed.webhookId, body: confirmed.body, verified: true });
    expect(two.rx.deliveries[1]).toMatchObject({ webhookId: confirmed.webhookId, body: confirmed.body, verified: true });

    expect((await call('POST', '/transfers/v1/events/evt_000000000000000000000000/redeliver', { key: p.testKey })).status).toBe(404);
    expect((await call('POST', `/transfers/v1/webhook_endpoints/we_0000000000/test`, { key: p.testKey })).status).toBe(404);
  });

  it('when an endpoint is deleted, then it is no longer listed, nothing more reaches it, and its waiting deliveries fail', async () => {
    const p = await ops.partnerWithKeys('Deleting Partner');
    const { rx, id } = await endpoint(p.testKey);
    await bookTransfer(call, p.testKey);
    const deleted = await call('DELETE', `/transfers/v1/webhook_endpoints/${id}`, { key: p.testKey });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ id, status: 'deleted' });
    expect((await call('GET', '/transfers/v1/webhook_endpoints', { key: p.testKey })).body.data).toEqual([]);
    expect((await call('DELETE', `/transfers/v1/webhook_endpoints/${id}`, { key: p.testKey })).status).toBe(404);
    await bookTransfer(call, p.testKey, '2026-12-02T09:30:00+05:30');
    expect(await deliver()).toEqual({ delivered: 0, retried: 0, failed: 0 });
    expect(rx.deliveries).toEqual([]);
    const owed = (await ops.call('GET', `/outbox?endpoint_id=${id}`)).body.data;
    expect(owed.map((m: any) => [m.status, m.last_error])).toEqual([['failed', 'endpoint deleted by the partner']]);
  });

  it('when a partner asks for an eleventh endpoint, then 400 naming url', async () => {
    const p = await ops.partnerWithKeys('Greedy Partner');
    const made = await Promise.all(
      Array.from({ length: 11 }, (_, i) => call('POST', '/transfers/v1/webhook_endpoints', { key: p.testKey, body: { url: `http://127.0.0.1:9/${i}` } })),
    );
    expect(made.map((r) => r.status).sort()).toEqual([...Array(10).fill(201), 400]);
    expect(made.find((r) => r.status === 400)!.body.error.details.fields[0].field).toBe('url');
    // The other environment has its own ten.
    expect((await call('POST', '/transfers/v1/webhook_endpoints', { key: p.liveKey, body: { url: 'https://93.184.215.14/hooks' } })).status).toBe(201);
  });

  it('when every delivery to an endpoint fails for 3 days, then it is disabled with the reason, its waiting deliveries fail, operators see it, and enabling it lets them retry', async () => {
    const p = await ops.partnerWithKeys('Failing Partner');
    const { rx, id } = await endpoint(p.testKey);
    rx.setResponder(() => 500);
    // A booking a day: each one's deliveries keep failing.
    for (let day = 0; day < 3; day += 1) {
      await bookTransfer(call, p.testKey, `2026-12-0${day + 1}T09:30:00+05:30`);
      await deliver();
      clock.advance(DAY / 2);
      await deliver();
      clock.advance(DAY / 2);
    }
    const before = (await ops.call('GET', `/webhook_endpoints?partner_id=${p.partner_id}`)).body.data[0];
    expect(before).toMatchObject({ status: 'enabled', failing_since: NOW.replace('Z', '.000Z') });
    // Three days after the first failure, the next failure disables it.
    await bookTransfer(call, p.testKey, '2026-12-05T09:30:00+05:30');
    await deliver();
    const disabled = (await ops.call('GET', `/webhook_endpoints?partner_id=${p.partner_id}&status=disabled`)).body.data;
    expect(disabled).toEqual([
      expect.objectContaining({
        endpoint_id: id,
        env: 'sandbox',
        status: 'disabled',
        disabled_reason: 'every delivery failed for 3 days',
        disabled_at: clock.now().toISOString(),
        failing_since: '2026-11-21T08:00:00.000Z',
      }),
    ]);
    expect((await call('GET', '/transfers/v1/webhook_endpoints', { key: p.testKey })).body.data[0]).toMatchObject({
      status: 'disabled',
      disabled_reason: 'every delivery failed for 3 days',
    });
    const attention = (await ops.call('GET', `/outbox?status=attention&partner_id=${p.partner_id}`)).body.data;
    expect(attention.length).toBeGreaterThanOrEqual(4);
    expect(attention.every((m: any) => m.status === 'failed' && m.kind === 'webhook' && m.webhook.endpoint_id === id)).toBe(true);
    const attempts = await ops.audit({ surface: 'webhooks', partner_id: p.partner_id });
    expect(attempts.filter((a) => /endpoint disabled: every delivery failed for 3 days \(since 2026-11-21T08:00:00.000Z\)$/.test(a.error))).toHaveLength(1);

    // Disabled: no new deliveries are owed, tests and retries are refused.
    const sent = rx.deliveries.length;
    await bookTransfer(call, p.testKey, '2026-12-06T09:30:00+05:30');
    expect(await deliver()).toEqual({ delivered: 0, retried: 0, failed: 0 });
    expect(rx.deliveries).toHaveLength(sent);
    expect((await call('POST', `/transfers/v1/webhook_endpoints/${id}/test`, { key: p.testKey })).body.error).toMatchObject({
      code: 'endpoint_disabled',
      details: { endpoint_id: id },
    });
    expect((await ops.call('POST', `/outbox/${attention[0].id}/retry`)).body.error.code).toBe('endpoint_disabled');

    // The receiver is fixed; an operator enables the endpoint and retries what failed.
    rx.setResponder(() => 200);
    const enabled = await ops.call('POST', `/webhook_endpoints/${id}/enable`);
    expect(enabled.body).toMatchObject({ status: 'enabled', disabled_reason: null, disabled_at: null, failing_since: null });
    for (const m of attention) expect((await ops.call('POST', `/outbox/${m.id}/retry`)).status).toBe(200);
    await deliver();
    expect(rx.deliveries.slice(sent).every((d) => d.status === 200 && d.verified)).toBe(true);
    expect(new Set(rx.deliveries.slice(sent).map((d) => d.webhookId)).size).toBe(attention.length);
  });

  it('when an operator disables an endpoint, then its waiting deliveries fail with the reason and nothing new is owed; both verbs are idempotent', async () => {
    const p = await ops.partnerWithKeys('Paused Partner');
    const { rx, id } = await endpoint(p.testKey);
    await bookTransfer(call, p.testKey);
    const off = await ops.call('POST', `/webhook_endpoints/${id}/disable`, { body: { reason: 'The partner asked us to pause deliveries' } });
    expect(off.body).toMatchObject({ status: 'disabled', disabled_reason: 'disabled by an operator: The partner asked us to pause deliveries' });
    expect((await ops.call('POST', `/webhook_endpoints/${id}/disable`)).body).toEqual(off.body);
    expect((await ops.call('GET', `/outbox?endpoint_id=${id}`)).body.data.map((m: any) => [m.status, m.last_error])).toEqual([
      ['failed', 'endpoint disabled by an operator: The partner asked us to pause deliveries'],
    ]);
    await deliver();
    expect(rx.deliveries).toEqual([]);
    expect((await ops.call('POST', '/webhook_endpoints/we_0000000000/disable')).status).toBe(404);
    const on = await ops.call('POST', `/webhook_endpoints/${id}/enable`);
    expect((await ops.call('POST', `/webhook_endpoints/${id}/enable`)).body).toEqual(on.body);
  });

  it("when production dispatch assigns a driver, completes a job or reports a no-show, then the partner's events say so, each with the booking as GET returns it", async () => {
    const p = await ops.partnerWithKeys('Dispatched Partner');
    const driver = await ops.driver('Sunil Fernando', '+94771234567');
    const car = await ops.vehicle('standard_car', { brand: 'Toyota', model: 'Axio', colour: 'White' });
    const done = await bookTransfer(call, p.liveKey, '2026-11-23T09:30:00+05:30');
    const missed = await bookTransfer(call, p.liveKey, '2026-11-24T09:30:00+05:30');
    const job = async (ref: string) => (await ops.jobs({ booking_ref: ref }))[0].job_id as string;
    expect(
      (await ops.call('POST', `/jobs/${await job(done.booking_ref)}/assign`, { body: { driver_id: driver.driver_id, vehicle_id: car.vehicle_id } })).status,
    ).toBe(200);
    clock.set('2026-11-23T08:00:00Z');
    expect((await ops.call('POST', `/jobs/${await job(done.booking_ref)}/complete`)).status).toBe(200);
    clock.set('2026-11-24T06:00:00Z');
    expect((await ops.call('POST', `/jobs/${await job(missed.booking_ref)}/no-show`, { body: { note: 'Waited 70 minutes at arrivals' } })).status).toBe(200);

    // Listed once every transaction older than theirs has ended (on a shared PostgreSQL server, others' too).
    const events = await listedEvents(call, p.liveKey, 5);
    expect(events.map((e: any) => [e.data.booking.booking_ref, e.type, e.sequence, e.data.booking.status])).toEqual([
      [done.booking_ref, 'booking.confirmed', 1, 'confirmed'],
      [missed.booking_ref, 'booking.confirmed', 1, 'confirmed'],
      [done.booking_ref, 'booking.driver_assigned', 2, 'driver_assigned'],
      [done.booking_ref, 'booking.completed', 3, 'completed'],
      [missed.booking_ref, 'booking.no_show', 2, 'no_show'],
    ]);
    expect(events[2].data.booking.driver).toEqual({
      name: 'Sunil Fernando',
      phone: '+94771234567',
      vehicle: 'Toyota Axio (White)',
      plate: car.plate,
      location: null,
    });
    const read = await call('GET', `/transfers/v1/bookings/${missed.booking_ref}`, { key: p.liveKey });
    expect(JSON.stringify(events[4].data.booking)).toBe(read.text);
  });
});

describe(`The background worker (${backend})`, () => {
  it('when no marketplace is configured, then webhooks are still delivered by the outbox worker', async () => {
    const app = await startTestApp({ env: { WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true', OUTBOX_POLL_MS: '50' } });
    const rx = await startWebhookReceiver();
    try {
      expect(app.deps.config.marketplace.url).toBeUndefined();
      const call = client(app.url);
      const p = await operator(app.url).partnerWithKeys('Pushed Partner');
      const r = await call('POST', '/transfers/v1/webhook_endpoints', { key: p.testKey, body: { url: rx.url } });
      rx.setSecrets([r.body.secret]);
      const booking = await bookTransfer(call, p.testKey);
      const [d] = await rx.waitFor((ds) => ds.length > 0);
      expect(d).toMatchObject({ verified: true, event: { type: 'booking.confirmed', data: { booking: { booking_ref: booking.booking_ref } } } });
    } finally {
      await rx.close();
      await app.close();
    }
  });
});
