import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestApp, type TestApp } from '../../support/test-app';
import { operator } from '../../support/fixtures';
import { certify, defaultBaseUrl, LiveKeyRefusedError, main, renderHtml, type Report } from '../../../simulators/partner/certify';
import { client } from '../../support/http';
import { createPartnerClient } from '../../../simulators/partner/client';
import { webhooksFlow, type FlowContext } from '../../../simulators/partner/flows';
import { systemClock } from '../../../src/shared/clock';
import { listeningFile, writeListening } from '../../../src/cli/listening';
import { freePort } from '../../support/net';
import { pickupInDays } from '../../support/real-clock';

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
      body: JSON.stringify({ pickup: { iata: 'CMB' }, dropoff: { name: 'Kandy' }, pickup_datetime: pickupInDays(3), passengers: { adults: 1 } }),
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

  it("when the CLI runs with PARTNER_API_KEY and a paused account's PARTNER_PAUSED_KEY, then partner_paused passes too, it exits 0, and no key is shown anywhere", async () => {
    const paused = await ops.partnerWithKeys('Paused Agency');
    const pause = await ops.call('POST', `/partners/${paused.partner_id}/pause`);
    expect(pause.status).toBe(200);
    const log: string[] = [];
    const err: string[] = [];
    // As `PARTNER_API_KEY=svc_sk_test_… npm run certify` runs it: the keys in the environment, not on the command line.
    const saved = { key: process.env.PARTNER_API_KEY, paused: process.env.PARTNER_PAUSED_KEY };
    process.env.PARTNER_API_KEY = partner.testKey;
    process.env.PARTNER_PAUSED_KEY = paused.testKey;
    let code: number;
    try {
      code = await main(['node', 'certify', '--base-url', app.url, '--out', out], { log: (l: string) => log.push(l), error: (l: string) => err.push(l) });
    } finally {
      for (const [name, value] of [
        ['PARTNER_API_KEY', saved.key],
        ['PARTNER_PAUSED_KEY', saved.paused],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
    expect(err).toEqual([]);
    expect(code).toBe(0);
    const printed = log.join('\n');
    const written = fs.readdirSync(out).map((f) => fs.readFileSync(path.join(out, f), 'utf8'));
    expect(written).toHaveLength(2);
    for (const key of [partner.testKey, paused.testKey]) {
      const secret = key.split('_').pop()!;
      for (const text of [printed, ...written]) expect(text).not.toContain(secret);
    }
    expect(printed).toContain(`with ${partner.testKey.slice(0, partner.testKey.lastIndexOf('_') + 1)}…`);
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
      // The booking's events fail on the signature as soon as booking.confirmed is refused, not after a 20 s wait for
      // the booking.cancelled that the service holds behind it.
      expect(r.requirements.find((x) => x.id === 'webhooks.booking_events')).toMatchObject({
        status: 'fail',
        detail: expect.stringMatching(/^the booking\.confirmed delivery does not verify/),
      });
    });
  });

  it('when a live key is given, then certification refuses before any request, and the CLI exits 2', async () => {
    const live = await ops.partnerWithKeys('Live Agency');
    await expect(certify({ baseUrl: app.url, key: live.liveKey, outDir: out })).rejects.toBeInstanceOf(LiveKeyRefusedError);
    await expect(certify({ baseUrl: app.url, key: live.testKey, pausedKey: live.liveKey, outDir: out })).rejects.toThrow(/--paused-key/);
    const err: string[] = [];
    const code = await main(
      ['node', 'certify', '--base-url', app.url, '--out', out],
      { log: () => {}, error: (l: string) => err.push(l) },
      { PARTNER_API_KEY: live.liveKey },
    );
    expect(code).toBe(2);
    expect(err.join('\n')).toMatch(/Refusing to certify with a live key .*svc_sk_test_/s);
    expect(err.join('\n')).not.toContain(live.liveKey.split('_').pop());
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
      body: { pickup: { iata: 'CMB' }, dropoff: { name: 'Kandy' }, pickup_datetime: pickupInDays(3), passengers: { adults: 1 } },
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
    const code = await main(
      ['node', 'certify', '--traffic', '--base-url', app.url, '--out', out],
      { log: (l: string) => log.push(l), error: (l: string) => log.push(l) },
      { PARTNER_API_KEY: careless.testKey },
    );
    expect(code).toBe(1);
    const text = log.join('\n');
    expect(text).toMatch(/^Reading your sandbox traffic on .* \(the last 7 days\)…/);
    expect(text).toMatch(/FAIL\s+idempotency_key_on_bookings/);
    expect(text).toContain(unkeyed.headers.get('x-request-id')!);
    expect(text).toMatch(/NOT SEEN\s+expired_offers_requoted/);
    expect(text).toMatch(/NOT SEEN\s+webhooks_acknowledged\s+Not applicable: no webhook endpoint in sandbox/);
    expect(text).toMatch(/9 requirements: 1 passed, 2 failed, 6 not seen/);
    const html = fs.readFileSync(path.join(out, 'integration-report.html'), 'utf8');
    expect(html).toContain('<tr class="fail" id="req-idempotency_key_on_bookings">');
    expect(html).not.toMatch(/<(script|link)\b/);
    expect(JSON.parse(fs.readFileSync(path.join(out, 'integration-report.json'), 'utf8')).summary).toEqual({ pass: 1, fail: 2, not_seen: 6 });
    // Only the report was asked for: the certification flows did not run on the partner's traffic.
    expect((await ops.audit({ partner_id: careless.partner_id })).map((r) => r.path)).toEqual([
      '/transfers/v1/test_helpers/integration_report',
      '/transfers/v1/bookings',
      '/transfers/v1/quotes',
    ]);
  });

  describe('the CLI: where the key and the service come from', () => {
    /** Runs the CLI in-process with this environment (and nothing else), on --traffic: one request, no flows. */
    async function cli(args: string[], env: Record<string, string | undefined>) {
      const lines: string[] = [];
      const errors: string[] = [];
      const code = await main(['node', 'certify', '--traffic', '--out', out, ...args], { log: (l) => lines.push(l), error: (l) => errors.push(l) }, env);
      return { code, stdout: lines.join('\n'), stderr: errors.join('\n') };
    }
    let quiet: Awaited<ReturnType<ReturnType<typeof operator>['partnerWithKeys']>>;
    const secretOf = (key: string) => key.split('_').pop()!;
    beforeAll(async () => {
      quiet = await ops.partnerWithKeys('Quiet Agency');
    });

    it('when neither --base-url nor PUBLIC_BASE_URL is given, then the service is looked for on 127.0.0.1 at PORT (3000 by default)', async () => {
      // DATA_DIR: a folder where no npm start wrote where it listens (the working directory's ./data might have).
      expect(defaultBaseUrl({ DATA_DIR: out })).toBe('http://127.0.0.1:3000');
      expect(defaultBaseUrl({ PORT: '8080' })).toBe('http://127.0.0.1:8080');
      expect(defaultBaseUrl({ PORT: '8080', PUBLIC_BASE_URL: 'https://api.example.lk' })).toBe('https://api.example.lk');
      const byPort = await cli([], { PARTNER_API_KEY: quiet.testKey, PORT: String(app.port) });
      expect(byPort).toMatchObject({ code: 0, stderr: '' });
      expect(byPort.stdout).toContain(`Reading your sandbox traffic on http://127.0.0.1:${app.port}/transfers/v1`);
    });

    it('when PORT is not set in its shell, then it certifies the service npm start said it listens on (DATA_DIR/listening.json); when nothing answers, one line names the address, where it came from, and --base-url and PORT=', async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'certify-listening-'));
      try {
        const forget = writeListening(dir, { url: app.url, opsUrl: app.opsUrl });
        expect(defaultBaseUrl({ DATA_DIR: dir })).toBe(app.url);
        const found = await cli([], { PARTNER_API_KEY: quiet.testKey, DATA_DIR: dir });
        expect(found).toMatchObject({ code: 0, stderr: '' });
        expect(found.stdout).toContain(`Reading your sandbox traffic on ${app.url}/transfers/v1`);
        expect(defaultBaseUrl({ DATA_DIR: dir, PORT: '8080' })).toBe('http://127.0.0.1:8080');
        forget();
        expect(defaultBaseUrl({ DATA_DIR: dir })).toBe('http://127.0.0.1:3000');

        const closed = await freePort();
        writeListening(dir, { url: `http://127.0.0.1:${closed}`, opsUrl: `http://127.0.0.1:${closed}` });
        for (const traffic of [true, false]) {
          const errors: string[] = [];
          const code = await main(
            ['node', 'certify', '--out', out, ...(traffic ? ['--traffic'] : [])],
            { log: () => {}, error: (l) => errors.push(l) },
            { PARTNER_API_KEY: quiet.testKey, DATA_DIR: dir },
          );
          expect(code).toBe(1);
          expect(errors.join('\n').split('\n')).toEqual([
            expect.stringMatching(
              new RegExp(
                `^Cannot reach http://127\\.0\\.0\\.1:${closed}/transfers/v1: .*ECONNREFUSED.*, where npm start said it listens \\(${listeningFile(dir).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\)\\. ` +
                  'Is the service running there\\? Pass --base-url http://<host>:<port>, or PORT=<port> for one on this machine\\.$',
              ),
            ),
          ]);
        }
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });

    it('when PUBLIC_BASE_URL is set, then it is the default; an explicit --base-url still comes first', async () => {
      const byPublic = await cli([], { PARTNER_API_KEY: quiet.testKey, PUBLIC_BASE_URL: app.url, PORT: '9' });
      expect(byPublic).toMatchObject({ code: 0, stderr: '' });
      expect(byPublic.stdout).toContain(`Reading your sandbox traffic on ${app.url}/transfers/v1`);
      const explicit = await cli(['--base-url', app.url], { PARTNER_API_KEY: quiet.testKey, PUBLIC_BASE_URL: 'http://127.0.0.1:9' });
      expect(explicit).toMatchObject({ code: 0, stderr: '' });
      const unreachable = await cli([], { PARTNER_API_KEY: quiet.testKey, PUBLIC_BASE_URL: 'http://127.0.0.1:9' });
      expect(unreachable.code).toBe(1);
      expect(unreachable.stderr).toMatch(/^Cannot reach http:\/\/127\.0\.0\.1:9\/transfers\/v1/);
    });

    it('when --key is given, then it still works, with a warning to use PARTNER_API_KEY; PARTNER_API_KEY wins over it; neither is printed', async () => {
      const flag = await cli(['--base-url', app.url, '--key', quiet.testKey], {});
      expect(flag.code).toBe(0);
      expect(flag.stderr).toBe(
        'warning: --key puts the key on the command line, which npm prints and shells keep in their history; set PARTNER_API_KEY instead.',
      );
      const both = await cli(['--base-url', app.url, '--key', 'svc_sk_test_abcdefghijkl_NotTheKeyNotTheKeyNotTheKeyNotTheKey1234'], {
        PARTNER_API_KEY: quiet.testKey,
      });
      expect(both).toMatchObject({ code: 0, stderr: 'warning: --key ignored: PARTNER_API_KEY is set, and is used.' });
      for (const r of [flag, both]) expect(`${r.stdout}\n${r.stderr}`).not.toMatch(/NotTheKey|svc_sk_test_[a-z0-9]{12}_[A-Za-z0-9]{40}/);
      expect(`${flag.stdout}${both.stdout}`).not.toContain(secretOf(quiet.testKey));
    });

    it('when no key is given, then exit 2 saying to set PARTNER_API_KEY; a key that breaks the request shows none of itself in the error', async () => {
      const none = await cli(['--base-url', app.url], {});
      expect(none).toEqual({ code: 2, stdout: '', stderr: expect.stringMatching(/^No key: set PARTNER_API_KEY /) });
      // A key pasted with a line break: fetch refuses the header, quoting it whole in its error.
      const pasted = `${quiet.testKey}\nSECRET-TAIL`;
      const traffic = await cli(['--base-url', app.url], { PARTNER_API_KEY: pasted });
      const run = await main(
        ['node', 'certify', '--base-url', app.url, '--out', out],
        { log: () => {}, error: (l) => (traffic.stderr += `\n${l}`) },
        { PARTNER_API_KEY: pasted },
      );
      expect([traffic.code, run]).toEqual([1, 1]);
      expect(traffic.stderr).toMatch(/^Cannot reach /);
      expect(traffic.stderr).toContain(`${quiet.testKey.slice(0, quiet.testKey.lastIndexOf('_') + 1)}…`);
      expect(`${traffic.stdout}\n${traffic.stderr}`).not.toMatch(/SECRET-TAIL/);
      expect(traffic.stderr).not.toContain(secretOf(quiet.testKey));
      expect(fs.readdirSync(out)).toEqual([]);
    });
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
