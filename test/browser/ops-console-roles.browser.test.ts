import type { Browser, Page } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestApp, OPERATOR_TOKEN, type TestApp } from '../support/test-app';
import { operator } from '../support/fixtures';
import { client } from '../support/http';
import { launchBrowser, shotsAtBothSizes, signInToConsole, textSoon, visibleSoon, watchedPage, describeInBrowser } from '../support/browser';
import { ManualClock } from '../../src/shared/clock';
import { enqueueOutbound } from '../../src/domain/outbox/outbox';
import { HOTEL, PASSENGER } from '../support/bookings';

/** 13:30 in Sri Lanka on Saturday 21 November 2026. */
const NOW = '2026-11-21T08:00:00Z';
const TODAY = '2026-11-21';

/**
 * The operator console for named operators with roles: who is signed in is in the header, and the page offers only
 * what the role may do (a viewer reads; a dispatcher dispatches; an admin also runs partners, rate limits and
 * operators). An admin names operators from the page (the token shown once) and sets a partner's rate limits and
 * what its AI agents may do.
 */
describeInBrowser('Operator console (/ops/): operators and roles', () => {
  let app: TestApp;
  let browser: Browser;
  const clock = new ManualClock('2026-11-19T12:00:00Z');
  const ops = () => operator(app.url);
  let partner: Awaited<ReturnType<ReturnType<typeof operator>['partnerWithKeys']>>;
  let job: Record<string, any>;
  let failedMessageId: string;
  let viewer: { operator_id: string; token: string };

  /** Names an operator through the API with the bootstrap token. */
  async function named(name: string, role: 'metrics' | 'viewer' | 'dispatcher' | 'admin') {
    const r = await ops().call('POST', '/operators', { body: { name, role } });
    if (r.status !== 201) throw new Error(`createOperator ${r.status} ${r.text}`);
    return r.body as { operator_id: string; token: string };
  }
  const asToken = (token: string) => ({ headers: { Authorization: `Bearer ${token}` } });

  beforeAll(async () => {
    // No outbox worker: the failed message below stays failed.
    app = await startTestApp({ clock, outboxWorker: false });
    await ops().vehicle('standard_car', { plate: 'CAB-4821', model: 'Axio', colour: 'white' });
    await ops().driver('Sunil Fernando', '+94 77 123 4567');
    partner = await ops().partnerWithKeys('Island Holidays');
    const call = client(app.url);
    const q = await call('POST', '/transfers/v1/quotes', {
      key: partner.liveKey,
      body: { pickup: { iata: 'CMB' }, dropoff: { name: 'Kandy' }, pickup_datetime: `${TODAY}T16:00:00+05:30`, passengers: { adults: 2, luggage: 2 } },
    });
    const b = await call('POST', '/transfers/v1/bookings', {
      key: partner.liveKey,
      body: {
        quote_id: q.body.quote_id,
        offer_id: q.body.offers[0].offer_id,
        partner_reference: 'IH-201',
        passenger: { first_name: 'Ayesha', last_name: 'Perera' },
        passengers: { adults: 2, luggage: 2 },
        flight_number: 'UL504',
      },
    });
    if (b.status !== 201) throw new Error(`booking ${b.status} ${b.text}`);
    clock.set(NOW);
    [job] = await ops().jobs({ booking_ref: b.body.booking_ref });
    await ops().call('PUT', `/partners/${partner.partner_id}/vehicle-codes/SEDAN`, { body: { vehicle: 'standard_car' } });

    // A marketplace call that failed: it waits for an operator.
    const { id } = await enqueueOutbound(app.deps.db, { kind: 'brand_list', payload: {} }, new Date(NOW));
    await app.db('outbox').where({ id }).update({ status: 'failed', attempts: 1, last_status: 503, last_error: 'marketplace answered 503' });
    failedMessageId = String(id);

    viewer = await named('Ravi Jayasuriya', 'viewer');
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  const signIn = (page: Page, token: string) => signInToConsole(page, app.url, token);

  /** The page at both sizes (test-artifacts/); at a phone's width it must not scroll sideways. */
  async function shots(page: Page, name: string) {
    expect({ name, overflow: await shotsAtBothSizes(page, name) }).toEqual({ name, overflow: 0 });
  }

  /** Whether any element matches and is shown. */
  const shown = (page: Page, selector: string) =>
    page.locator(selector).evaluateAll((els) => els.some((e) => (e as unknown as { offsetParent: unknown }).offsetParent !== null));
  const links = (page: Page) =>
    page.locator('#sections a').evaluateAll((els) => els.filter((a) => !(a as unknown as { hidden: boolean }).hidden).map((a) => a.textContent));

  it('shows a viewer who is signed in, and none of what a viewer may not do: no audit log, no forms, no retries', async () => {
    const w = await watchedPage(browser);
    try {
      await signIn(w.page, viewer.token);
      await textSoon(w.page.locator('#whoami'), /Ravi Jayasuriya\s+viewer/);
      await visibleSoon(w.page.locator('#sign-out'));
      expect(await links(w.page)).toEqual(['Dispatch', 'Drivers', 'Partners', 'Deliveries']);
      // Hidden, not disabled: the audit log's and the operators' links are not on the page for a viewer.
      expect(await w.page.locator('#sections a[href="#audit"]').getAttribute('hidden')).toBe('');
      expect(await w.page.locator('#sections a[href="#operators"]').getAttribute('hidden')).toBe('');

      // The board: a job's details, without the forms that act on it.
      await w.page.click(`#unassigned [data-job="${job.job_id}"]`);
      await textSoon(w.page.locator('#job-title'), new RegExp(`Job ${job.job_id}`));
      await textSoon(w.page.locator('#job-panel'), /needs the dispatcher role; you are a viewer/);
      // The passenger as a viewer may see them: the first name and the initial (ops-v1.yaml, passengers by role).
      await textSoon(w.page.locator('#job-panel'), /Passenger\s*Ayesha P\./i);
      expect(await w.page.locator('#job-panel').textContent()).not.toContain('Perera');
      for (const s of ['#assign-form', '#complete-job', '#no-show-form']) expect({ s, count: await w.page.locator(s).count() }).toEqual({ s, count: 0 });
      await shots(w.page, 'ops-console-viewer-board');

      // A partner: its keys, rate limits and vocabulary, read only.
      await w.page.click('#sections a[href="#partners"]');
      await w.page.click(`#partners-table a[href="#partners/${partner.partner_id}"]`);
      await textSoon(w.page.locator('#partner-detail-title'), /Island Holidays/);
      await textSoon(w.page.locator('#rate-table'), /Sandbox\s+No limit[\s\S]*Production\s+No limit/);
      await textSoon(w.page.locator('#keys-table'), /svc_sk_test_/);
      await textSoon(w.page.locator('#vocab-table'), /SEDAN/);
      // What its AI agents may do, and what they booked today: read only.
      await textSoon(w.page.locator('#agents-facts'), /Agents\s+on\s+Production bookings\s+Off \(sandbox only\)\s+Most per booking\s+No limit/i);
      await textSoon(w.page.locator('#agents-today tr[data-env="production"]'), /Production\s+0 bookings\s+0\.00 USD/);
      expect(await shown(w.page, '#partner-form')).toBe(false);
      for (const s of ['#pause-toggle', '#key-form', '[data-revoke]', '#vocab-form', '#vocab-table button', '#rate-form', '#agents-form', '#agents input']) {
        expect({ s, count: await w.page.locator(s).count() }).toEqual({ s, count: 0 });
      }
      await shots(w.page, 'ops-console-viewer-partner');
      await w.page.locator('#agents').scrollIntoViewIfNeeded();
      await shots(w.page, 'ops-console-viewer-partner-agents');

      // Deliveries: the failed message, without Retry or its attempts (they are in the audit log).
      await w.page.click('#sections a[href="#deliveries"]');
      const row = w.page.locator(`#deliveries-table tr[data-message="${failedMessageId}"]`);
      await textSoon(row, /Marketplace: brand list[\s\S]*failed[\s\S]*503 marketplace answered 503/);
      expect(await row.locator('button').count()).toBe(0);
      await shots(w.page, 'ops-console-viewer-deliveries');

      // The audit log's and the operators' addresses open the board instead.
      for (const hash of ['#audit', '#operators']) {
        await w.page.goto(`${app.url}/ops/${hash}`);
        await visibleSoon(w.page.locator('#board-title'));
        expect(await w.page.locator('#view-audit').isVisible()).toBe(false);
        expect(await w.page.locator('#view-operators').isVisible()).toBe(false);
      }
      // The page never asked the API for what a viewer may not do.
      const refused = (await ops().audit({ operator_id: viewer.operator_id, limit: '500' })).filter((e) => e.status === 403);
      expect(refused).toEqual([]);
      expect(w.outside(app.url)).toEqual([]);
      expect(w.errors).toEqual([]);
    } finally {
      await w.close();
    }
  });

  it("shows the API's 403 in words when the page offers what the role may not do", async () => {
    const w = await watchedPage(browser);
    try {
      // A page that believes the viewer is an admin (only GET /me is rewritten; every other call is the API's).
      await w.page.route('**/ops/v1/me', (route) =>
        route.fulfill({
          status: 200,
          contentType: 'application/json',
          body: JSON.stringify({ operator_id: viewer.operator_id, name: 'Ravi Jayasuriya', role: 'admin' }),
        }),
      );
      await signIn(w.page, viewer.token);
      await w.page.click('#sections a[href="#partners"]');
      await w.page.fill('#partner-name', 'Not Allowed Tours');
      await w.page.click('#partner-form button[type="submit"]');
      await textSoon(
        w.page.locator('#partner-form-status'),
        new RegExp(`Not allowed for your role: This needs the admin role; operator ${viewer.operator_id} is a viewer\\.`),
      );
      expect(await w.page.locator('#partner-form-status').getAttribute('role')).toBe('alert');
      expect((await ops().call('GET', '/partners')).body.data.map((p: { name: string }) => p.name)).not.toContain('Not Allowed Tours');
      await shots(w.page, 'ops-console-forbidden');

      // The AI agents' policy: the form is offered, the API refuses it, the page says so, nothing changes.
      await w.page.click(`#partners-table a[href="#partners/${partner.partner_id}"]`);
      await textSoon(w.page.locator('#partner-detail-title'), /Island Holidays/);
      await w.page.check('#agents-live');
      await w.page.fill('#agents-max-booking', '500');
      await w.page.click('#agents-form button[type="submit"]');
      await textSoon(
        w.page.locator('#partner-status'),
        new RegExp(`Not allowed for your role: This needs the admin role; operator ${viewer.operator_id} is a viewer\\.`),
      );
      expect(await w.page.locator('#partner-status').getAttribute('role')).toBe('alert');
      expect((await ops().call('GET', `/partners/${partner.partner_id}/agent-policy`)).body).toMatchObject({
        live_bookings: false,
        max_booking_amount: null,
        updated_by: null,
      });
    } finally {
      await w.close();
    }
  });

  it('lets an admin name a dispatcher from the Operators panel: the token is shown once, works, and is refused once revoked', async () => {
    const w = await watchedPage(browser);
    await w.page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url });
    const d = await watchedPage(browser);
    try {
      await signIn(w.page, OPERATOR_TOKEN);
      await textSoon(w.page.locator('#whoami'), /Bootstrap admin \(OPERATOR_TOKEN\)\s+admin/);
      expect(await links(w.page)).toEqual(['Dispatch', 'Drivers', 'Partners', 'Deliveries', 'Audit log', 'Operators']);
      await w.page.click('#sections a[href="#operators"]');
      await textSoon(
        w.page.locator(`#operators-table tr[data-operator="${viewer.operator_id}"]`),
        /Ravi Jayasuriya[\s\S]*viewer[\s\S]*Bootstrap admin[\s\S]*active/,
      );

      await w.page.fill('#operator-name', 'Nimali Perera');
      await w.page.selectOption('#operator-role', 'dispatcher');
      await w.page.click('#operator-form button[type="submit"]');
      await visibleSoon(w.page.locator('#new-operator-token'));
      await textSoon(w.page.locator('#operator-form-status'), /Created Nimali Perera \(opr_[a-z0-9]+\), a dispatcher\./);
      await textSoon(w.page.locator('#new-operator .warning'), /Copy this token now\. It is shown this once and cannot be retrieved again/);
      const token = await w.page.locator('#new-operator-token').inputValue();
      expect(token).toMatch(/^op_[A-Za-z0-9]{40}$/);
      await w.page.click('#copy-token');
      await textSoon(w.page.locator('#copy-token-status'), /Copied to the clipboard/);
      expect(await w.page.evaluate('navigator.clipboard.readText()')).toBe(token);
      const me = await client(app.url)('GET', '/ops/v1/me', asToken(token));
      expect(me.body).toEqual({ operator_id: expect.stringMatching(/^opr_/), name: 'Nimali Perera', role: 'dispatcher' });
      const row = w.page.locator(`#operators-table tr[data-operator="${me.body.operator_id}"]`);
      await textSoon(row, /Nimali Perera[\s\S]*dispatcher[\s\S]*Bootstrap admin[\s\S]*active/);
      await shots(w.page, 'ops-console-operators-new-token');

      // Once hidden, or once the view is left, the token is not on the page any more.
      await w.page.click('#token-done');
      expect(await w.page.locator('#new-operator-token').count()).toBe(0);
      expect(await w.page.content()).not.toContain(token);

      // The dispatcher signs in with it: the audit log, the forms of the board, Retry; no partner forms, no operators.
      await signIn(d.page, token);
      await textSoon(d.page.locator('#whoami'), /Nimali Perera\s+dispatcher/);
      expect(await links(d.page)).toEqual(['Dispatch', 'Drivers', 'Partners', 'Deliveries', 'Audit log']);
      await d.page.click(`#unassigned [data-job="${job.job_id}"]`);
      await visibleSoon(d.page.locator('#assign-form'));
      await visibleSoon(d.page.locator('#complete-job'));
      await textSoon(d.page.locator('#job-panel'), /Passenger\s*Ayesha Perera/i);
      await shots(d.page, 'ops-console-dispatcher-board');
      await d.page.click('#sections a[href="#deliveries"]');
      await visibleSoon(d.page.locator(`#deliveries-table [data-retry="${failedMessageId}"]`));
      await d.page.goto(`${app.url}/ops/#partners/${partner.partner_id}`);
      await textSoon(d.page.locator('#partner-detail-title'), /Island Holidays/);
      expect(await shown(d.page, '#partner-form')).toBe(false);
      for (const s of ['#pause-toggle', '#key-form', '#vocab-form', '#rate-form'])
        expect({ s, count: await d.page.locator(s).count() }).toEqual({ s, count: 0 });

      // Revoked after a confirmation: its next request is refused, and its open console asks to sign in again.
      await row.locator('[data-revoke-operator]').click();
      await textSoon(row, /Revoke Nimali Perera\? Their token is refused from their next request/);
      await shots(w.page, 'ops-console-operators-revoke');
      await w.page.click('#confirm-revoke-operator');
      await textSoon(w.page.locator('#operators-status'), new RegExp(`Nimali Perera \\(${me.body.operator_id}\\) is revoked\\.`));
      await textSoon(row, /revoked \d+ Nov/);
      expect(await row.locator('[data-revoke-operator]').count()).toBe(0);
      expect((await client(app.url)('GET', '/ops/v1/me', asToken(token))).status).toBe(401);
      await d.page.click('#sections a[href="#board"]');
      await visibleSoon(d.page.locator('#signin-title'));
      await textSoon(d.page.locator('#signin-status'), /no longer accepts this token/);
      await shots(w.page, 'ops-console-operators');
      expect(w.outside(app.url)).toEqual([]);
      expect(w.errors).toEqual([]);
    } finally {
      await w.close();
      await d.close();
    }
  });

  it("refuses the metrics role's token at sign-in, saying it is Prometheus's, and the token still reads /metrics", async () => {
    const [w, scraper] = await Promise.all([watchedPage(browser), named('Prometheus', 'metrics')]);
    await w.page.goto(`${app.url}/ops/`);
    await w.page.fill('#token-input', scraper.token);
    await w.page.click('#signin-form button[type="submit"]');
    await textSoon(w.page.locator('#signin-status'), /This token has the metrics role: it reads GET \/metrics \(for Prometheus\) and cannot sign in/);
    expect([await w.page.locator('#sections').isVisible(), w.outside(app.url)]).toEqual([false, []]);
    expect((await client(app.url)('GET', '/metrics', asToken(scraper.token))).status).toBe(200);
    await w.close();
  });

  it("lets an admin set and remove a partner's rate limit per environment, from the partner's view", async () => {
    const w = await watchedPage(browser);
    try {
      const p = await ops().partner('Rate Limited Tours');
      await signIn(w.page, OPERATOR_TOKEN);
      await w.page.goto(`${app.url}/ops/#partners/${p.partner_id}`);
      await textSoon(w.page.locator('#partner-detail-title'), /Rate Limited Tours/);
      await textSoon(w.page.locator('#rate-table'), /Sandbox\s+No limit[\s\S]*Production\s+No limit/);
      expect(await w.page.locator('#rate-none').isVisible()).toBe(false);

      await w.page.selectOption('#rate-env', 'production');
      await w.page.fill('#rate-rps', '20');
      await w.page.fill('#rate-burst', '40');
      await w.page.click('#rate-form button[type="submit"]');
      await textSoon(w.page.locator('#partner-status'), /Production: 20 requests a second, bursts of up to 40, from the partner's next request\./);
      await textSoon(w.page.locator('#rate-table tr[data-env="production"]'), /20 requests a second, bursts of up to 40/);
      expect((await ops().call('GET', `/partners/${p.partner_id}`)).body.rate_limits).toEqual({
        sandbox: null,
        production: { requests_per_second: 20, burst: 40 },
      });
      // The form shows the environment just set, with its values.
      expect(await w.page.locator('#rate-env').inputValue()).toBe('production');
      expect(await w.page.locator('#rate-rps').inputValue()).toBe('20');

      // Sandbox, half a request a second, burst left to the API (twice the rate, at least 1).
      await w.page.selectOption('#rate-env', 'sandbox');
      expect(await w.page.locator('#rate-rps').inputValue()).toBe('');
      await w.page.fill('#rate-rps', '0.5');
      await w.page.click('#rate-form button[type="submit"]');
      await textSoon(w.page.locator('#partner-status'), /Sandbox: 0\.5 requests a second, bursts of up to 1,/);
      expect((await ops().call('GET', `/partners/${p.partner_id}`)).body.rate_limits).toEqual({
        sandbox: { requests_per_second: 0.5, burst: 1 },
        production: { requests_per_second: 20, burst: 40 },
      });
      await shots(w.page, 'ops-console-partner-rate-limits');

      // Removed again: no limit in sandbox.
      await w.page.click('#rate-none');
      await textSoon(w.page.locator('#partner-status'), /Sandbox: no limit from the partner's next request\./);
      await textSoon(w.page.locator('#rate-table tr[data-env="sandbox"]'), /No limit/);
      expect((await ops().call('GET', `/partners/${p.partner_id}`)).body.rate_limits).toEqual({
        sandbox: null,
        production: { requests_per_second: 20, burst: 40 },
      });
      // Each change was the admin's request through the operator API, audited under the bootstrap operator.
      const puts = await ops().audit({ path: `/ops/v1/partners/${p.partner_id}/rate-limit`, operator_id: 'bootstrap' });
      expect(puts.map((e) => [e.method, e.status])).toEqual([
        ['PUT', 200],
        ['PUT', 200],
        ['PUT', 200],
      ]);
      expect(w.outside(app.url)).toEqual([]);
      expect(w.errors).toEqual([]);
    } finally {
      await w.close();
    }
  });

  it("lets an admin set what a partner's AI agents may do, and shows what they booked today", async () => {
    const w = await watchedPage(browser);
    const agent = new Client({ name: 'browser-test-agent', version: '1.0.0' });
    try {
      const p = await ops().partnerWithKeys('Agent Tours', 'EUR');
      // One sandbox booking by an agent through the MCP server, today in Sri Lanka.
      await agent.connect(new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${p.testKey}` } } }));
      const structured = (r: unknown) => (r as { structuredContent: any }).structuredContent;
      const quote = structured(
        await agent.callTool({
          name: 'quote_transfer',
          arguments: { pickup: { iata: 'CMB' }, dropoff: { name: HOTEL }, pickup_datetime: '2026-12-01T09:30:00+05:30', passengers: { adults: 2, luggage: 2 } },
        }),
      );
      const prep = structured(
        await agent.callTool({
          name: 'prepare_booking',
          arguments: {
            quote_id: quote.quote_id,
            offer_id: quote.offers[0].offer_id,
            passenger: PASSENGER,
            passengers: { adults: 2, luggage: 2 },
            flight_number: 'UL504',
          },
        }),
      );
      const booked = structured(
        await agent.callTool({ name: 'confirm_booking', arguments: { confirmation_token: prep.confirmation_token, idempotency_key: 'browser-agent-1' } }),
      );
      expect(booked).toMatchObject({ env: 'sandbox', status: 'confirmed' });
      const price = (booked.price as number).toFixed(2);

      await signIn(w.page, OPERATOR_TOKEN);
      await w.page.goto(`${app.url}/ops/#partners/${p.partner_id}`);
      await textSoon(w.page.locator('#partner-detail-title'), /Agent Tours/);
      await textSoon(w.page.locator('#agents-facts'), /Never: the defaults/);
      await textSoon(w.page.locator('#agents-today-title'), /Booked by agents today, 21 Nov 2026 \(Sri Lanka\)/);
      await textSoon(w.page.locator('#agents-today tr[data-env="sandbox"]'), new RegExp(`Sandbox\\s+1 booking\\s+${price} EUR`));
      await textSoon(w.page.locator('#agents-today tr[data-env="production"]'), /Production\s+0 bookings\s+0\.00 EUR/);
      expect(await w.page.locator('#agents-enabled').isChecked()).toBe(true);
      expect(await w.page.locator('#agents-live').isChecked()).toBe(false);
      expect(await w.page.locator('label[for="agents-max-daily"]').innerText()).toBe('Most per day (EUR)');

      // Production bookings on, at most 150 EUR a booking and 1000 EUR a day.
      await w.page.check('#agents-live');
      await w.page.fill('#agents-max-booking', '150');
      await w.page.fill('#agents-max-daily', '1000');
      await w.page.click('#agents-form button[type="submit"]');
      await textSoon(
        w.page.locator('#partner-status'),
        /AI agents are on, production bookings included, up to 150\.00 EUR a booking and up to 1000\.00 EUR a day, from their next tool call\./,
      );
      await textSoon(
        w.page.locator('#agents-facts'),
        /Production bookings\s+On\s+Most per booking\s+150\.00 EUR\s+Most per day\s+1000\.00 EUR per environment\s+Set\s+.+ by bootstrap/i,
      );
      await textSoon(w.page.locator('#agents-today tr[data-env="sandbox"]'), new RegExp(`${price} EUR of 1000\\.00 EUR`));
      expect((await ops().call('GET', `/partners/${p.partner_id}/agent-policy`)).body).toMatchObject({
        enabled: true,
        live_bookings: true,
        max_booking_amount: 150,
        max_daily_amount: 1000,
        currency: 'EUR',
        booked_today: { sandbox: { amount: booked.price, bookings: 1 }, production: { amount: 0, bookings: 0 } },
        updated_by: 'bootstrap',
      });
      // The form, read afresh, shows what was saved.
      expect(await w.page.locator('#agents-max-booking').inputValue()).toBe('150');
      expect(await w.page.locator('#agents-live').isChecked()).toBe(true);
      await w.page.locator('#agents').scrollIntoViewIfNeeded();
      await shots(w.page, 'ops-console-partner-agents');

      // Emptied, a limit is no limit; unticked, agents may no longer act, and an agent is told so.
      await w.page.fill('#agents-max-booking', '');
      await w.page.uncheck('#agents-enabled');
      await w.page.click('#agents-form button[type="submit"]');
      await textSoon(w.page.locator('#partner-status'), /AI agents are off: every tool that books, cancels or changes is refused; reading stays open/);
      await textSoon(w.page.locator('#agents-facts'), /Agents\s+off[\s\S]*Most per booking\s+No limit/i);
      expect((await ops().call('GET', `/partners/${p.partner_id}/agent-policy`)).body).toMatchObject({
        enabled: false,
        live_bookings: true,
        max_booking_amount: null,
        max_daily_amount: 1000,
      });
      const refused = structured(
        await agent.callTool({
          name: 'prepare_booking',
          arguments: {
            quote_id: quote.quote_id,
            offer_id: quote.offers[0].offer_id,
            passenger: PASSENGER,
            passengers: { adults: 2, luggage: 2 },
            flight_number: 'UL504',
          },
        }),
      );
      expect(refused.error).toMatchObject({ code: 'limit_exceeded', details: { limit: 'enabled' } });
      const puts = await ops().audit({ path: `/ops/v1/partners/${p.partner_id}/agent-policy`, operator_id: 'bootstrap' });
      expect(puts.filter((e) => e.method === 'PUT').map((e) => e.status)).toEqual([200, 200]);
      expect(w.outside(app.url)).toEqual([]);
      expect(w.errors).toEqual([]);
    } finally {
      await agent.close().catch(() => undefined);
      await w.close();
    }
  });
});
