import { client, type Call, type Reply } from '../../support/http';
import { backend } from '../../support/test-app';
import { startWebhookTestApp, webhookDeliverer, type WebhookTestApp } from '../../support/webhooks';

const PICKUP = '2026-12-01T09:30:00+05:30';
/** Under 24 hours after the test clock (2026-11-21T08:00Z): declines short_notice. */
const TOO_SOON = '2026-11-21T20:00:00+05:30';
const QUOTE = { pickup: { iata: 'CMB' }, dropoff: { name: 'Galle' }, pickup_datetime: PICKUP, passengers: { adults: 2, luggage: 1 } };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let seq = 0;

type Report = {
  window: { from: string; to: string };
  requests_seen: number;
  summary: Record<string, number>;
  requirements: Array<{ id: string; status: string; detail: string; evidence: Array<{ request_id: string; at: string; detail: string }> }>;
};

/**
 * The integration report grades a partner's own sandbox traffic, read back from the audit log, and our webhook
 * deliveries to its endpoints: a careful client passes every requirement, a careless one fails each, and one that did
 * nothing is not seen. Deliveries are made pass by pass (no background worker), on a clock that stands still, so a
 * failed delivery is attempted once.
 */
describe(`GET /test_helpers/integration_report (${backend})`, () => {
  const svc = {} as WebhookTestApp;
  beforeAll(async () => void Object.assign(svc, await startWebhookTestApp()));
  afterAll(() => svc.close?.());

  /** A partner's client: every call keyed, the request id of each answer kept. */
  async function partnerClient(name: string) {
    const p = await svc.ops.partnerWithKeys(name);
    const call: Call = client(svc.app.url);
    const as = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
      call(method, `/transfers/v1${path}`, { key: p.testKey, body, headers });
    return {
      partner: p,
      as,
      quote: (over: Record<string, unknown> = {}) => as('POST', '/quotes', { ...QUOTE, ...over }),
      bookingBody: (q: Reply, over: Record<string, unknown> = {}) => ({
        quote_id: q.body.quote_id,
        offer_id: q.body.offers[0].offer_id,
        partner_reference: `${name.replace(/\W/g, '')}-${++seq}`,
        passenger: { first_name: 'Kamal', last_name: 'Perera' },
        passengers: { adults: 2, luggage: 1 },
        flight_number: 'UL504',
        ...over,
      }),
      report: async (query = '') => {
        const r = await as('GET', `/test_helpers/integration_report${query}`);
        expect(r.status).toBe(200);
        return r.body as Report;
      },
    };
  }
  const byId = (r: Report) => Object.fromEntries(r.requirements.map((x) => [x.id, x]));

  it('when a client behaves, then every requirement passes, with the requests that show it', async () => {
    const c = await partnerClient('Careful Client');
    // A decline read and acted on: the pickup moved, not re-sent.
    const declined = await c.quote({ pickup_datetime: TOO_SOON });
    expect(declined.body.declined.reason).toBe('short_notice');
    const q = await c.quote();
    // A booking answered 503: retried with the same key and body after Retry-After (2 s).
    const body = c.bookingBody(q);
    const idem = { 'Idempotency-Key': `careful-${++seq}` };
    const first = await c.as('POST', '/bookings', body, { ...idem, 'Sandbox-Simulate': 'service_unavailable' });
    expect(first.status).toBe(503);
    // The audit keeps when each request really arrived, so the retry really waits.
    await sleep(Number(first.headers.get('retry-after')) * 1000 + 200);
    const booked = await c.as('POST', '/bookings', body, idem);
    expect(booked.status).toBe(201);
    const read = await c.as('GET', `/bookings/${booked.body.booking_ref}`);
    // An expired offer: quoted again.
    const q2 = await c.quote();
    await c.as('POST', `/test_helpers/offers/${q2.body.offers[0].offer_id}/expire`);
    const expired = await c.as('POST', '/bookings', c.bookingBody(q2), { 'Idempotency-Key': `careful-${++seq}` });
    expect(expired.status).toBe(410);
    const requoted = await c.quote();
    // A 400, fixed before it was sent again.
    const bad = await c.quote({ pickup_datetime: '2026-12-01T09:30:00' });
    expect(bad.status).toBe(400);
    await c.quote({ pickup_datetime: '2026-12-01T09:30:00+05:30' });

    const report = await c.report();
    // No webhook endpoint: its requirement does not apply (not seen, saying so).
    expect(report.summary).toEqual({ pass: 8, fail: 0, not_seen: 1 });
    const r = byId(report);
    expect(r.webhooks_acknowledged).toMatchObject({ status: 'not_seen', detail: expect.stringMatching(/^Not applicable: no webhook endpoint in sandbox/), evidence: [] });
    expect(r.partner_reference_unique.evidence).toEqual([
      expect.objectContaining({ request_id: booked.headers.get('x-request-id'), detail: `partner_reference ${body.partner_reference} made booking ${booked.body.booking_ref}` }),
    ]);
    expect(r.retry_reuses_key.evidence).toEqual([
      expect.objectContaining({ request_id: booked.headers.get('x-request-id'), detail: expect.stringContaining('same key and body') }),
    ]);
    expect(r.retry_after_honoured.evidence[0].request_id).toBe(booked.headers.get('x-request-id'));
    expect(r.bookings_read_back.evidence[0].request_id).toBe(read.headers.get('x-request-id'));
    expect(r.expired_offers_requoted.evidence[0].request_id).toBe(requoted.headers.get('x-request-id'));
    expect(r.declines_handled.evidence[0].request_id).toBe(declined.headers.get('x-request-id'));
    expect(r.no_blind_4xx_retries.evidence.map((e) => e.request_id)).toEqual(
      expect.arrayContaining([bad.headers.get('x-request-id'), expired.headers.get('x-request-id')]),
    );
    expect(report.requests_seen).toBeGreaterThanOrEqual(11);
  });

  it('when a client is careless, then each requirement fails, naming the requests that broke it', async () => {
    const c = await partnerClient('Careless Client');
    // Two webhook endpoints: one answers 500, the other not before this delivery pass's 1 s timeout. The slow one is
    // held until the pass is over rather than for a fixed time, and the timeout leaves a loaded machine room to
    // answer the 500 in time.
    const failing = await svc.endpoint(c.partner.testKey);
    failing.rx.setResponder(() => 500);
    let release = () => {};
    const held = new Promise<void>((r) => (release = r));
    const slow = await svc.endpoint(c.partner.testKey);
    slow.rx.setResponder(() => held.then(() => 200));
    // Booked without an Idempotency-Key, and never read back.
    const q = await c.quote();
    const unkeyed = await c.as('POST', '/bookings', c.bookingBody(q));
    expect(unkeyed.status).toBe(201);
    // The same partner_reference again for another offer: the first booking comes back, no second one is made.
    const qr = await c.quote();
    const reused = await c.as('POST', '/bookings', c.bookingBody(qr, { partner_reference: unkeyed.body.partner_reference }), {
      'Idempotency-Key': `careless-${++seq}`,
    });
    expect([reused.status, reused.headers.get('partner-reference-mismatch'), reused.body.booking_ref]).toEqual([200, 'offer_id', unkeyed.body.booking_ref]);
    // A 503 retried at once, with a new key.
    const q2 = await c.quote();
    const body = c.bookingBody(q2);
    const first = await c.as('POST', '/bookings', body, { 'Idempotency-Key': `careless-${++seq}`, 'Sandbox-Simulate': 'service_unavailable' });
    const hasty = await c.as('POST', '/bookings', body, { 'Idempotency-Key': `careless-${++seq}` });
    expect([first.status, hasty.status]).toEqual([503, 201]);
    // A 400 sent again unchanged.
    const bad = { ...QUOTE, pickup_datetime: '2026-12-01 09:30' };
    await c.as('POST', '/quotes', bad);
    const blind = await c.as('POST', '/quotes', bad);
    expect(blind.status).toBe(400);
    // An expired offer booked again.
    const q3 = await c.quote();
    await c.as('POST', `/test_helpers/offers/${q3.body.offers[0].offer_id}/expire`);
    const b3 = c.bookingBody(q3);
    await c.as('POST', '/bookings', b3, { 'Idempotency-Key': `careless-${++seq}` });
    const again = await c.as('POST', '/bookings', b3, { 'Idempotency-Key': `careless-${++seq}` });
    expect(again.status).toBe(410);
    // A declined quote, in a loop.
    let loop: Reply | undefined;
    for (let i = 0; i < 3; i++) loop = await c.quote({ pickup_datetime: TOO_SOON });
    // booking.confirmed of the two bookings, to each endpoint: every attempt fails.
    const delivered = await webhookDeliverer(svc.app, 1000)().finally(release);
    expect(delivered).toEqual({ delivered: 0, retried: 4, failed: 0 });

    const report = await c.report();
    const r = byId(report);
    expect(Object.fromEntries(report.requirements.map((x) => [x.id, x.status]))).toEqual({
      idempotency_key_on_bookings: 'fail',
      retry_reuses_key: 'fail',
      retry_after_honoured: 'fail',
      no_blind_4xx_retries: 'fail',
      expired_offers_requoted: 'fail',
      declines_handled: 'fail',
      bookings_read_back: 'fail',
      partner_reference_unique: 'fail',
      webhooks_acknowledged: 'fail',
    });
    expect(r.idempotency_key_on_bookings.evidence.map((e) => e.request_id)).toEqual([unkeyed.headers.get('x-request-id')]);
    expect(r.retry_reuses_key.evidence.map((e) => e.request_id)).toContain(hasty.headers.get('x-request-id'));
    expect(r.retry_after_honoured.evidence[0]).toMatchObject({
      request_id: hasty.headers.get('x-request-id'),
      detail: expect.stringMatching(/before its Retry-After of 2 s/),
    });
    expect(r.no_blind_4xx_retries.evidence.map((e) => e.request_id)).toEqual(
      expect.arrayContaining([blind.headers.get('x-request-id'), again.headers.get('x-request-id')]),
    );
    expect(r.expired_offers_requoted.evidence.map((e) => e.request_id)).toContain(again.headers.get('x-request-id'));
    expect(r.declines_handled.evidence).toEqual([
      expect.objectContaining({ request_id: loop!.headers.get('x-request-id'), detail: expect.stringContaining('sent 3 times') }),
    ]);
    expect(r.bookings_read_back.detail).toMatch(/never read back/);
    expect(r.bookings_read_back.evidence.map((e) => e.request_id)).toEqual([unkeyed.headers.get('x-request-id'), hasty.headers.get('x-request-id')]);
    expect(r.partner_reference_unique.evidence).toEqual([
      {
        request_id: reused.headers.get('x-request-id'),
        at: expect.any(String),
        detail:
          `partner_reference ${unkeyed.body.partner_reference} sent for offer ${qr.body.offers[0].offer_id}, but it names booking ${unkeyed.body.booking_ref} ` +
          `of offer ${q.body.offers[0].offer_id} (made by ${unkeyed.headers.get('x-request-id')}): no new booking was made`,
      },
    ]);
    // Each failed attempt, by its audit id, with the status code or the error.
    const acks = r.webhooks_acknowledged.evidence;
    expect(acks).toHaveLength(4);
    for (const e of acks) expect(e.request_id).toMatch(/^outbox_\d+_a1$/);
    const to = (rx: { url: string }, what: string) => acks.filter((e) => e.detail.includes(`to ${rx.url}/hooks: ${what}`)).length;
    expect([to(failing.rx, 'answered 500'), to(slow.rx, 'timed out after 1000 ms')]).toEqual([2, 2]);
    for (const ref of [unkeyed.body.booking_ref, hasty.body.booking_ref])
      expect(acks.filter((e) => e.detail.startsWith('booking.confirmed evt_') && e.detail.includes(`(booking ${ref}), attempt 1`))).toHaveLength(2);
    expect(r.webhooks_acknowledged.detail).toMatch(/^4 webhook delivery attempt\(s\) were not answered 2xx in time/);
    const [audited] = await svc.ops.audit({ request_id: acks[0].request_id });
    expect(audited).toMatchObject({ surface: 'webhooks', direction: 'outbound', partner_id: c.partner.partner_id, env: 'sandbox' });
  });

  it('when a client follows its bookings by webhook, answering 2xx, and reuses a reference only to retry, then it passes without reading them back', async () => {
    const c = await partnerClient('Webhook Client');
    const hook = await svc.endpoint(c.partner.testKey);
    const made: Reply[] = [];
    for (let i = 0; i < 2; i++) {
      const body = c.bookingBody(await c.quote());
      const idem = { 'Idempotency-Key': `webhook-${++seq}` };
      made.push(await c.as('POST', '/bookings', body, idem));
      // The same request again (a retry after a lost answer): the same reference, key and body, replayed.
      const again = await c.as('POST', '/bookings', body, idem);
      expect([again.status, again.headers.get('idempotent-replayed')]).toEqual([200, 'true']);
    }
    expect(made.map((m) => m.status)).toEqual([201, 201]);
    expect((await c.as('POST', `/webhook_endpoints/${hook.id}/test`)).status).toBe(202);
    expect(await svc.deliver()).toEqual({ delivered: 3, retried: 0, failed: 0 });
    expect(hook.rx.deliveries.map((d) => d.status)).toEqual([200, 200, 200]);

    const report = await c.report();
    const r = byId(report);
    expect([r.bookings_read_back.status, r.partner_reference_unique.status, r.webhooks_acknowledged.status]).toEqual(['pass', 'pass', 'pass']);
    expect(report.summary.fail).toBe(0);
    expect(r.bookings_read_back.detail).toBe('All 2 new booking(s) were read back, or their events received by your webhook endpoint.');
    expect(r.bookings_read_back.evidence.map((e) => e.detail)).toEqual(
      made.map((m) => expect.stringMatching(new RegExp(`^booking ${m.body.booking_ref} told of by webhook: booking\\.confirmed evt_\\w+ \\(booking ${m.body.booking_ref}\\), attempt 1, to ${hook.rx.url}/hooks answered 200$`))),
    );
    for (const e of r.bookings_read_back.evidence) expect(e.request_id).toMatch(/^outbox_\d+_a1$/);
    expect(r.partner_reference_unique.evidence.map((e) => e.request_id)).toEqual(made.map((m) => m.headers.get('x-request-id')));
    expect(r.webhooks_acknowledged.detail).toBe('All 3 webhook delivery attempt(s) were answered 2xx in time.');
    // The attempts were made at once: in any order.
    expect(r.webhooks_acknowledged.evidence.map((e) => e.detail.replace(/ evt_\w+/, '')).sort()).toEqual(
      [
        ...made.map((m) => `booking.confirmed (booking ${m.body.booking_ref}), attempt 1, to ${hook.rx.url}/hooks: answered 200`),
        `ping, attempt 1, to ${hook.rx.url}/hooks: answered 200`,
      ].sort(),
    );
  });

  it('when nothing happened, each requirement is not seen and says how to provoke it; `since` narrows the window', async () => {
    const c = await partnerClient('Quiet Client');
    await c.as('GET', '/ping');
    const report = await c.report();
    expect(report.summary).toEqual({ pass: 0, fail: 0, not_seen: 9 });
    expect(byId(report).retry_after_honoured.detail).toMatch(/Sandbox-Simulate/);
    expect(byId(report).expired_offers_requoted.detail).toMatch(/test_helpers\/offers\/\{offer_id\}\/expire/);
    expect(byId(report).webhooks_acknowledged.detail).toMatch(/^Not applicable: no webhook endpoint in sandbox/);
    // With an endpoint, the requirement applies: not seen until something is delivered.
    await svc.endpoint(c.partner.testKey);
    expect(byId(await c.report()).webhooks_acknowledged.detail).toMatch(/^No webhook delivery in the window: .*POST \/webhook_endpoints\/\{endpoint_id\}\/test/);

    const loud = await partnerClient('Later Client');
    await loud.as('POST', '/bookings', {
      quote_id: '0'.repeat(32),
      offer_id: '1'.repeat(32),
      partner_reference: 'X',
      passenger: { first_name: 'A', last_name: 'B' },
      passengers: { adults: 1 },
    });
    const future = new Date(Date.now() + 3600_000).toISOString();
    const later = await loud.report(`?since=${encodeURIComponent(future)}`);
    expect(later.window.from).toBe(future);
    expect(later.requests_seen).toBe(0);
    expect((await loud.report()).summary.fail).toBe(1);
  });

  it("when other partners and the reference console send requests, then they are not graded as this partner's", async () => {
    const c = await partnerClient('Isolated Client');
    const other = await partnerClient('Noisy Neighbour');
    const q = await other.quote();
    await other.as('POST', '/bookings', other.bookingBody(q));
    // From the console: an unkeyed booking is the console's, not the integration's.
    const q2 = await c.quote();
    await c.as('POST', '/bookings', c.bookingBody(q2), { 'X-Reference-Console': '1' });
    expect(byId(await c.report()).idempotency_key_on_bookings.status).toBe('not_seen');
    expect(byId(await other.report()).idempotency_key_on_bookings.status).toBe('fail');
  });

  it('when asked with a live key, then 404 like every test helper; with a bad since, 400 naming it', async () => {
    const c = await partnerClient('Live Client');
    const live = await client(svc.app.url)('GET', '/transfers/v1/test_helpers/integration_report', { key: c.partner.liveKey });
    expect(live.status).toBe(404);
    expect(live.body).toMatchObject({ env: 'production', error: { code: 'not_found' } });
    const bad = await c.as('GET', '/test_helpers/integration_report?since=yesterday');
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.fields[0].field).toBe('since');
  });
});
