import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/test-app';
import { operator } from '../support/fixtures';
import { client } from '../support/http';
import path from 'node:path';
import { ARTIFACTS_DIR, launchBrowser, PHONE, screenshot, textSoon, visibleSoon, watchedPage, describeInBrowser } from '../support/browser';
import { TOOLS } from '../../src/http/mcp/tools';

/**
 * The reference console in headless Chromium: it loads with nothing from outside the service, a test key pings from
 * the page, a live key is refused by the page (nothing sent) and by the server (the uniform 401), the flow books
 * and cancels in sandbox only, and the AI agents section lists the MCP server's tools.
 */
describeInBrowser('Reference console (/transfers/v1/console) in a browser', () => {
  let app: TestApp;
  let browser: Browser;
  let partner: Awaited<ReturnType<ReturnType<typeof operator>['partnerWithKeys']>>;
  const consoleUrl = () => `${app.url}/transfers/v1/console`;

  beforeAll(async () => {
    app = await startTestApp();
    partner = await operator(app.url).partnerWithKeys('Console Travel');
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('loads offline: every page, script and style comes from the service, and the whole contract renders', async () => {
    const w = await watchedPage(browser);
    try {
      await w.page.goto(consoleUrl());
      await w.page.locator('.opblock').first().waitFor();
      await w.page.waitForLoadState('networkidle');
      const operations = await w.page.locator('.opblock').count();
      await screenshot(w.page, 'reference-console-desktop');
      expect(w.outside(app.url)).toEqual([]);
      expect(w.errors).toEqual([]);
      // Every operation of the contract is on the page, test helpers included.
      const spec = (await client(app.url)('GET', '/transfers/v1/openapi.json')).body;
      const count = Object.values(spec.paths as Record<string, object>).reduce((n, p) => n + Object.keys(p).length, 0);
      expect(operations).toBe(count);
      await visibleSoon(w.page.locator('#operations-Test_helpers-getIntegrationReport'));
      expect(w.requests.length).toBeGreaterThan(3);
    } finally {
      await w.close();
    }
  });

  it('reads well at a phone width too', async () => {
    const w = await watchedPage(browser, PHONE);
    try {
      await w.page.goto(consoleUrl());
      await w.page.locator('.opblock').first().waitFor();
      await screenshot(w.page, 'reference-console-phone');
      // Nothing wider than the screen: the key box and the flow wrap.
      const overflow = await w.page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
      expect(overflow).toBeLessThanOrEqual(0);
      expect(w.outside(app.url)).toEqual([]);
    } finally {
      await w.close();
    }
  });

  it('pings with a test key from the page, through the try-it request of GET /ping and the Ping button', async () => {
    const w = await watchedPage(browser);
    try {
      await w.page.goto(consoleUrl());
      await w.page.locator('.opblock').first().waitFor();
      await w.page.fill('#key-input', partner.testKey);
      await w.page.click('button:has-text("Use this key")');
      await textSoon(w.page.locator('#key-status'), /Using svc_sk_test_/);

      const ping = w.page.locator('#operations-Account-getPing');
      await ping.locator('.opblock-summary').click();
      await ping.locator('button.execute').click();
      const status = ping.locator('.live-responses-table tbody .response-col_status').first();
      await textSoon(status, /200/);
      await textSoon(ping.locator('.live-responses-table .microlight').first(), /"env": "sandbox"/);
      await screenshot(w.page, 'reference-console-ping');

      await w.page.click('#ping-button');
      await textSoon(w.page.locator('#key-status'), /Ping OK: Console Travel on sandbox/);

      // The server saw both pings, marked as the console's, answered in sandbox.
      const rows = await operator(app.url).audit({ path: '/transfers/v1/ping', partner_id: partner.partner_id });
      expect(rows.length).toBe(2);
      for (const r of rows) expect(r).toMatchObject({ status: 200, env: 'sandbox', request_headers: { 'x-reference-console': '1' } });
      expect(w.outside(app.url)).toEqual([]);
    } finally {
      await w.close();
    }
  });

  it('refuses a live key in the page before sending anything, and the server refuses it with the uniform 401', async () => {
    const w = await watchedPage(browser);
    try {
      await w.page.goto(consoleUrl());
      await w.page.locator('.opblock').first().waitFor();
      await w.page.waitForLoadState('networkidle');
      const before = w.requests.length;

      // The key box refuses it.
      await w.page.fill('#key-input', partner.liveKey);
      await w.page.click('button:has-text("Use this key")');
      await textSoon(w.page.locator('#key-status'), /Refused by the console: this is a live key/);
      await w.page.click('#ping-button');
      await textSoon(w.page.locator('#key-status'), /Refused by the console/);

      // Swagger UI's own Authorize dialog refuses it too, so no try-it request can carry it.
      await w.page.click('.auth-wrapper .authorize');
      const bearer = w.page.locator('.auth-container').filter({ hasText: 'bearerKey' });
      await bearer.locator('input').fill(partner.liveKey);
      await bearer.locator('button.authorize').click();
      await textSoon(w.page.locator('.dialog-ux .console-refusal'), /Refused by the console: this is a live key/);
      await screenshot(w.page, 'reference-console-live-key-refused');
      await w.page.click('.dialog-ux .close-modal');
      const ping = w.page.locator('#operations-Account-getPing');
      await ping.locator('.opblock-summary').click();
      await ping.locator('button.execute').click();
      await textSoon(ping.locator('.live-responses-table tbody .response-col_status'), /401/);
      // That try-it request went out without any key (the server answered 401): the live key was never sent.
      const sent = w.requests.slice(before).filter((u) => !u.includes('/console/'));
      expect(sent).toEqual([`${app.url}/transfers/v1/ping`]);
      // (The browser logs the 401 it got; nothing else went wrong on the page.)
      expect(w.errors.filter((e) => !e.includes('status of 401'))).toEqual([]);

      // The server: a request marked as the console's with a live key gets the 401 every bad key gets, byte for byte.
      const answers = await w.page.evaluate(async (live) => {
        const marked = await fetch('/transfers/v1/ping', { headers: { Authorization: `Bearer ${live}`, 'X-Reference-Console': '1' } });
        const nokey = await fetch('/transfers/v1/ping');
        return { marked: [marked.status, await marked.text(), marked.headers.get('X-Service-Env')], nokey: [nokey.status, await nokey.text()] };
      }, partner.liveKey);
      expect(answers.marked[0]).toBe(401);
      expect(answers.marked[1]).toBe(answers.nokey[1]);
      expect(answers.marked[2]).toBe('none');
      const rows = await operator(app.url).audit({ path: '/transfers/v1/ping' });
      const refused = rows.filter((r) => r.request_headers['x-reference-console'] === '1' && r.status === 401 && r.env === null && r.partner_id === null);
      // The try-it request (no key at all) and the marked live-key request; only the latter carried a (live) key.
      expect(refused.map((r) => r.request_headers.authorization ?? null).sort()).toEqual([
        `Bearer ${partner.liveKey.slice(0, partner.liveKey.lastIndexOf('_') + 1)}[REDACTED]`,
        null,
      ]);
      // Unmarked, the same live key works: the refusal is the console's, not the key's.
      expect((await client(app.url)('GET', '/transfers/v1/ping', { headers: { Authorization: `Bearer ${partner.liveKey}` } })).body.env).toBe('production');
    } finally {
      await w.close();
    }
  });

  it('walks the flow quote → book → read → cancel in sandbox, showing each step as curl', async () => {
    const w = await watchedPage(browser);
    try {
      await w.page.goto(consoleUrl());
      await w.page.fill('#key-input', partner.testKey);
      await w.page.click('button:has-text("Use this key")');
      for (const [step, expected] of [
        ['quote', /offers, the cheapest/],
        ['book', /Booked [A-Z0-9]{8} \(confirmed\)/],
        ['read', /is confirmed; driver: not assigned yet/],
        ['cancel', /is cancelled, at a fee of 0\.00 USD/],
      ] as const) {
        await w.page.click(`[data-step="${step}"]`);
        await textSoon(w.page.locator('#flow-meta'), expected);
        if (step === 'quote') {
          // Every offer with what cancelling it would cost: free until 12 hours before pickup (the default terms).
          const rows = w.page.locator('#flow-offers-body tr');
          expect(await rows.count()).toBeGreaterThan(3);
          await textSoon(
            rows.first(),
            /Small Car or similar\s+\d+\.\d\d USD\s+\w{3} \d+ \w{3} 21:30\s+50 % \(\d+\.\d\d USD\) from \w{3} \d+ \w{3} 21:30; 100 % \(\d+\.\d\d USD\) from \w{3} \d+ \w{3} 07:30/,
          );
          // The flow's card at desktop width, then at a phone's (the table scrolls inside its card, not the page).
          await w.page.locator('section.flow').screenshot({ path: path.join(ARTIFACTS_DIR, 'reference-console-offers-desktop.png') });
          await w.page.setViewportSize(PHONE);
          await w.page.locator('section.flow').screenshot({ path: path.join(ARTIFACTS_DIR, 'reference-console-offers-phone.png') });
          expect(await w.page.evaluate('document.documentElement.scrollWidth - window.innerWidth')).toBeLessThanOrEqual(0);
          await w.page.setViewportSize({ width: 1280, height: 800 });
        }
      }
      expect(await w.page.locator('#flow-offers').isHidden()).toBe(true);
      await textSoon(w.page.locator('#flow-curl'), /curl -s -X POST '.*\/transfers\/v1\/bookings\/[A-Z0-9]{8}\/cancel'/);
      // Pasted into a shell with the key in KEY (the partner guide's name for it), the curl works (the key's header in double quotes).
      const shown = await w.page.locator('#flow-curl').innerText();
      expect(shown).toContain('-H "Authorization: Bearer $KEY"');
      // (Asynchronously: the service answering it runs in this process.)
      const pasted = await promisify(execFile)('sh', ['-c', shown], { env: { ...process.env, KEY: partner.testKey }, timeout: 20_000 });
      expect(JSON.parse(pasted.stdout)).toMatchObject({ env: 'sandbox', status: 'cancelled' });
      await screenshot(w.page, 'reference-console-flow', true);
      const ref = /Booking ([A-Z0-9]{8})/.exec(await w.page.locator('#flow-meta').innerText())![1];
      const booking = await client(app.url)('GET', `/transfers/v1/bookings/${ref}`, { headers: { Authorization: `Bearer ${partner.testKey}` } });
      expect(booking.body).toMatchObject({ env: 'sandbox', status: 'cancelled', booking_ref: ref });
      // Nothing of it reached production.
      expect((await client(app.url)('GET', `/transfers/v1/bookings/${ref}`, { headers: { Authorization: `Bearer ${partner.liveKey}` } })).status).toBe(404);
      expect(await operator(app.url).jobs({ booking_ref: ref })).toEqual([]);
    } finally {
      await w.close();
    }
  });

  it('serves the partner guide as a page, linked from the console, with nothing from outside', async () => {
    const w = await watchedPage(browser);
    try {
      await w.page.goto(consoleUrl());
      await w.page.click('a:has-text("Partner guide")');
      await w.page.locator('h1:has-text("partner guide")').waitFor();
      for (const heading of [
        'Quick start',
        'Environments and keys',
        'The flow',
        'Declines',
        'Errors, and which to retry',
        'Idempotency',
        'Webhooks',
        'Sandbox test helpers',
        'Simulated faults',
        'Certification',
        'The integration report',
      ]) {
        await visibleSoon(w.page.locator(`.doc h2:has-text("${heading}")`));
      }
      await screenshot(w.page, 'partner-guide');
      const overflow = () => w.page.evaluate('document.documentElement.scrollWidth - window.innerWidth') as Promise<number>;
      expect(await overflow()).toBeLessThanOrEqual(0);
      // The webhooks chapter, linked from the guide: events, and signatures verified in three languages.
      await w.page.click('.doc a:has-text("webhooks guide")');
      await visibleSoon(w.page.locator('.doc h2:has-text("Verifying signatures")'));
      await textSoon(w.page.locator('.doc'), /Python[\s\S]*PHP/);
      await screenshot(w.page, 'partner-guide-webhooks');
      // Long code samples scroll in their box; the page itself never scrolls sideways.
      expect(await overflow()).toBeLessThanOrEqual(0);
      expect(w.outside(app.url)).toEqual([]);
      expect(w.errors).toEqual([]);
    } finally {
      await w.close();
    }
  });

  it("shows how AI agents connect (MCP): the endpoint, a client's configuration, the confirmation step and all the server's tools", async () => {
    const w = await watchedPage(browser);
    await w.page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url });
    try {
      // The address the MCP server's protected-resource document gives as its documentation opens the section.
      await w.page.goto(`${consoleUrl()}#ai-agents`);
      const section = w.page.locator('#ai-agents');
      await textSoon(section.locator('h2'), /^AI agents \(MCP\)$/);
      await w.page.locator('.opblock').first().waitFor();
      expect(await section.evaluate((el) => el.getBoundingClientRect().top)).toBeLessThan(100);
      // Swagger UI, which keeps its own deep links in the hash, leaves this one alone.
      expect(new URL(w.page.url()).hash).toBe('#ai-agents');
      const mcpUrl = `${app.deps.config.publicBaseUrl}/mcp`;
      expect(await w.page.locator('#mcp-url').innerText()).toBe(mcpUrl);
      const config = JSON.parse(await w.page.locator('#mcp-config').innerText());
      expect(config).toEqual({ mcpServers: { 'lanka-transfers': { type: 'http', url: mcpUrl, headers: { Authorization: 'Bearer svc_sk_test_…' } } } });
      await textSoon(w.page.locator('#mcp-confirmation'), /prepare_booking \(or preview_cancellation\)[\s\S]*confirm_booking \(or cancel_booking\)/);

      // Every tool the server lists, in its order, with its title, the first sentence of its description, and whether it acts.
      const rows = w.page.locator('#mcp-tools-body tr');
      expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-tool')))).toEqual(TOOLS.map((t) => t.name));
      expect(TOOLS).toHaveLength(9);
      for (const t of TOOLS) {
        const row = w.page.locator(`#mcp-tools-body tr[data-tool="${t.name}"]`);
        const text = await row.innerText();
        expect({ tool: t.name, has: [text.includes(t.name), text.includes(t.annotations.title), /\b(acts|reads)\b/.exec(text)?.[1]] }).toEqual({
          tool: t.name,
          has: [true, true, t.acts ? 'acts' : 'reads'],
        });
      }
      await textSoon(w.page.locator('#mcp-tools-body tr[data-tool="quote_transfer"]'), /Quote a private transfer in Sri Lanka\.\s+reads$/);
      await textSoon(w.page.locator('#mcp-tools-body tr[data-tool="confirm_booking"]'), /Book what prepare_booking prepared, once the human agreed/);

      // Copied with the sandbox key in use (never shown on the page), it connects.
      await w.page.fill('#key-input', partner.testKey);
      await w.page.click('button:has-text("Use this key")');
      await textSoon(w.page.locator('#key-status'), /Using svc_sk_test_/);
      await textSoon(w.page.locator('#mcp-copy'), /Copy, with your key/);
      await w.page.click('#mcp-copy');
      await textSoon(w.page.locator('#mcp-copy-status'), /Copied, with your sandbox key in it/);
      const copied = JSON.parse((await w.page.evaluate('navigator.clipboard.readText()')) as string);
      const server = copied.mcpServers['lanka-transfers'];
      expect(server.headers.Authorization).toBe(`Bearer ${partner.testKey}`);
      expect(await w.page.locator('#ai-agents').innerText()).not.toContain(partner.testKey);
      const listed = await fetch(`${app.url}/mcp`, {
        method: 'POST',
        headers: { ...server.headers, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(listed.status).toBe(200);
      expect(((await listed.json()) as { result: { tools: Array<{ name: string }> } }).result.tools.map((t) => t.name)).toEqual(TOOLS.map((t) => t.name));

      // From another tab, the bar's link comes back to the section.
      await w.page.click('#tab-requests');
      await w.page.click('header.bar a:has-text("AI agents")');
      await visibleSoon(section);
      expect(await w.page.locator('#panel-reference').isVisible()).toBe(true);
      await w.page.locator('.opblock').first().waitFor();
      expect(new URL(w.page.url()).hash).toBe('#ai-agents');
      await section.screenshot({ path: path.join(ARTIFACTS_DIR, 'reference-console-ai-agents-desktop.png') });
      await w.page.setViewportSize(PHONE);
      await section.screenshot({ path: path.join(ARTIFACTS_DIR, 'reference-console-ai-agents-phone.png') });
      expect(await w.page.evaluate('document.documentElement.scrollWidth - window.innerWidth')).toBeLessThanOrEqual(0);

      // Swagger UI's own deep links still open their operation (on a page loaded afresh).
      await w.page.setViewportSize({ width: 1280, height: 800 });
      await w.page.goto('about:blank');
      await w.page.goto(`${consoleUrl()}#/Account/getPing`);
      await visibleSoon(w.page.locator('#operations-Account-getPing .opblock-body'));
      expect(w.outside(app.url)).toEqual([]);
      expect(w.errors).toEqual([]);
    } finally {
      await w.close();
    }
  });
});
