import { startTestApp, backend, type TestApp } from '../../support/test-app';
import { operator } from '../../support/fixtures';
import { client, type Reply } from '../../support/http';
import { certify, CERTIFY_USER_AGENT } from '../../../simulators/partner/certify';
import { startWebhookReceiver, type WebhookReceiver } from '../../../simulators/partner/webhook-receiver';
import { systemClock } from '../../../src/shared/clock';
import { eventually } from '../../support/eventually';

type Report = {
  requests_seen: number;
  summary: Record<string, number>;
  requirements: Array<{ id: string; status: string; detail: string; evidence: Array<{ request_id: string; detail: string }> }>;
};
type Partner = Awaited<ReturnType<ReturnType<typeof operator>['partnerWithKeys']>>;

const DAY = 86_400_000;
/** A date in Sri Lanka `days` from now, at 09:30 (the clock is real: certification's webhook retry is due after 5 s). */
const colombo = (days: number, time = '09:30') => `${new Date(Date.now() + days * DAY).toISOString().slice(0, 10)}T${time}:00+05:30`;
let seq = 0;

/**
 * `npm run certify` makes mistakes on purpose: it reuses a partner_reference, books without waiting for Retry-After
 * (its waits recorded here, not slept), lets simulated faults answer, and refuses a webhook delivery with 500 to see
 * it come again. The integration report grades the partner's own integration, so a certification run's requests
 * (User-Agent `lanka-certify/…`) and the deliveries to the endpoint it registers are left out of the grading
 * (issue 33): the same mistakes without that User-Agent fail every requirement; with it, none; the partner's own
 * requests beside it are still graded.
 */
