import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestApp, type TestApp } from '../../support/test-app';
import { operator } from '../../support/fixtures';
import { certify, LiveKeyRefusedError, main, renderHtml, type Report } from '../../../simulators/partner/certify';
import { client } from '../../support/http';
import { createPartnerClient } from '../../../simulators/partner/client';
import { webhooksFlow, type FlowContext } from '../../../simulators/partner/flows';
import { systemClock } from '../../../src/shared/clock';

const REQUIREMENTS = [
  'ping.sandbox',
  'quote.offers',
  'decline.short_notice',
  'decline.route_unknown',
  'decline.no_vehicle',
  'decline.below_min_rate',
  'decline.partner_paused',
  'booking.create',
  'booking.idempotent_replay',
  'booking.idempotency_conflict',
  'booking.offer_consumed',
  'booking.partner_reference_reuse',
  'offer.expired',
  'booking.read',
  'booking.cancel',
  'booking.cancel_repeat',
  'auth.unauthorized',
  'retry.503_backoff',
  'retry.429_backoff',
  'retry.in_progress_same_key',
  'retry.timeout_same_key',
  'retry.4xx_not_retried',
  'retry.network_error',
  'webhooks.register',
  'webhooks.signed',
  'webhooks.booking_events',
  'webhooks.retried',
  'webhooks.replay',
];

