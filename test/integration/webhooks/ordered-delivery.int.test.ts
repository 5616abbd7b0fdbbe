import { backend, testConfig, type TestApp } from '../../support/test-app';
import type { Call } from '../../support/http';
import { bookTransfer, startWebhookTestApp, webhookDeliverer, type WebhookTestApp } from '../../support/webhooks';
import { ManualClock } from '../../../src/shared/clock';
import { startServer } from '../../../src/server';
import type { ReceivedDelivery } from '../../../simulators/partner/webhook-receiver';

/**
 * Webhooks in order (issue 22): an endpoint gets a booking's event n+1 only once event n was answered 2xx or given
 * up; other bookings' events are not held up; the database decides which event is next, so two instances
 * delivering at once keep the order. Deliveries are driven pass by pass, both instances at once, with the clock
 * moved for retries instead of waited for.
 */
const NOW = '2026-11-21T08:00:00Z';
const RIDE = ['driver_assigned', 'driver_en_route', 'driver_arrived', 'passenger_on_board', 'completed'];

describe(`Webhooks in order per booking and endpoint (${backend})`, () => {
  let h: WebhookTestApp;
  let app: TestApp;
  let call: Call;
  const clock = new ManualClock(NOW);
  let second: Awaited<ReturnType<typeof startServer>>;
  let deliverers: Array<() => Promise<{ delivered: number; retried: number; failed: number }>>;

  beforeAll(async () => {
    h = await startWebhookTestApp({ clock });
    ({ app, call } = h);
    // A second instance on the same database, as a second process behind a balancer would be.
    second = await startServer({
      config: testConfig({ ...app.dbEnv, WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' }),
      db: app.db,
      clock,
      outboxWorker: false,
    });
    deliverers = [h.deliver, webhookDeliverer({ ...app, deps: second.deps })];
  });
  afterAll(async () => {
    await second.stop();
    await h.close();
  });
  afterEach(() => clock.set(NOW));

  /** Both instances deliver at once, pass after pass, until nothing is due; then the clock moves to the endpoint's next retry. */
  async function deliverEverything(endpointId: string, maxRounds = 60) {
    for (let round = 0; round < maxRounds; round += 1) {
      const passes = await Promise.all(deliverers.map((d) => d()));
      if (passes.some((p) => p.delivered + p.retried + p.failed > 0)) continue;
      const [next] = await app
        .db('outbox')
        .where({ endpoint_id: endpointId, status: 'pending' })
        .where('next_attempt_at', '>', clock.now())
        .min('next_attempt_at as at');
      if (!next?.at) return;
      clock.set(new Date(next.at));
    }
    throw new Error('deliveries did not settle');
  }

  /** The sandbox advance helper, as fast as it can: each move sent as soon as the last answered. */
  async function rideThrough(key: string, ref: string) {
    for (const status of RIDE) {
      const r = await call('POST', `/transfers/v1/test_helpers/bookings/${ref}/advance`, { key, body: { to: status } });
      expect(r.status).toBe(200);
    }
  }

  const bookingOf = (d: ReceivedDelivery) => (d.event?.data && 'booking' in d.event.data ? d.event.data.booking?.booking_ref : undefined);
  const sequencesOf = (ds: ReceivedDelivery[], ref: string) => ds.filter((d) => bookingOf(d) === ref);

  it('when a booking races through every state and the receiver fails the first attempt of event 2, then, with two instances delivering, the receiver sees ascending sequences', async () => {
    const p = await h.ops.partnerWithKeys('Ordered Partner');
    const { rx, id } = await h.endpoint(p.testKey);
    let failedSecond = false;
    rx.setResponder((d) => {
      if (d.event?.sequence === 2 && !failedSecond) {
        failedSecond = true;
        return 500;
      }
      return 200;
    });
    const b = await bookTransfer(call, p.testKey);
    await rideThrough(p.testKey, b.booking_ref);

    await deliverEverything(id);

    const seen = sequencesOf(rx.deliveries, b.booking_ref);
    // Every attempt in order: 1, then 2 (refused), 2 again after 5 s, then 3…6; none overtook the one before.
    expect(seen.map((d) => [d.event!.sequence, d.status])).toEqual([
      [1, 200],
      [2, 500],
      [2, 200],
      [3, 200],
      [4, 200],
      [5, 200],
      [6, 200],
    ]);
    expect(seen.map((d) => d.event!.type)).toEqual([
      'booking.confirmed',
      'booking.driver_assigned',
      'booking.driver_assigned',
      'booking.driver_en_route',
      'booking.driver_arrived',
      'booking.passenger_on_board',
      'booking.completed',
    ]);
    // Event 3 was not sent before event 2's retry was due (5 s after its failed attempt).
    expect(seen[3].at.getTime()).toBeGreaterThanOrEqual(seen[2].at.getTime());
    const rows = await app.db('outbox').where({ kind: 'webhook', booking_ref: b.booking_ref }).orderBy('sequence');
    expect(rows.map((r) => [r.sequence, r.status, r.attempts])).toEqual([
      [1, 'delivered', 1],
      [2, 'delivered', 2],
      [3, 'delivered', 1],
      [4, 'delivered', 1],
      [5, 'delivered', 1],
      [6, 'delivered', 1],
    ]);
  });

  it("when one booking's event is being retried, then another booking's events to the same endpoint are delivered meanwhile", async () => {
    const p = await h.ops.partnerWithKeys('Two Bookings Partner');
    const { rx } = await h.endpoint(p.testKey);
    const stuck = await bookTransfer(call, p.testKey);
    rx.setResponder((d) => (bookingOf(d) === stuck.booking_ref ? 503 : 200));
    const other = await bookTransfer(call, p.testKey);
    await rideThrough(p.testKey, stuck.booking_ref);
    await rideThrough(p.testKey, other.booking_ref);

    // Passes at this instant only: the stuck booking's event 1 waits for its retry.
    for (let i = 0; i < 10; i += 1) await Promise.all(deliverers.map((d) => d()));

    expect(sequencesOf(rx.deliveries, other.booking_ref).map((d) => d.event!.sequence)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(sequencesOf(rx.deliveries, stuck.booking_ref).map((d) => [d.event!.sequence, d.status])).toEqual([[1, 503]]);
    const waiting = await app.db('outbox').where({ kind: 'webhook', booking_ref: stuck.booking_ref }).orderBy('sequence');
    expect(waiting.map((r) => [r.sequence, r.status, r.attempts])).toEqual([
      [1, 'pending', 1],
      [2, 'pending', 0],
      [3, 'pending', 0],
      [4, 'pending', 0],
      [5, 'pending', 0],
      [6, 'pending', 0],
    ]);

    // The partner's deliveries list says the same.
    const list = await call('GET', `/transfers/v1/webhook_deliveries?booking_ref=${stuck.booking_ref}`, { key: p.testKey });
    expect(list.status).toBe(200);
    expect(list.body.data.map((d: { sequence: number; status: string; last_status: number | null }) => [d.sequence, d.status, d.last_status])).toEqual([
      [6, 'pending', null],
      [5, 'pending', null],
      [4, 'pending', null],
      [3, 'pending', null],
      [2, 'pending', null],
      [1, 'pending', 503],
    ]);
  });

  it('when an event is given up after its 8 attempts, then the next one goes out, still in order', async () => {
    const p = await h.ops.partnerWithKeys('Given Up Partner');
    const { rx, id } = await h.endpoint(p.testKey);
    rx.setResponder((d) => (d.event?.sequence === 1 ? 500 : 200));
    const b = await bookTransfer(call, p.testKey);
    await call('POST', `/transfers/v1/test_helpers/bookings/${b.booking_ref}/advance`, { key: p.testKey, body: { to: 'driver_assigned' } });

    await deliverEverything(id, 40);

    const seen = sequencesOf(rx.deliveries, b.booking_ref).map((d) => [d.event!.sequence, d.status]);
    expect(seen).toEqual([...Array.from({ length: 8 }, () => [1, 500]), [2, 200]]);
    const rows = await app.db('outbox').where({ kind: 'webhook', booking_ref: b.booking_ref }).orderBy('sequence');
    expect(rows.map((r) => [r.sequence, r.status])).toEqual([
      [1, 'failed'],
      [2, 'delivered'],
    ]);
  });

  it("when a delivered event is redelivered while the booking's next one waits, then the endpoint gets the earlier one first", async () => {
    const p = await h.ops.partnerWithKeys('Redeliver Partner');
    const { rx, id } = await h.endpoint(p.testKey);
    const b = await bookTransfer(call, p.testKey);
    await deliverEverything(id);
    const [first] = rx.deliveries;
    await call('POST', `/transfers/v1/test_helpers/bookings/${b.booking_ref}/advance`, { key: p.testKey, body: { to: 'driver_assigned' } });
    const r = await call('POST', `/transfers/v1/events/${first.event!.id}/redeliver`, { key: p.testKey, body: {} });
    expect(r.status).toBe(202);
    await deliverEverything(id);
    expect(sequencesOf(rx.deliveries, b.booking_ref).map((d) => [d.event!.sequence, d.status])).toEqual([
      [1, 200],
      [1, 200],
      [2, 200],
    ]);
  });
});