describe(`The integration report leaves certification traffic out (${backend})`, () => {
  let app: TestApp;
  let ops: ReturnType<typeof operator>;
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    // As certify's own test runs it: receivers on this machine, the outbox worker polling, slow answers held 4 s.
    app = await startTestApp({ clock: systemClock, env: { WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true', OUTBOX_POLL_MS: '100', SANDBOX_SLOW_MS: '4000' } });
    ops = operator(app.url);
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await app?.close();
  });

  /** A receiver that answers every delivery with `status`. */
  async function receiver(status: number) {
    const r = await startWebhookReceiver({ respond: () => status });
    receivers.push(r);
    return r;
  }

  /** A partner's calls, each with `headers` (the certification's User-Agent, or none). */
  function partnerCalls(p: Partner, headers: Record<string, string>) {
    const call = client(app.url);
    const as = (method: string, path: string, body?: unknown, more: Record<string, string> = {}) =>
      call(method, `/transfers/v1${path}`, { key: p.testKey, body, headers: { ...headers, ...more } });
    const quote = (pickup = colombo(10)) =>
      as('POST', '/quotes', { pickup: { iata: 'CMB' }, dropoff: { name: 'Galle' }, pickup_datetime: pickup, passengers: { adults: 2, luggage: 1 } });
    const bookingBody = (q: Reply, over: Record<string, unknown> = {}) => ({
      quote_id: q.body.quote_id,
      offer_id: q.body.offers[0].offer_id,
      partner_reference: `CERT-LIKE-${++seq}-${Date.now()}`,
      passenger: { first_name: 'Kamal', last_name: 'Perera' },
      passengers: { adults: 2, luggage: 1 },
      flight_number: 'UL504',
      ...over,
    });
    return { as, quote, bookingBody };
  }

  const report = async (p: Partner): Promise<Report> => {
    const r = await client(app.url)('GET', '/transfers/v1/test_helpers/integration_report', { key: p.testKey });
    expect(r.status).toBe(200);
    return r.body as Report;
  };
  const statuses = (r: Report) => Object.fromEntries(r.requirements.map((x) => [x.id, x.status]));
  /** The requirements failed, with their evidence (what a failure shows). */
  const failed = (r: Report) => r.requirements.filter((x) => x.status === 'fail').map((x) => ({ id: x.id, evidence: x.evidence.map((e) => e.detail) }));
  const evidenceOf = (r: Report) => r.requirements.flatMap((x) => x.evidence.map((e) => e.request_id));

  /**
   * Every mistake the report grades, made on purpose as a certification run makes them: a webhook endpoint that
   * answers 500, a booking without an Idempotency-Key never read back, a partner_reference reused for another offer,
   * a 503 retried at once with a new key, a 400 and a 410 sent again unchanged, a declined quote sent 3 times.
   * Returns the request ids of what it sent, and its refusing receiver.
   */
  async function deliberateMistakes(p: Partner, headers: Record<string, string>) {
    const c = partnerCalls(p, headers);
    const sent: Reply[] = [];
    const send = async (r: Promise<Reply>) => {
      const reply = await r;
      sent.push(reply);
      return reply;
    };
    const refusing = await receiver(500);
    expect((await send(c.as('POST', '/webhook_endpoints', { url: `${refusing.url}/hooks` }))).status).toBe(201);
    const q = await send(c.quote());
    const unkeyed = await send(c.as('POST', '/bookings', c.bookingBody(q)));
    expect(unkeyed.status).toBe(201);
    const reused = await send(
      c.as('POST', '/bookings', c.bookingBody(await send(c.quote()), { partner_reference: unkeyed.body.partner_reference }), {
        'Idempotency-Key': `k-${++seq}`,
      }),
    );
    expect(reused.headers.get('partner-reference-mismatch')).toBe('offer_id');
    const body = c.bookingBody(await send(c.quote()));
    expect((await send(c.as('POST', '/bookings', body, { 'Idempotency-Key': `k-${++seq}`, 'Sandbox-Simulate': 'service_unavailable' }))).status).toBe(503);
    expect((await send(c.as('POST', '/bookings', body, { 'Idempotency-Key': `k-${++seq}` }))).status).toBe(201);
    for (let i = 0; i < 2; i++) expect((await send(c.as('POST', '/quotes', { pickup: { iata: 'CMB' } }))).status).toBe(400);
    const q3 = await send(c.quote());
    await send(c.as('POST', `/test_helpers/offers/${q3.body.offers[0].offer_id}/expire`));
    const expired = c.bookingBody(q3);
    for (let i = 0; i < 2; i++) expect((await send(c.as('POST', '/bookings', expired, { 'Idempotency-Key': `k-${++seq}` }))).status).toBe(410);
    for (let i = 0; i < 3; i++) expect((await send(c.quote(colombo(0, '23:30')))).body.declined?.reason).toBe('short_notice');
    // The two bookings' booking.confirmed, refused by the endpoint.
    await eventually('both booking.confirmed refused', async () => (refusing.deliveries.length >= 2 ? true : undefined));
    return { requestIds: sent.map((r) => r.headers.get('x-request-id')!), refusing };
  }

  it('when the mistakes are made without the certification User-Agent, then every requirement fails (the run below is a real test)', async () => {
    const p = await ops.partnerWithKeys('Careless Integration');
    await deliberateMistakes(p, {});
    // The receiver hears a refused delivery before the worker records the refusal: graded once recorded.
    const graded = await eventually('the refused deliveries recorded', async () => {
      const r = await report(p);
      return statuses(r).webhooks_acknowledged === 'not_seen' ? undefined : r;
    });
    expect(Object.values(statuses(graded))).toEqual(Array(9).fill('fail'));
  });

  it("when a certification run makes them (User-Agent lanka-certify/…), then none counts against the partner, and the partner's own requests still do", async () => {
    const p = await ops.partnerWithKeys('Certified Integration');
    // The partner's own endpoint, answering every delivery 200: its deliveries are still graded.
    const own = await receiver(200);
    expect((await partnerCalls(p, {}).as('POST', '/webhook_endpoints', { url: `${own.url}/own` })).status).toBe(201);
    const run = await deliberateMistakes(p, { 'User-Agent': `${CERTIFY_USER_AGENT} (a certify-like run)` });
    // Both deliveries to its own endpoint, answered and recorded (the receiver hears one before its answer is recorded).
    const acknowledged = (r: Report) => r.requirements.find((x) => x.id === 'webhooks_acknowledged')!.evidence.length;
    const graded = await eventually('both deliveries to its own endpoint recorded', async () => {
      const r = await report(p);
      return acknowledged(r) >= 2 ? r : undefined;
    });
    expect(failed(graded)).toEqual([]);
    expect(evidenceOf(graded).filter((id) => run.requestIds.includes(id))).toEqual([]);
    // Not seen, saying how to provoke each; the partner's own endpoint answered the deliveries it got, 2xx.
    expect(statuses(graded)).toMatchObject({ idempotency_key_on_bookings: 'not_seen', partner_reference_unique: 'not_seen', webhooks_acknowledged: 'pass' });
    const acks = graded.requirements.find((x) => x.id === 'webhooks_acknowledged')!.evidence;
    expect(acks.length).toBeGreaterThanOrEqual(2);
    for (const e of acks) expect(e.detail).toContain(`to ${own.url}/own: answered 200`);
    expect(graded.requests_seen).toBeGreaterThanOrEqual(run.requestIds.length);

    // The partner's own unkeyed booking, after the run: graded, and it alone is the evidence.
    const c = partnerCalls(p, {});
    const mine = await c.as('POST', '/bookings', c.bookingBody(await c.quote()));
    expect(mine.status).toBe(201);
    const after = await report(p);
    expect(after.requirements.find((x) => x.id === 'idempotency_key_on_bookings')).toMatchObject({
      status: 'fail',
      evidence: [expect.objectContaining({ request_id: mine.headers.get('x-request-id') })],
    });
  });

  it('when `npm run certify` itself runs, then its requests say lanka-certify and the report finds nothing against the partner', async () => {
    const p = await ops.partnerWithKeys('Certify Run Agency');
    const certified = await certify({ baseUrl: app.url, key: p.testKey, outDir: false, retryPolicy: { sleep: async () => undefined } });
    const evidence = certified.requirements.flatMap((r) => r.evidence.map((e) => e.request_id)).filter((id): id is string => !!id);
    expect(evidence.length).toBeGreaterThan(10);
    const [row] = await ops.audit({ request_id: evidence[0] });
    expect(row.request_headers['user-agent']).toBe(CERTIFY_USER_AGENT);

    const graded = await report(p);
    expect(failed(graded)).toEqual([]);
    expect(evidenceOf(graded).filter((id) => evidence.includes(id))).toEqual([]);
    expect(graded.requests_seen).toBeGreaterThan(20);
  });
});
