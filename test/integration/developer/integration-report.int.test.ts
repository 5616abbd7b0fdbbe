import { client, type Call, type Reply } from '../../support/http';
import { useTestApp } from '../../support/use-test-app';

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
 * The integration report grades a partner's own sandbox traffic, read back from the audit log: a careful client
 * passes every requirement, a careless one fails each, and one that did nothing is not seen.
 */
describe('GET /test_helpers/integration_report', () => {
  const svc = useTestApp();

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
    expect(report.summary).toEqual({ pass: 7, fail: 0, not_seen: 0 });
    const r = byId(report);
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
    // Booked without an Idempotency-Key, and never read back.
    const q = await c.quote();
    const unkeyed = await c.as('POST', '/bookings', c.bookingBody(q));
    expect(unkeyed.status).toBe(201);
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
  });

  it('when nothing happened, each requirement is not seen and says how to provoke it; `since` narrows the window', async () => {
    const c = await partnerClient('Quiet Client');
    await c.as('GET', '/ping');
    const report = await c.report();
    expect(report.summary).toEqual({ pass: 0, fail: 0, not_seen: 7 });
    expect(byId(report).retry_after_honoured.detail).toMatch(/Sandbox-Simulate/);
    expect(byId(report).expired_offers_requoted.detail).toMatch(/test_helpers\/offers\/\{offer_id\}\/expire/);

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