describe('Partner certification against the service', () => {
  let app: TestApp;
  let ops: ReturnType<typeof operator>;
  let partner: Awaited<ReturnType<ReturnType<typeof operator>['partnerWithKeys']>>;
  let out: string;

  beforeAll(async () => {
    // The certification's webhook receiver listens on this machine: the deployment must allow private targets.
    // The real clock: the webhook retry is due 5 s after the first attempt, by the worker's clock. Slow answers are
    // held longer than the certification's client timeout (3 s), as the sandbox's 10 s are.
    app = await startTestApp({ clock: systemClock, env: { WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true', OUTBOX_POLL_MS: '100', SANDBOX_SLOW_MS: '4000' } });
    ops = operator(app.url);
    partner = await ops.partnerWithKeys('Certifying Agency');
  });
  afterAll(() => app.close());
  beforeEach(() => {
    out = fs.mkdtempSync(path.join(os.tmpdir(), 'certify-'));
  });
  afterEach(() => fs.rmSync(out, { recursive: true, force: true }));

  const statuses = (report: Report) => Object.fromEntries(report.requirements.map((r) => [r.id, r.status]));
  /**
   * A retry policy whose waits are recorded, not slept: the deployment answers each simulated fault the same however
   * long the client waits, so these runs skip the Retry-After waits (7 s a run) and check the waits asked for instead.
   * The CLI run below still sleeps for real.
   */
  const recordedWaits = () => {
    const waits: number[] = [];
    return { waits, retryPolicy: { sleep: async (ms: number) => void waits.push(ms) } };
  };

  it('when a sandbox key is certified, then every requirement passes (partner_paused through the sandbox pause helper) and both reports are written', async () => {
    const progress: string[] = [];
    const { waits, retryPolicy } = recordedWaits();
    const report = await certify({ baseUrl: app.url, key: partner.testKey, outDir: out, onProgress: (l) => progress.push(l), retryPolicy });
    // Retry-After honoured: 2 s after each simulated 503 (two) and the 429, 1 s after the in-progress 409.
    expect(waits.filter((ms) => ms >= 2000).length).toBeGreaterThanOrEqual(3);
    expect(waits.some((ms) => ms >= 1000 && ms < 2000)).toBe(true);

    expect(report.requirements.map((r) => r.id)).toEqual(REQUIREMENTS);
    const failed = report.requirements.filter((r) => r.status === 'fail').map((r) => `${r.id}: ${r.detail}`);
    expect(failed).toEqual([]);
    expect(statuses(report)).toEqual(Object.fromEntries(REQUIREMENTS.map((id) => [id, 'pass'])));
    const paused = report.requirements.find((r) => r.id === 'decline.partner_paused')!;
    expect(paused.evidence.map((e) => `${e.method} ${e.path} ${e.status}`)).toEqual([
      'POST /transfers/v1/test_helpers/account/pause 200',
      'POST /transfers/v1/quotes 200',
      'POST /transfers/v1/test_helpers/account/resume 200',
    ]);
    // The helper resumed the sandbox: the partner quotes normally again.
    const after = await fetch(`${app.url}/transfers/v1/quotes`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${partner.testKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ pickup: { iata: 'CMB' }, dropoff: { name: 'Kandy' }, pickup_datetime: '2026-12-01T09:30:00+05:30', passengers: { adults: 1 } }),
    });
    expect(((await after.json()) as { declined: unknown }).declined).toBeNull();
    expect(report).toMatchObject({ result: 'passed', env: 'sandbox', summary: { total: 28, passed: 28, failed: 0, skipped: 0 } });
    expect(report.key).not.toContain(partner.testKey.split('_').pop());
    expect(progress.filter((l) => /^\s+\d+\s+(PASS|FAIL|SKIP)\s/.test(l))).toHaveLength(28);

    for (const r of report.requirements.filter((x) => x.id.startsWith('booking.') || x.id.startsWith('offer.'))) {
      expect(r.evidence.length).toBeGreaterThan(0);
      for (const e of r.evidence) expect(e.request_id).toMatch(/\S/);
    }
    const replay = report.requirements.find((r) => r.id === 'booking.idempotent_replay')!;
    expect(replay.evidence).toEqual([expect.objectContaining({ method: 'POST', path: '/transfers/v1/bookings', status: 200 })]);

    const json = JSON.parse(fs.readFileSync(path.join(out, 'certification-report.json'), 'utf8'));
    expect(json).toMatchObject({ result: 'passed', summary: report.summary, run_id: report.run_id });
    expect(json.files).toBeUndefined();
    const html = fs.readFileSync(path.join(out, 'certification-report.html'), 'utf8');
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('<style>');
    expect(html).not.toMatch(/<(script|link)\b/);
    for (const id of REQUIREMENTS) expect(html).toContain(`id="req-${id}"`);
    expect(html).toContain('<tr class="pass" id="req-decline.partner_paused">');
  });

  it("when a paused account's key is also given (through the CLI), then partner_paused passes too and it exits 0", async () => {
    const paused = await ops.partnerWithKeys('Paused Agency');
    const pause = await ops.call('POST', `/partners/${paused.partner_id}/pause`);
    expect(pause.status).toBe(200);
    const log: string[] = [];
    const err: string[] = [];
    const code = await main(['node', 'certify', '--base-url', app.url, '--key', partner.testKey, '--paused-key', paused.testKey, '--out', out], {
      log: (l: string) => log.push(l),
      error: (l: string) => err.push(l),
    });
    expect(err).toEqual([]);
    expect(code).toBe(0);
    const report = JSON.parse(fs.readFileSync(path.join(out, 'certification-report.json'), 'utf8')) as Report;
    expect(report.summary).toEqual({ total: 28, passed: 28, failed: 0, skipped: 0 });
    expect(report.requirements.find((r) => r.id === 'decline.partner_paused')).toMatchObject({
      status: 'pass',
      evidence: [expect.objectContaining({ status: 200 })],
    });
    expect(log.join('\n')).toMatch(/PASS\s+decline\.partner_paused/);
    expect(log.join('\n')).toMatch(/28 requirements: 28 passed, 0 failed, 0 skipped/);
    expect(fs.existsSync(path.join(out, 'certification-report.html'))).toBe(true);
  });

  describe('the webhooks flow', () => {
    const context = (over: Partial<FlowContext> = {}): FlowContext => ({
      baseUrl: app.url,
      apiKey: partner.testKey,
      clientFor: (k) => createPartnerClient({ baseUrl: app.url, apiKey: k }),
      runId: `CERT-WH-${Date.now()}`,
      serverNow: new Date(),
      ...over,
    });

    it('when the deployment refuses the receiver (a production key: no private targets), then the webhook requirements are skipped saying how to fix it', async () => {
      const r = await webhooksFlow(createPartnerClient({ baseUrl: app.url, apiKey: partner.liveKey }), context());
      expect(r.requirements.map((x) => [x.id, x.status])).toEqual(REQUIREMENTS.filter((id) => id.startsWith('webhooks.')).map((id) => [id, 'skip']));
      expect(r.requirements[0].detail).toMatch(/WEBHOOKS_ALLOW_PRIVATE_TARGETS=true, or pass --webhook-url/);
    });

    it('when the deliveries do not verify with the secret the partner was given, then webhooks.signed fails', async () => {
      // A transport that hands the flow another secret than the service's: every signature then fails to verify.
      const other = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
      const tampering = async (req: Request) => {
        const res = await fetch(req);
        if (req.method !== 'POST' || !req.url.endsWith('/webhook_endpoints')) return res;
        const body = (await res.json()) as Record<string, unknown>;
        return new Response(JSON.stringify({ ...body, secret: other }), { status: res.status, headers: res.headers });
      };
      const r = await webhooksFlow(
        createPartnerClient({ baseUrl: app.url, apiKey: partner.testKey, fetch: tampering }),
        context({ retryPolicy: { maxAttempts: 1 } }),
      );
      const signed = r.requirements.find((x) => x.id === 'webhooks.signed')!;
      expect(signed).toMatchObject({ status: 'fail', detail: expect.stringMatching(/does not verify: No matching signature found/) });
    });
  });

  it('when a live key is given, then certification refuses before any request, and the CLI exits 2', async () => {
    const live = await ops.partnerWithKeys('Live Agency');
    await expect(certify({ baseUrl: app.url, key: live.liveKey, outDir: out })).rejects.toBeInstanceOf(LiveKeyRefusedError);
    await expect(certify({ baseUrl: app.url, key: live.testKey, pausedKey: live.liveKey, outDir: out })).rejects.toThrow(/--paused-key/);
    const err: string[] = [];
    const code = await main(['node', 'certify', '--base-url', app.url, '--key', live.liveKey, '--out', out], {
      log: () => {},
      error: (l: string) => err.push(l),
    });
    expect(code).toBe(2);
    expect(err.join('\n')).toMatch(/Refusing to certify with a live key .*svc_sk_test_/s);
    expect(fs.readdirSync(out)).toEqual([]);
    expect(await ops.audit({ partner_id: live.partner_id, surface: 'transfers' })).toEqual([]);
  });

  it('when the retry requirements run, then the deployment itself answered the simulated faults, each attempt audited', async () => {
    const report = await certify({ baseUrl: app.url, key: partner.testKey, outDir: false, retryPolicy: recordedWaits().retryPolicy });
    const retry = Object.fromEntries(report.requirements.filter((r) => r.id.startsWith('retry.')).map((r) => [r.id, r]));
    expect(retry['retry.503_backoff'].evidence.map((e) => [e.status, e.label])).toEqual([
      [503, 'attempt 1 (Sandbox-Simulate: service_unavailable)'],
      [503, 'attempt 2 (Sandbox-Simulate: service_unavailable)'],
      [200, 'attempt 3'],
    ]);
    for (const e of retry['retry.503_backoff'].evidence) {
      const [row] = await ops.audit({ request_id: e.request_id! });
      expect(row).toMatchObject({ status: e.status, partner_id: partner.partner_id, env: 'sandbox', path: '/transfers/v1/ping' });
    }
    expect(retry['retry.timeout_same_key'].evidence.map((e) => [e.status, e.label])).toEqual([
      [200, 'quote'],
      [null, 'attempt 1 (Sandbox-Simulate: slow)'],
      [201, 'attempt 2'],
      [200, 'the same key again'],
    ]);
    expect(retry['retry.timeout_same_key'].status).toBe('pass');
  });

  it("when --traffic is asked, then the partner's own traffic is graded: FAIL lines name the requests, and the HTML is written beside", async () => {
    const careless = await ops.partnerWithKeys('Careless Agency');
    const call = client(app.url);
    const q = await call('POST', '/transfers/v1/quotes', {
      key: careless.testKey,
      body: { pickup: { iata: 'CMB' }, dropoff: { name: 'Kandy' }, pickup_datetime: '2026-12-01T09:30:00+05:30', passengers: { adults: 1 } },
    });
    const unkeyed = await call('POST', '/transfers/v1/bookings', {
      key: careless.testKey,
      body: {
        quote_id: q.body.quote_id,
        offer_id: q.body.offers[0].offer_id,
        partner_reference: 'CARELESS-1',
        passenger: { first_name: 'A', last_name: 'B' },
        passengers: { adults: 1 },
        flight_number: 'UL504',
      },
    });
    expect(unkeyed.status).toBe(201);
    const log: string[] = [];
    const code = await main(['node', 'certify', '--traffic', '--base-url', app.url, '--key', careless.testKey, '--out', out], {
      log: (l: string) => log.push(l),
      error: (l: string) => log.push(l),
    });
    expect(code).toBe(1);
    const text = log.join('\n');
    expect(text).toMatch(/^Reading your sandbox traffic on .* \(the last 7 days\)…/);
    expect(text).toMatch(/FAIL\s+idempotency_key_on_bookings/);
    expect(text).toContain(unkeyed.headers.get('x-request-id')!);
    expect(text).toMatch(/NOT SEEN\s+expired_offers_requoted/);
    expect(text).toMatch(/7 requirements: 0 passed, 2 failed, 5 not seen/);
    const html = fs.readFileSync(path.join(out, 'integration-report.html'), 'utf8');
    expect(html).toContain('<tr class="fail" id="req-idempotency_key_on_bookings">');
    expect(html).not.toMatch(/<(script|link)\b/);
    expect(JSON.parse(fs.readFileSync(path.join(out, 'integration-report.json'), 'utf8')).summary).toEqual({ pass: 0, fail: 2, not_seen: 5 });
    // Only the report was asked for: the certification flows did not run on the partner's traffic.
    expect((await ops.audit({ partner_id: careless.partner_id })).map((r) => r.path)).toEqual([
      '/transfers/v1/test_helpers/integration_report',
      '/transfers/v1/bookings',
      '/transfers/v1/quotes',
    ]);
  });

  it('when report text carries markup, then the HTML escapes it', () => {
    const html = renderHtml({
      report: 'transfers-v1 partner certification',
      base_url: 'http://x"><script>alert(1)</script>',
      key: 'svc_sk_test_abc_…',
      env: 'sandbox',
      run_id: 'CERT-1',
      started_at: '2026-11-21T08:00:00.000Z',
      finished_at: '2026-11-21T08:00:01.000Z',
      duration_ms: 1000,
      result: 'failed',
      summary: { total: 1, passed: 0, failed: 1, skipped: 0 },
      requirements: [
        {
          id: 'x.y',
          flow: 'f',
          title: '<b>t</b>',
          status: 'fail',
          detail: `expected "<img src=x onerror=alert(1)>" & 'more'`,
          evidence: [{ label: '<i>', method: 'GET', path: '/a?<b>', status: 500, request_id: '<r>' }],
          duration_ms: 1,
        },
      ],
      not_covered: ['<u>'],
    });
    for (const injected of ['<script>', '<img', '<b>t</b>', '<i>', '<u>', '<r>', '?<b>']) expect(html).not.toContain(injected);
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('&quot;&gt;&lt;script&gt;');
    expect(html).toContain('&amp; &#39;more&#39;');
  });
});
