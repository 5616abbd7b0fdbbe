import type { Browser, Page } from 'playwright-core';
import { DESKTOP, launchBrowser, screenshot, textSoon, visibleSoon, watchedPage, describeInBrowser } from '../support/browser';
import { backend } from '../support/test-app';
import { bookTransfer, startWebhookTestApp, type WebhookTestApp } from '../support/webhooks';
import { systemClock } from '../../src/shared/clock';

/**
 * The reference console's workbench (issue 22) in headless Chromium: the partner's own requests, its sandbox webhooks
 * and a booking's timeline, as tabs beside the reference. What a partner engineer does when something went wrong:
 * finds the refused request and reads what we answered, registers an endpoint, watches a delivery arrive and sends it
 * again, and reads the booking's story. Still sandbox-only and offline.
 */
/** A phone's width, as the issue names it (the console must be usable there). */
const PHONE = { width: 375, height: 812 };
/** A tablet held upright: wider than the phone layout, narrower than a desktop's. */
const TABLET = { width: 820, height: 1180 };
/** Three days ahead, at 09:30 in Colombo (the audit log stamps rows with real time, so this file's clock is real too). */
const pickup = () => `${new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10)}T09:30:00+05:30`;
/** An element as the page shows it (the tests' types have no DOM). */
type Shown = { innerText: string };
/** An instant as the workbench shows it: the browser's local time (Colombo here) with its UTC offset. */
const LOCAL_TIME = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\+05:30$/;

describeInBrowser(`Reference console workbench: your requests, webhooks, a booking's timeline (${backend})`, () => {
  let h: WebhookTestApp;
  let browser: Browser;
  let key: string;
  let liveKey: string;
  let ref: string;
  const consoleUrl = () => `${h.app.url}/transfers/v1/console`;

  beforeAll(async () => {
    h = await startWebhookTestApp({ clock: systemClock });
    const p = await h.ops.partnerWithKeys('Workbench Travel');
    key = p.testKey;
    liveKey = p.liveKey;
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  /** A page in Colombo's time zone that records every request it makes and every error it reports. */
  const watched = (viewport = DESKTOP) => watchedPage(browser, viewport, { timezoneId: 'Asia/Colombo' });

  /** The console with the sandbox key in use. */
  async function openWithKey(page: Page, hash = '') {
    await page.goto(consoleUrl() + hash);
    await page.fill('#key-input', key);
    await page.click('button:has-text("Use this key")');
    await textSoon(page.locator('#key-status'), /Using svc_sk_test_/);
  }

  /** Each row's cells' text. */
  const cells = (page: Page, tbody: string) =>
    page.locator(`${tbody} tr`).evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td'), (td) => (td as unknown as Shown).innerText.trim())));

  /** The page at a phone's width: a screenshot (of the whole page, or what the screen shows), and how far it scrolls sideways (it must not). */
  async function phoneShot(page: Page, name: string, fullPage = true) {
    await page.setViewportSize(PHONE);
    await screenshot(page, name, fullPage);
    const overflow = (await page.evaluate('document.documentElement.scrollWidth - window.innerWidth')) as number;
    await page.setViewportSize(DESKTOP);
    return overflow;
  }

  /** What the screen shows with `selector` scrolled to its top (a part of a long page, to look at). */
  async function shotAt(page: Page, selector: string, name: string) {
    await page.locator(selector).evaluate((el: any) => el.scrollIntoView({ block: 'start' }));
    await screenshot(page, name);
  }

  /**
   * How far a table reaches past the right edge of its card's content box (`table`, in px), how far the card scrolls
   * sideways (`card`: its scrollWidth past its width), and how far the page does (`page`): 0 each when it fits.
   */
  const spill = (page: Page, table: string) =>
    page.locator(table).evaluate((t: any) => {
      const g = globalThis as any;
      const card = t.closest('.card');
      const style = g.getComputedStyle(card);
      const cardRight = card.getBoundingClientRect().right - parseFloat(style.paddingRight) - parseFloat(style.borderRightWidth);
      const overflow = (n: any): number => Math.max(0, n.scrollWidth - n.clientWidth);
      let inner = overflow(card);
      for (let n = t.parentElement; n && n !== card; n = n.parentElement) inner = Math.max(inner, overflow(n));
      return {
        table: Math.max(0, Math.ceil(t.getBoundingClientRect().right - cardRight)),
        card: inner,
        page: Math.max(0, g.document.documentElement.scrollWidth - g.innerWidth),
      };
    });

  it('when a partner quotes, books and sends a bad request, then "Your requests" lists them newest first, filters, pages and opens the refused exchange', async () => {
    // Older traffic first (22 pings), then a quote, a booking and a refused quote.
    for (let i = 0; i < 22; i++) expect((await h.call('GET', '/transfers/v1/ping', { key })).status).toBe(200);
    const booking = await bookTransfer(h.call, key, pickup());
    ref = booking.booking_ref;
    const bad = await h.call('POST', '/transfers/v1/quotes', { key, body: { pickup: { iata: 'CMB' } } });
    expect(bad.status).toBe(400);

    const w = await watched();
    try {
      await openWithKey(w.page);
      await w.page.click('#tab-requests');
      expect(await w.page.locator('#tab-requests').getAttribute('aria-selected')).toBe('true');
      expect(await w.page.locator('#panel-reference').isHidden()).toBe(true);
      await textSoon(w.page.locator('#requests-note'), /^20 requests, newest first; Older reads the next 20\.$/);
      const rows = await cells(w.page, '#requests-body');
      expect(rows.slice(0, 4).map((r) => r.slice(1, 4))).toEqual([
        ['POST', '/transfers/v1/quotes', '400'],
        ['POST', '/transfers/v1/bookings', '201'],
        ['POST', '/transfers/v1/quotes', '200'],
        ['GET', '/transfers/v1/ping', '200'],
      ]);
      expect(rows[0][5]).toBe('invalid_request');
      expect(rows[1][6]).toMatch(/^wh-/);
      expect(rows[2][5]).toBe('—');
      for (const r of rows) {
        expect(r[0]).toMatch(LOCAL_TIME);
        expect(r[4]).toMatch(/^\d+ ms$/);
      }
      const ats = await w.page.locator('#requests-body time').evaluateAll((ts) => ts.map((t) => t.getAttribute('datetime') ?? ''));
      expect([...ats].sort().reverse()).toEqual(ats);
      // The status is coloured by its class.
      expect(await w.page.locator('#requests-body tr').nth(0).locator('.wb-status').getAttribute('class')).toContain('wb-s4');
      expect(await w.page.locator('#requests-body tr').nth(1).locator('.wb-status').getAttribute('class')).toContain('wb-s2');

      // Older: the rest of the pings, and no more pages.
      await w.page.click('#requests-older');
      await textSoon(w.page.locator('#requests-note'), /^25 requests, newest first; that is all/);
      expect(await w.page.locator('#requests-older').isHidden()).toBe(true);
      expect((await cells(w.page, '#requests-body')).slice(3).every((r) => r[2] === '/transfers/v1/ping')).toBe(true);

      // 4xx: only the refused quote; opened from the keyboard (its path is the row's button).
      await w.page.selectOption('#requests-status', '4xx');
      await textSoon(w.page.locator('#requests-note'), /^1 request matching, newest first\.$/);
      expect((await cells(w.page, '#requests-body')).map((r) => r.slice(1, 4))).toEqual([['POST', '/transfers/v1/quotes', '400']]);
      await w.page.locator('#requests-body tr button.wb-open').focus();
      await w.page.keyboard.press('Enter');
      const exchange = w.page.locator('#requests-exchange');
      await textSoon(exchange.locator('.wb-exchange-title'), /POST \/transfers\/v1\/quotes → 400/);
      expect(await w.page.evaluate('document.activeElement.className')).toBe('wb-exchange-title');
      await textSoon(exchange.locator('.wb-body').nth(1), /"code": "invalid_request"/);
      await textSoon(exchange.locator('.wb-body').nth(0), /"iata": "CMB"/);
      await textSoon(exchange.locator('.wb-headers').nth(0), /authorization: Bearer svc_sk_test_[a-z0-9]+_\[REDACTED\]/i);
      await textSoon(exchange.locator('.wb-meta').first(), new RegExp(bad.headers.get('x-request-id')!));
      expect(await exchange.innerText()).not.toContain(key);
      expect(await exchange.locator('a.wb-timeline-link').count()).toBe(0);

      // A code: the booking, whose exchange links to its timeline. Then a path prefix: both quotes.
      await w.page.fill('#requests-code', '201');
      await w.page.click('#requests-filter button[type="submit"]');
      await textSoon(w.page.locator('#requests-body tr').first().locator('td[data-label="Status"]'), /^201$/);
      await w.page.locator('#requests-body tr').first().click();
      await textSoon(exchange.locator('.wb-exchange-title'), /POST \/transfers\/v1\/bookings → 201/);
      await textSoon(exchange.locator('a.wb-timeline-link'), new RegExp(`Timeline of booking ${ref}`));
      await w.page.selectOption('#requests-status', '');
      await w.page.fill('#requests-path', '/quotes');
      await w.page.click('#requests-filter button[type="submit"]');
      await textSoon(w.page.locator('#requests-note'), /^2 requests matching/);
      expect((await cells(w.page, '#requests-body')).map((r) => r[3])).toEqual(['400', '200']);

      // Back to everything, the refused one open, for the screenshots.
      await w.page.fill('#requests-path', '');
      await w.page.click('#requests-refresh');
      await textSoon(w.page.locator('#requests-note'), /^20 requests, newest first/);
      await w.page.locator('#requests-body tr').first().click();
      await textSoon(exchange.locator('.wb-exchange-title'), /→ 400/);
      await w.page.evaluate('window.scrollTo(0, 0)');
      await screenshot(w.page, 'reference-workbench-requests-desktop', true);
      expect(await phoneShot(w.page, 'reference-workbench-requests-phone')).toBeLessThanOrEqual(0);

      expect(w.outside(h.app.url)).toEqual([]);
      expect(w.errors).toEqual([]);
    } finally {
      await w.close();
    }
  });

  it('when an endpoint is created in "Webhooks", then its secret shows once, the delivery appears, and Redeliver sends it to the receiver again', async () => {
    const rx = await h.receiver();
    const w = await watched();
    try {
      await openWithKey(w.page);
      // The tabs from the keyboard: arrows move between them and select.
      await w.page.locator('#tab-reference').focus();
      await w.page.keyboard.press('ArrowRight');
      await w.page.keyboard.press('ArrowRight');
      expect(await w.page.evaluate('document.activeElement.id')).toBe('tab-webhooks');
      expect(await w.page.locator('#tab-webhooks').getAttribute('aria-selected')).toBe('true');
      expect(await w.page.locator('#tab-webhooks').getAttribute('tabindex')).toBe('0');
      expect(await w.page.locator('#tab-requests').getAttribute('tabindex')).toBe('-1');
      expect(await w.page.evaluate('location.hash')).toBe('#webhooks');
      await textSoon(w.page.locator('#endpoints-note'), /No sandbox endpoint yet/);

      await w.page.fill('#endpoint-url', `${rx.url}/hooks`);
      await w.page.click('#endpoint-form button[type="submit"]');
      const secret = await textSoon(w.page.locator('#endpoint-secret-value'), /^whsec_[A-Za-z0-9+/]+=*$/);
      rx.setSecrets([secret]);
      await textSoon(w.page.locator('#endpoints-note'), /^1 sandbox endpoint\.$/);
      const endpoint = await w.page.locator('#endpoints-body tr').innerText();
      expect(endpoint).toContain(`${rx.url}/hooks`);
      expect(endpoint).toMatch(/all booking events[\s\S]*enabled/);
      const endpointId = /we_[0-9a-z]{10}/.exec(endpoint)![0];
      await screenshot(w.page, 'reference-workbench-endpoint-created');
      // Listed without its secret; dismissed, it is gone from the page.
      await w.page.click('#endpoint-secret button:has-text("I have stored it")');
      expect(await w.page.content()).not.toContain(secret);

      // An event after the endpoint exists (the booking cancelled: booking.cancelled #2), delivered.
      expect((await h.call('POST', `/transfers/v1/bookings/${ref}/cancel`, { key })).status).toBe(200);
      await h.deliver();
      const [first] = await rx.waitFor((d) => d.length === 1);
      expect(first.verified).toBe(true);
      await w.page.click('#webhooks-refresh');
      await textSoon(w.page.locator('#deliveries-note'), /^1 delivery, newest first\.$/);
      const [row] = await cells(w.page, '#deliveries-body');
      expect(row[1]).toMatch(/^booking\.cancelled #2\s+evt_[0-9a-f]{24}$/);
      expect(row.slice(2, 7)).toEqual([ref, endpointId, expect.stringMatching(/^delivered\s+\d{4}-/), '1', '200']);
      expect(row[7]).toBe('—');
      expect(row[0]).toMatch(LOCAL_TIME);

      // Redeliver: a new delivery of the same event to the same endpoint, queued, then delivered.
      await w.page.click('#deliveries-body tr >> button:has-text("Redeliver")');
      await textSoon(
        w.page.locator('#redeliver-result'),
        new RegExp(`^Redelivery queued: delivery \\d+ to ${endpointId} \\(evt_[0-9a-f]{24}, the same webhook-id\\)\\.$`),
      );
      await textSoon(w.page.locator('#deliveries-note'), /^2 deliveries, newest first\.$/);
      expect((await cells(w.page, '#deliveries-body'))[0][4]).toMatch(/^pending/);
      await h.deliver();
      const both = await rx.waitFor((d) => d.length === 2);
      expect(both[1].verified).toBe(true);
      expect(both[1].webhookId).toBe(both[0].webhookId);
      await w.page.click('#webhooks-refresh');
      await textSoon(w.page.locator('#deliveries-body tr').first().locator('td[data-label="Status"]'), /^delivered/);
      expect((await cells(w.page, '#deliveries-body')).map((r) => [r[4].split(/\s/)[0], r[5], r[6]])).toEqual([
        ['delivered', '1', '200'],
        ['delivered', '1', '200'],
      ]);

      // Filters: nothing pending; this booking and this endpoint: both.
      await w.page.selectOption('#deliveries-status', 'pending');
      await textSoon(w.page.locator('#deliveries-note'), /^No delivery matches these filters\.$/);
      await w.page.selectOption('#deliveries-status', '');
      await w.page.selectOption('#deliveries-endpoint', endpointId);
      await w.page.fill('#deliveries-booking', ref.toLowerCase());
      await w.page.click('#deliveries-filter button[type="submit"]');
      await textSoon(w.page.locator('#deliveries-note'), /^2 deliveries/);

      // The widest rows a partner sees: a second endpoint that refuses every delivery (a receiver that does not know
      // its secret answers 400), and a booking moved through the ride, so long event names, a last error and a
      // next attempt share a row.
      const refusing = await h.receiver();
      expect((await h.call('POST', '/transfers/v1/webhook_endpoints', { key, body: { url: `${refusing.url}/refuses/every/delivery` } })).status).toBe(201);
      const ride = await bookTransfer(h.call, key, pickup());
      for (const to of ['driver_assigned', 'driver_en_route', 'driver_arrived', 'passenger_on_board'])
        expect((await h.call('POST', `/transfers/v1/test_helpers/bookings/${ride.booking_ref}/advance`, { key, body: { to } })).status).toBe(200);
      for (let pass = 0; pass < 10 && rx.deliveries.length < 7; pass++) await h.deliver();
      await rx.waitFor((d) => d.length === 7);
      expect(refusing.deliveries.length).toBeGreaterThan(0);
      await w.page.selectOption('#deliveries-endpoint', '');
      await w.page.fill('#deliveries-booking', '');
      await w.page.click('#deliveries-filter button[type="submit"]');
      await textSoon(w.page.locator('#deliveries-note'), /^12 deliveries, newest first\.$/);
      const wide = await cells(w.page, '#deliveries-body');
      expect(wide.some((r) => /^booking\.passenger_on_board #5/.test(r[1]))).toBe(true);
      expect(wide.some((r) => /^400\s*the endpoint answered 400$/.test(r[6]) && LOCAL_TIME.test(r[7]))).toBe(true);
      // At 1280×800 the deliveries table stays inside its card: no column spills past the card's edge, nothing to
      // scroll sideways within it, and the page does not scroll sideways.
      expect(await spill(w.page, '.wb-deliveries')).toEqual({ table: 0, card: 0, page: 0 });
      await shotAt(w.page, 'section:has(#deliveries-title)', 'reference-workbench-deliveries-desktop');
      // Narrower (a tablet's 820 px), the table may scroll inside its card, but the page does not scroll sideways; on
      // a phone each delivery is a block of labelled lines, inside the card.
      await w.page.setViewportSize(TABLET);
      expect((await spill(w.page, '.wb-deliveries')).page).toBe(0);
      await shotAt(w.page, 'section:has(#deliveries-title)', 'reference-workbench-deliveries-tablet');
      await w.page.setViewportSize(PHONE);
      expect(await spill(w.page, '.wb-deliveries')).toEqual({ table: 0, card: 0, page: 0 });
      await shotAt(w.page, '#deliveries-body', 'reference-workbench-deliveries-phone');
      await w.page.setViewportSize(DESKTOP);

      await w.page.evaluate('window.scrollTo(0, 0)');
      await screenshot(w.page, 'reference-workbench-webhooks-desktop', true);
      expect(await phoneShot(w.page, 'reference-workbench-webhooks-phone')).toBeLessThanOrEqual(0);
      expect(w.outside(h.app.url)).toEqual([]);
      expect(w.errors).toEqual([]);
    } finally {
      await w.close();
    }
  });

  it("when the booking's link is followed, then its timeline shows its requests, events and delivery attempts in time order, and a request opens its exchange", async () => {
    const w = await watched();
    try {
      await openWithKey(w.page, '#webhooks');
      await w.page.locator(`#deliveries-body a:has-text("${ref}")`).first().click();
      expect(await w.page.locator('#tab-timeline').getAttribute('aria-selected')).toBe('true');
      await textSoon(w.page.locator('#timeline-note'), new RegExp(`^Booking ${ref}, oldest first: 2 requests, 2 events, 2 delivery attempts\\.$`));
      expect(await w.page.inputValue('#timeline-ref')).toBe(ref);
      expect(await w.page.evaluate('location.hash')).toBe(`#timeline/${ref}`);
      const entries = await w.page
        .locator('#timeline-list > li')
        .evaluateAll((lis) =>
          lis.map((li) => [li.className.replace('wb-tl wb-tl-', ''), (li.querySelector('.wb-tl-main') as unknown as Shown).innerText.trim()]),
        );
      expect(entries).toEqual([
        ['request', 'POST /transfers/v1/bookings → 201'],
        ['event', expect.stringMatching(/^booking\.confirmed #1 evt_/)],
        ['request', `POST /transfers/v1/bookings/${ref}/cancel → 200`],
        ['event', expect.stringMatching(/^booking\.cancelled #2 evt_/)],
        ['delivery', expect.stringMatching(/^booking\.cancelled #2 to we_[0-9a-z]{10}: attempt 1 → 200$/)],
        ['delivery', expect.stringMatching(/^booking\.cancelled #2 to we_[0-9a-z]{10}: attempt 1 → 200$/)],
      ]);
      const times = await w.page
        .locator('#timeline-list time')
        .evaluateAll((ts) => ts.map((t) => [t.getAttribute('datetime') ?? '', (t as unknown as Shown).innerText]));
      expect(times.map(([iso]) => iso)).toEqual([...times.map(([iso]) => iso)].sort());
      for (const [, text] of times) expect(text).toMatch(LOCAL_TIME);

      // The booking request opens its exchange: what was sent, and the booking we answered with.
      await w.page.click('#timeline-list button:has-text("POST /transfers/v1/bookings")');
      const exchange = w.page.locator('#timeline-exchange');
      await textSoon(exchange.locator('.wb-exchange-title'), /POST \/transfers\/v1\/bookings → 201/);
      await textSoon(exchange.locator('.wb-body').nth(1), new RegExp(`"booking_ref": "${ref}"`));
      await textSoon(exchange.locator('.wb-headers').nth(0), /idempotency-key: wh-/);
      await w.page.evaluate('window.scrollTo(0, 0)');
      await screenshot(w.page, 'reference-workbench-timeline-desktop', true);
      expect(await phoneShot(w.page, 'reference-workbench-timeline-phone')).toBeLessThanOrEqual(0);
      expect(w.outside(h.app.url)).toEqual([]);
      expect(w.errors).toEqual([]);
    } finally {
      await w.close();
    }

    // Arriving from a link, before a key is in use: the panel says so, and reads once the key is taken.
    const v = await watched(PHONE);
    try {
      await v.page.goto(`${consoleUrl()}#timeline/${ref}`);
      expect(await v.page.locator('#tab-timeline').getAttribute('aria-selected')).toBe('true');
      await textSoon(v.page.locator('#timeline-note'), /No sandbox key in use/);
      await v.page.fill('#key-input', key);
      await v.page.click('button:has-text("Use this key")');
      await textSoon(v.page.locator('#timeline-note'), new RegExp(`^Booking ${ref}, oldest first`));
      expect(await v.page.locator('#timeline-list > li').count()).toBe(6);
      expect(v.errors).toEqual([]);
    } finally {
      await v.close();
    }
  });

  it('refuses a live key in the workbench before sending anything, and the reference stays the first tab', async () => {
    const w = await watched();
    try {
      await w.page.goto(consoleUrl());
      await w.page.locator('.opblock').first().waitFor();
      await w.page.waitForLoadState('networkidle');
      const tabs = await w.page.locator('[role="tablist"] [role="tab"]').evaluateAll((ts) => ts.map((t) => (t as unknown as Shown).innerText));
      expect(tabs).toEqual(['Reference', 'Your requests', 'Webhooks', 'Timeline']);
      expect(await w.page.locator('#tab-reference').getAttribute('aria-selected')).toBe('true');
      await screenshot(w.page, 'reference-workbench-reference-desktop');
      expect(await phoneShot(w.page, 'reference-workbench-reference-phone', false)).toBeLessThanOrEqual(0);

      const before = w.requests.length;
      await w.page.fill('#key-input', liveKey);
      await w.page.click('#tab-requests');
      await textSoon(w.page.locator('#requests-note'), /No sandbox key in use/);
      await textSoon(w.page.locator('#key-status'), /Refused by the console: this is a live key/);
      await w.page.click('#tab-webhooks');
      await w.page.fill('#endpoint-url', 'https://hooks.example.com/x');
      await w.page.click('#endpoint-form button[type="submit"]');
      await textSoon(w.page.locator('#endpoints-note'), /No sandbox key in use/);
      await w.page.click('#tab-timeline');
      await w.page.fill('#timeline-ref', ref);
      await w.page.click('#timeline-form button[type="submit"]');
      await textSoon(w.page.locator('#timeline-note'), /No sandbox key in use/);
      // Nothing reached the API (only the page's own files were loaded again).
      expect(w.requests.slice(before).filter((u) => !u.includes('/console'))).toEqual([]);
      await visibleSoon(w.page.locator('#panel-timeline'));
      expect(w.outside(h.app.url)).toEqual([]);
    } finally {
      await w.close();
    }
  });
});
