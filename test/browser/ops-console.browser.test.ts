import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, OPERATOR_TOKEN, type TestApp } from '../support/test-app';
import { operator } from '../support/fixtures';
import { client } from '../support/http';
import { MARKETPLACE_ENV } from '../support/marketplace';
import {
  clockRounds,
  evaluateSoon,
  launchBrowser,
  shows,
  shotsAtBothSizes,
  signInToConsole,
  textSoon,
  visibleSoon,
  watchedPage,
  describeInBrowser,
} from '../support/browser';
import { ManualClock } from '../../src/shared/clock';
import { startMarketplaceSim, type RunningMarketplaceSim } from '../../simulators/marketplace/app';
import { sampleMarketplaceOrder } from '../../harness/fixtures/marketplace-orders';
import { startWebhookReceiver, type WebhookReceiver } from '../../simulators/partner/webhook-receiver';
import { eventually } from '../support/eventually';

/** The service's "now" while the console runs: 13:30 in Sri Lanka on Saturday 21 November 2026. */
const NOW = '2026-11-21T08:00:00Z';
const TODAY = '2026-11-21';
const TOMORROW = '2026-11-22';
const HOTEL = 'Cinnamon Grand, 77 Galle Road, Colombo 03';
/** The console refreshes its view once a round, by the page's clock (POLL_MS in web/ops/router.js). */
const POLL_MS = 10_000;
/** Long enough for the outbox worker's next round and the page's next poll. */
const POLLED = 25_000;

/**
 * The operator console in headless Chromium, against the service with a fleet, a day of jobs and the marketplace
 * simulator behind the outbox: sign-in, partners and keys, the dispatch board, failed deliveries and the audit log,
 * each shown in a screenshot at 1280×800 and at a phone width, with nothing fetched from outside the service.
 */
describeInBrowser('Operator console (/ops/) in a browser', () => {
  let app: TestApp;
  let mp: RunningMarketplaceSim;
  let browser: Browser;
  const clock = new ManualClock('2026-11-19T12:00:00Z');
  const ops = () => operator(app.url);
  const jobs: Record<string, any> = {};
  const fleet: Record<string, { vehicle_id: string }> = {};
  const people: Record<string, { driver_id: string; name: string }> = {};
  let partner: Awaited<ReturnType<ReturnType<typeof operator>['partnerWithKeys']>>;
  let failedOrderId: string;
  let receiver: WebhookReceiver;
  let webhookRef: string;
  const started = new Date();

  /** A production booking (live key) and its job, picked up at `time` Sri Lanka time on `date`. */
  async function booked(ref: string, date: string, time: string, pickup: object, dropoff: object, vehicle: string, adults = 2) {
    const call = client(app.url);
    const q = await call('POST', '/transfers/v1/quotes', {
      key: partner.liveKey,
      body: { pickup, dropoff, pickup_datetime: `${date}T${time}:00+05:30`, passengers: { adults, luggage: adults } },
    });
    const offer = q.body.offers?.find((o: any) => o.vehicle_code === vehicle);
    if (!offer) throw new Error(`no ${vehicle} offer for ${ref}: ${q.text}`);
    const b = await call('POST', '/transfers/v1/bookings', {
      key: partner.liveKey,
      body: {
        quote_id: q.body.quote_id,
        offer_id: offer.offer_id,
        partner_reference: ref,
        passenger: { first_name: 'Ayesha', last_name: 'Perera', phone: '+94771234567' },
        passengers: { adults, luggage: adults },
        flight_number: 'UL504',
      },
    });
    if (b.status !== 201) throw new Error(`booking ${ref}: ${b.status} ${b.text}`);
    return (await ops().jobs({ booking_ref: b.body.booking_ref }))[0];
  }
  const assign = async (job: any, driver: string, vehicle: string) => {
    const r = await ops().call('POST', `/jobs/${job.job_id}/assign`, { body: { driver_id: people[driver].driver_id, vehicle_id: fleet[vehicle].vehicle_id } });
    if (r.status !== 200) throw new Error(`assign ${r.status} ${r.text}`);
  };

  beforeAll(async () => {
    mp = await startMarketplaceSim({ userId: MARKETPLACE_ENV.MARKETPLACE_USER_ID, privateKey: MARKETPLACE_ENV.MARKETPLACE_PRIVATE_KEY });
    // The partner's sandbox webhook receiver is on this machine: sandbox endpoints may target it.
    app = await startTestApp({
      clock,
      env: { ...MARKETPLACE_ENV, MARKETPLACE_URL: mp.url, OUTBOX_POLL_MS: '100', OUTBOX_RETRY_BASE_MS: '600000', WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' },
    });
    mp.sim.setSupplier({
      inUrl: MARKETPLACE_ENV.MARKETPLACE_IN_URL,
      baseUrl: `${app.url}/marketplace`,
      callbackToken: MARKETPLACE_ENV.MARKETPLACE_CALLBACK_TOKEN,
    });

    // The fleet of a small Colombo operator, and its drivers.
    for (const [plate, code, brand, model, colour] of [
      ['CAB-4821', 'standard_car', 'Toyota', 'Axio', 'white'],
      ['CBG-7781', 'standard_car', 'Toyota', 'Premio', 'silver'],
      ['KX-2210', 'standard_car', 'Suzuki', 'Ciaz', 'blue'],
      ['CAR-1190', 'premium_car', 'Mercedes-Benz', 'E-Class', 'black'],
      ['CAW-4587', 'suv', 'Mitsubishi', 'Montero', 'white'],
      ['PH-7034', 'standard_van', 'Toyota', 'HiAce KDH', 'silver'],
    ] as const)
      fleet[plate] = await ops().vehicle(code, { plate, brand, model, colour });
    for (const [name, phone] of [
      ['Sunil Fernando', '+94 77 123 4567'],
      ['Mohamed Rizwan', '+94 71 234 5678'],
      ['Chaminda Perera', '+94 76 345 6789'],
      ['Nimal Silva', '+94 70 456 7890'],
    ]) {
      people[name] = await ops().driver(name, phone);
    }

    // Two days of jobs, booked two days ahead.
    partner = await ops().partnerWithKeys('Island Holidays');
    jobs.early = await booked('IH-101', TODAY, '07:00', { iata: 'CMB' }, { name: HOTEL }, 'standard_car');
    jobs.kandy = await booked('IH-102', TODAY, '11:00', { name: 'Kandy' }, { iata: 'CMB' }, 'standard_van', 4);
    jobs.first = await booked('IH-103', TODAY, '15:00', { iata: 'CMB' }, { name: HOTEL }, 'standard_car');
    jobs.second = await booked('IH-104', TODAY, '15:30', { iata: 'CMB' }, { name: 'Negombo' }, 'standard_car');
    jobs.galle = await booked('IH-105', TODAY, '18:30', { name: 'Jetwing Lighthouse, Galle' }, { iata: 'CMB' }, 'suv', 3);
    jobs.evening = await booked('IH-106', TODAY, '20:00', { name: 'Colombo' }, { iata: 'CMB' }, 'premium_car');
    jobs.tomorrow = await booked('IH-107', TOMORROW, '09:30', { iata: 'CMB' }, { name: 'Bentota' }, 'standard_car');

    // 05:30 on the day: the morning's drivers are set; by 13:30 the early job is done and the van is on the road.
    clock.set('2026-11-21T00:00:00Z');
    await assign(jobs.early, 'Sunil Fernando', 'CAB-4821');
    await assign(jobs.kandy, 'Nimal Silva', 'PH-7034');
    await assign(jobs.galle, 'Chaminda Perera', 'CAW-4587');
    clock.set(NOW);
    expect((await ops().call('POST', `/jobs/${jobs.early.job_id}/complete`)).status).toBe(200);
    expect((await ops().call('POST', `/jobs/${jobs.kandy.job_id}/location`, { body: { lat: 7.0873, lon: 80.0144 } })).status).toBe(202);

    // Two marketplace orders whose confirmations did not go through: one refused (400: failed), one 503 (retrying).
    failedOrderId = await marketplaceOrder('2026-11-22 17:00:00', 400);
    await marketplaceOrder('2026-11-23 08:00:00', 503);

    // The partner's webhook receiver is down (500): its booking.confirmed delivery waits for a retry.
    receiver = await startWebhookReceiver({ respond: () => 500 });
    const endpoint = await client(app.url)('POST', '/transfers/v1/webhook_endpoints', {
      key: partner.testKey,
      body: { url: `${receiver.url}/hooks`, events: ['booking.confirmed'] },
    });
    if (endpoint.status !== 201) throw new Error(`webhook endpoint ${endpoint.status} ${endpoint.text}`);
    receiver.setSecrets([endpoint.body.secret]);
    webhookRef = await sandboxBooking();
    await receiver.waitFor((d) => d.length === 1, 10_000);

    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await mp?.stop();
    await receiver?.close();
  });

  /** A sandbox booking of the partner (its booking.confirmed goes to the partner's webhook endpoint). */
  async function sandboxBooking(): Promise<string> {
    const call = client(app.url);
    const q = await call('POST', '/transfers/v1/quotes', {
      key: partner.testKey,
      body: { pickup: { name: 'Kandy' }, dropoff: { name: 'Galle' }, pickup_datetime: '2026-11-25T09:00:00+05:30', passengers: { adults: 2 } },
    });
    const b = await call('POST', '/transfers/v1/bookings', {
      key: partner.testKey,
      headers: { 'Idempotency-Key': 'ops-console-webhook' },
      body: {
        quote_id: q.body.quote_id,
        offer_id: q.body.offers[0].offer_id,
        partner_reference: 'IH-WEBHOOK',
        passenger: { first_name: 'Ayesha', last_name: 'Perera' },
        passengers: { adults: 2 },
      },
    });
    if (b.status !== 201) throw new Error(`sandbox booking ${b.status} ${b.text}`);
    return b.body.booking_ref;
  }

  /** The marketplace books a van; its confirmation fails once with `status`. Returns the order id. */
  async function marketplaceOrder(date: string, status: number): Promise<string> {
    const sim = client(mp.url);
    await sim('POST', '/__sim/scenarios', { body: { fail_next: { count: 1, status } } });
    const search = await sim('POST', '/__sim/drive/search', {
      body: { from: { name: 'Kandy' }, to: { iata: 'CMB' }, date, adults: 4, children: 1, luggage: 4 },
    });
    const van = search.body.response.body.vehicles.find((v: any) => v.vehicle_id === 'standard_van');
    await sim('POST', '/__sim/drive/lock', { body: { vehicle_id: van.vehicle_id, price_mark: van.price_mark } });
    const order = await sim('POST', '/__sim/drive/book', {
      body: { order: { ...sampleMarketplaceOrder('ignored', { date }), order_id: undefined, state: undefined, price_mark: van.price_mark, price: van.price } },
    });
    const orderId = order.body.order.order.order_id as string;
    // The worker tries the confirmation once and records the refusal.
    await eventually(
      `the confirmation of ${orderId} tried`,
      async () => {
        const [m] = (await ops().call('GET', `/outbox?order_id=${orderId}`)).body.data;
        return m?.last_status === status ? true : undefined;
      },
      10_000,
    );
    return orderId;
  }

  const consoleUrl = () => `${app.url}/ops/`;

  const signIn = (page: Page, base = app.url) => signInToConsole(page, base, OPERATOR_TOKEN);

  /** The page at both sizes (test-artifacts/); at a phone's width it must not scroll sideways. */
  async function shots(page: Page, name: string) {
    expect({ name, overflow: await shotsAtBothSizes(page, name) }).toEqual({ name, overflow: 0 });
  }

  it("signs in: a wrong token gets the API's own 401; the right one is kept in this tab's session only, and signing out forgets it", async () => {
    const w = await watchedPage(browser);
    try {
      await w.page.goto(consoleUrl());
      await visibleSoon(w.page.locator('#signin-title'));
      await shots(w.page, 'ops-console-signin');

      const answered = w.page.waitForResponse((r) => r.url().endsWith('/ops/v1/ping'));
      await w.page.fill('#token-input', 'op_not_the_token_0000000000');
      await w.page.click('#signin-form button[type="submit"]');
      const refused = await answered;
      await textSoon(w.page.locator('#signin-status'), /Refused: the operator API answered 401 unauthorized: Send Authorization: Bearer <operator token>\./);
      // The page got exactly what the API gives any client with a wrong token.
      const direct = await client(app.url)('GET', '/ops/v1/ping', { headers: { Authorization: 'Bearer op_another_wrong_one_00000' } });
      expect({ status: refused.status(), body: await refused.text() }).toEqual({ status: 401, body: direct.text });
      await shots(w.page, 'ops-console-signin-refused');

      await w.page.fill('#token-input', OPERATOR_TOKEN);
      await w.page.click('#signin-form button[type="submit"]');
      await visibleSoon(w.page.locator('#board-title'));
      // Who is signed in (GET /me): the bootstrap admin, with its role, beside Sign out.
      await textSoon(w.page.locator('#whoami'), /Bootstrap admin \(OPERATOR_TOKEN\)\s+admin/);
      expect(await w.page.evaluate("({ session: sessionStorage.getItem('lanka-ops-token'), local: localStorage.length, cookies: document.cookie })")).toEqual({
        session: OPERATOR_TOKEN,
        local: 0,
        cookies: '',
      });
      expect(await w.page.context().cookies()).toEqual([]);
      expect(await w.page.locator('#token-input').inputValue()).toBe('');
      // A reload keeps the session (the token is checked again); the service's clock says what "today" is.
      await w.page.reload();
      await visibleSoon(w.page.locator('#board-title'));
      await textSoon(w.page.locator('#service-clock'), /Service time Sat 21 Nov 13:3\d/);
      await textSoon(w.page.locator('#day-today'), /Today, Sat 21 Nov/);

      await w.page.click('#sign-out');
      await visibleSoon(w.page.locator('#signin-title'));
      await textSoon(w.page.locator('#signin-status'), /Signed out: this tab has forgotten the token/);
      expect(await w.page.evaluate('sessionStorage.length')).toBe(0);
      expect(await w.page.locator('#timeline').innerHTML()).toBe('');
      // And after a reload, nothing is signed in.
      await w.page.reload();
      await visibleSoon(w.page.locator('#signin-title'));
      expect(await w.page.locator('#sections').isVisible()).toBe(false);
      expect(w.outside(app.url)).toEqual([]);
      expect(w.errors.filter((e) => !e.includes('status of 401'))).toEqual([]);
    } finally {
      await w.close();
    }
  });

  it('creates a partner and issues a key shown once with a copy button and a warning; edits its vocabulary, pauses it, revokes the key', async () => {
    const w = await watchedPage(browser);
    await w.page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url });
    try {
      await signIn(w.page);
      await w.page.click('#sections a[href="#partners"]');
      await w.page.fill('#partner-name', 'Serendib Journeys');
      await w.page.selectOption('#partner-currency', 'EUR');
      await w.page.click('#partner-form button[type="submit"]');
      await textSoon(w.page.locator('#partner-detail-title'), /Serendib Journeys/);
      await textSoon(w.page.locator('#partner-form-status'), /Created Serendib Journeys \(ptn_[a-z0-9]{16}\)/);
      const partnerId = /(ptn_[a-z0-9]{16})/.exec(await w.page.locator('#partner-form-status').innerText())![1];
      expect((await ops().call('GET', `/partners/${partnerId}`)).body).toMatchObject({ name: 'Serendib Journeys', currency: 'EUR', paused: false });

      // A sandbox key: shown once, with a warning and a copy button.
      await w.page.selectOption('#key-env', 'sandbox');
      await w.page.click('#key-form button[type="submit"]');
      await visibleSoon(w.page.locator('#new-key-value'));
      await textSoon(w.page.locator('#new-key .warning'), /Copy this key now\. It is shown this once and cannot be retrieved again/);
      const key = await w.page.locator('#new-key-value').inputValue();
      expect(key).toMatch(/^svc_sk_test_[a-z0-9]{12}_[A-Za-z0-9]{40}$/);
      await w.page.click('#copy-key');
      await textSoon(w.page.locator('#copy-status'), /Copied to the clipboard/);
      expect(await w.page.evaluate('navigator.clipboard.readText()')).toBe(key);
      await shots(w.page, 'ops-console-partner-key');
      // The key works, for this partner, in sandbox.
      expect((await client(app.url)('GET', '/transfers/v1/ping', { key })).body).toMatchObject({ ok: true, env: 'sandbox', partner: 'Serendib Journeys' });

      // Its vocabulary.
      await w.page.fill('#vocab-code', 'SEDAN');
      await w.page.selectOption('#vocab-vehicle', 'standard_car');
      await w.page.click('#vocab-form button[type="submit"]');
      await textSoon(w.page.locator('#partner-status'), /Mapped SEDAN to Standard car/);
      expect((await ops().call('GET', `/partners/${partnerId}/vehicle-codes`)).body.data).toEqual([
        { partner_id: partnerId, code: 'SEDAN', vehicle: 'standard_car' },
      ]);
      // The key is not on the page any more (it was shown once), only its prefix in the list.
      expect(await w.page.locator('#new-key-value').count()).toBe(0);
      expect(await w.page.content()).not.toContain(key);
      await textSoon(w.page.locator('#keys-table'), new RegExp(`${key.slice(0, key.lastIndexOf('_') + 1)}…`));

      // Paused: its quotes decline; resumed again.
      await w.page.click('#pause-toggle');
      await textSoon(w.page.locator('#partner-status'), /Paused: its quotes decline with partner_paused/);
      expect((await ops().call('GET', `/partners/${partnerId}`)).body.paused).toBe(true);
      await w.page.click('#pause-toggle');
      await textSoon(w.page.locator('#partner-status'), /Resumed/);

      // Revoked, after a confirmation: the key fails from now on.
      await w.page.click('#keys-table [data-revoke]');
      await w.page.click('#confirm-revoke');
      await textSoon(w.page.locator('#partner-status'), /is revoked/);
      expect((await client(app.url)('GET', '/transfers/v1/ping', { key })).status).toBe(401);
      await textSoon(w.page.locator('#keys-table'), /revoked/);
      await shots(w.page, 'ops-console-partners');
      expect(w.outside(app.url)).toEqual([]);
      expect(w.errors).toEqual([]);
    } finally {
      await w.close();
    }
  });

  it("makes a new version of a partner's terms, and shows its statement, with the same lines as a CSV file", async () => {
    const w = await watchedPage(browser);
    try {
      await signIn(w.page);
      await w.page.click('#sections a[href="#partners"]');
      await w.page.click(`a[href="#partners/${partner.partner_id}"]`);
      await textSoon(w.page.locator('#terms-facts'), /Version\s*1,[\s\S]*50 % from 12 h before pickup; 100 % from 2 h before pickup/i);
      await w.page.fill('#terms-fees', '24:30, 3:100');
      await w.page.fill('#terms-no-show', '80');
      await w.page.fill('#terms-adjust', '-5');
      await w.page.click('#terms-form button[type="submit"]');
      await textSoon(
        w.page.locator('#partner-status'),
        /Terms version 2 in force from the partner's next quote: 30 % from 24 h before pickup; 100 % from 3 h before pickup/,
      );
      expect((await ops().call('GET', `/partners/${partner.partner_id}/terms`)).body).toMatchObject({
        version: 2,
        cancellation_fees: [
          { hours_before: 24, percent: 30 },
          { hours_before: 3, percent: 100 },
        ],
        no_show_percent: 80,
        price_adjustment_percent: -5,
      });
      await textSoon(w.page.locator('#terms-facts'), /-5 % on the rate card/);

      // The island's production bookings of the 21st and 22nd: one completed, six open.
      await w.page.selectOption('#statement-env', 'production');
      await w.page.fill('#statement-from', TODAY);
      await w.page.fill('#statement-to', TOMORROW);
      await w.page.click('#statement-form button[type="submit"]');
      await textSoon(w.page.locator('#statement-totals'), /^7 bookings · due \d+\.\d\d USD \(final \d+\.\d\d USD\)$/);
      const api = (await ops().call('GET', `/partners/${partner.partner_id}/statements?env=production&from=${TODAY}&to=${TOMORROW}`)).body;
      const totals = `due ${api.totals.amount_due.toFixed(2)} USD (final ${api.totals.final_amount_due.toFixed(2)} USD)`;
      await textSoon(w.page.locator('#statement-totals'), new RegExp(totals.replace(/[().]/g, '\\$&')));
      expect(await w.page.locator('#statement-table tbody tr').count()).toBe(7);
      await textSoon(w.page.locator('#statement-table'), /IH-101[\s\S]*completed/);
      await shots(w.page, 'ops-console-terms-statement');

      const [download] = await Promise.all([w.page.waitForEvent('download'), w.page.click('#statement-csv')]);
      expect(download.suggestedFilename()).toBe(`${partner.partner_id}-production-${TODAY}.csv`);
      const csv = fs.readFileSync((await download.path())!, 'utf8');
      expect(csv.split('\r\n')[0]).toBe('booking_ref,partner_reference,pickup_datetime,status,price,cancellation_fee,amount_due,final');
      expect(csv.split('\r\n').filter(Boolean)).toHaveLength(8);
      expect(w.outside(app.url)).toEqual([]);
      expect(w.errors).toEqual([]);
    } finally {
      await w.close();
    }
  });

  it("assigns a job on the board, and a double assignment is refused with the API's message", async () => {
    const w = await watchedPage(browser);
    try {
      await signIn(w.page);
      // Today's board: the vehicles' timelines and the unassigned column.
      await textSoon(w.page.locator('#unassigned'), /Job \d+/);
      for (const id of [jobs.first.job_id, jobs.second.job_id, jobs.evening.job_id]) await visibleSoon(w.page.locator(`#unassigned [data-job="${id}"]`));
      for (const id of [jobs.early.job_id, jobs.kandy.job_id, jobs.galle.job_id]) await visibleSoon(w.page.locator(`#timeline [data-job="${id}"]`));
      await shots(w.page, 'ops-console-board');

      await w.page.click(`#unassigned [data-job="${jobs.first.job_id}"]`);
      await textSoon(w.page.locator('#job-title'), new RegExp(`Job ${jobs.first.job_id}`));
      await w.page.selectOption('#assign-driver', people['Mohamed Rizwan'].driver_id);
      await w.page.selectOption('#assign-vehicle', fleet['CBG-7781'].vehicle_id);
      await w.page.click('#assign-form button[type="submit"]');
      await textSoon(w.page.locator('#assign-result'), new RegExp(`Assigned: Mohamed Rizwan with CBG-7781 to job ${jobs.first.job_id}`));
      await visibleSoon(w.page.locator(`#timeline [data-job="${jobs.first.job_id}"]`));
      expect(await w.page.locator(`#unassigned [data-job="${jobs.first.job_id}"]`).count()).toBe(0);
      expect(await ops().call('GET', `/jobs/${jobs.first.job_id}`)).toMatchObject({
        body: { status: 'driver_assigned', driver: { name: 'Mohamed Rizwan' }, vehicle: { plate: 'CBG-7781' } },
      });

      // The same driver for the job half an hour later: the database refuses it, and the board says why.
      await w.page.click(`#unassigned [data-job="${jobs.second.job_id}"]`);
      await textSoon(w.page.locator('#job-title'), new RegExp(`Job ${jobs.second.job_id}`));
      await textSoon(w.page.locator('#assign-driver'), new RegExp(`Mohamed Rizwan \\(busy 15:00–\\d\\d:\\d\\d, job ${jobs.first.job_id}\\)`));
      await w.page.selectOption('#assign-driver', people['Mohamed Rizwan'].driver_id);
      await w.page.selectOption('#assign-vehicle', fleet['KX-2210'].vehicle_id);
      await w.page.click('#assign-form button[type="submit"]');
      await textSoon(
        w.page.locator('#assign-result'),
        new RegExp(
          `Double booking refused: Driver Mohamed Rizwan is already on job ${jobs.first.job_id} from 15:00 to \\d\\d:\\d\\d \\(Sri Lanka time\\), which overlaps this one\\.`,
        ),
      );
      expect(await w.page.locator('#assign-result').getAttribute('role')).toBe('alert');
      await shots(w.page, 'ops-console-double-assignment');
      expect((await ops().call('GET', `/jobs/${jobs.second.job_id}`)).body).toMatchObject({ status: 'confirmed', driver: null });
      // The assignment was made by the console's request, through the operator API, and audited.
      const [row] = await ops().audit({ path: `/ops/v1/jobs/${jobs.second.job_id}/assign` });
      expect(row).toMatchObject({ surface: 'ops', status: 409, response_body: { error: { code: 'assignment_conflict' } } });
      expect(w.outside(app.url)).toEqual([]);
      expect(w.errors.filter((e) => !e.includes('status of 409'))).toEqual([]);
    } finally {
      await w.close();
    }
  });

  it("refuses a no-show before the pickup time, in the API's words, and the job stays as it was", async () => {
    const w = await watchedPage(browser);
    try {
      await signIn(w.page);
      // By keyboard: a job on the timeline is a button; Enter opens it, Escape closes it and returns to it.
      const block = w.page.locator(`#timeline [data-job="${jobs.galle.job_id}"]`);
      await block.focus();
      await w.page.keyboard.press('Enter');
      await textSoon(w.page.locator('#job-title'), new RegExp(`Job ${jobs.galle.job_id}`));
      await w.page.keyboard.press('Escape');
      await w.page.locator('#job-panel').waitFor({ state: 'hidden' });
      expect(await w.page.evaluate('document.activeElement.getAttribute("data-job")')).toBe(jobs.galle.job_id);
      await w.page.keyboard.press('Enter');
      await textSoon(w.page.locator('#job-title'), new RegExp(`Job ${jobs.galle.job_id}`));
      await textSoon(w.page.locator('#job-panel [data-fact="Pickup"]'), /18:30/);
      await w.page.fill('#no-show-note', 'Nobody at the hotel lobby.');
      await w.page.click('#no-show-form button[type="submit"]');
      await textSoon(
        w.page.locator('#finish-result'),
        /Not possible for this job: A no-show can be reported only after the pickup time \(2026-11-21T13:00:00\.000Z\)\./,
      );
      await shots(w.page, 'ops-console-no-show-too-early');
      expect((await ops().call('GET', `/jobs/${jobs.galle.job_id}`)).body).toMatchObject({ status: 'driver_assigned', driver: { name: 'Chaminda Perera' } });
      expect(w.outside(app.url)).toEqual([]);
    } finally {
      await w.close();
    }
  });

  it("updates the board without a reload: a driver's position and another operator's assignment appear by themselves", async () => {
    const w = await watchedPage(browser);
    // The page's clock runs as a real one does; the test moves it on a polling round rather than wait for one.
    await w.page.context().clock.install();
    try {
      await signIn(w.page);
      await w.page.click(`#timeline [data-job="${jobs.kandy.job_id}"]`);
      await textSoon(w.page.locator('#job-panel [data-fact="Last known location"]'), /7\.08730, 80\.01440 at 13:30/);
      const loads = w.requests.filter((u) => u.includes('/ops/v1/jobs?')).length;

      // Elsewhere: the van reports a new position, and another operator assigns the evening job.
      expect((await ops().call('POST', `/jobs/${jobs.kandy.job_id}/location`, { body: { lat: 7.1801, lon: 79.8843 } })).status).toBe(202);
      await assign(jobs.evening, 'Sunil Fernando', 'CAR-1190');
      const located = w.page.locator('#job-panel [data-fact="Last known location"]');
      const evening = w.page.locator(`#timeline [data-job="${jobs.evening.job_id}"]`);
      await clockRounds(w.page, POLL_MS, async () => (await shows(located, /7\.18010, 79\.88430/)()) && (await evening.count()) > 0);
      await textSoon(located, /7\.18010, 79\.88430/);
      await visibleSoon(evening);
      expect(await w.page.locator(`#unassigned [data-job="${jobs.evening.job_id}"]`).count()).toBe(0);
      await shots(w.page, 'ops-console-board-live');
      // The page was not reloaded: it polled the job list (an unchanged list answers 304).
      expect(w.requests.filter((u) => u.endsWith('/ops/')).length).toBe(1);
      expect(w.requests.filter((u) => u.includes('/ops/v1/jobs?')).length).toBeGreaterThan(loads);

      // Tomorrow's board.
      await w.page.click('#day-tomorrow');
      await textSoon(w.page.locator('#day-tomorrow'), /Tomorrow, Sun 22 Nov/);
      await visibleSoon(w.page.locator(`#unassigned [data-job="${jobs.tomorrow.job_id}"]`));
      expect(await w.page.locator('#day-tomorrow').getAttribute('aria-pressed')).toBe('true');
      await shots(w.page, 'ops-console-board-tomorrow');
      expect(w.outside(app.url)).toEqual([]);
    } finally {
      await w.close();
    }
  });

  it('lists the failed and retrying deliveries (marketplace calls and partner webhooks) with their attempts, and retries them until delivered', async () => {
    const w = await watchedPage(browser);
    await w.page.context().clock.install();
    try {
      await signIn(w.page);
      await w.page.click('#sections a[href="#deliveries"]');
      const failedRow = w.page.locator(`#deliveries-table tr:has-text("Order ${failedOrderId}")`);
      await visibleSoon(failedRow);
      await textSoon(failedRow, /Marketplace: confirm order[\s\S]*failed[\s\S]*1 of \d+[\s\S]*400 marketplace refused the request/);
      await textSoon(w.page.locator('#deliveries-table'), /retrying[\s\S]*503/);
      await failedRow.locator('button:has-text("Attempts")').click();
      await textSoon(failedRow.locator('.attempt-list'), /400/);
      await shots(w.page, 'ops-console-deliveries');

      await failedRow.locator('button:has-text("Retry")').click();
      await textSoon(failedRow, /Due now: attempt 2 goes out/);
      // The worker sends it again; the marketplace accepts it this time; the row leaves the list.
      const row = (text: string) => w.page.locator(`#deliveries-table tr:has-text("${text}")`);
      const gone = (text: string) => async () => (await row(text).count()) === 0;
      await clockRounds(w.page, POLL_MS, gone(`Order ${failedOrderId}`), POLLED);
      await row(`Order ${failedOrderId}`).waitFor({ state: 'detached', timeout: 1000 });
      const [m] = (await ops().call('GET', `/outbox?order_id=${failedOrderId}`)).body.data;
      expect(m).toMatchObject({ kind: 'confirm_order', status: 'delivered', attempts: 2 });
      const calls = (await client(mp.url)('GET', `/__sim/calls?operation=confirmOrder&order_id=${failedOrderId}`)).body.calls;
      expect(calls.map((c: any) => c.status)).toEqual([400, 200]);
      await textSoon(w.page.locator('#deliveries-status'), /0 failed, 2 retrying/);

      // The partner's webhook delivery is there too, retrying: the receiver answered 500. Fixed, it is retried now.
      const hookRow = w.page.locator(`#deliveries-table tr:has-text("Webhook: booking.confirmed")`);
      await textSoon(hookRow, new RegExp(`${receiver.url}/hooks[\\s\\S]*${partner.partner_id} · sandbox · booking ${webhookRef}[\\s\\S]*retrying[\\s\\S]*500`));
      await shots(w.page, 'ops-console-deliveries-webhook');
      receiver.setResponder(() => 200);
      await hookRow.locator('button:has-text("Retry")').click();
      await clockRounds(w.page, POLL_MS, gone('Webhook: booking.confirmed'), POLLED);
      await row('Webhook: booking.confirmed').waitFor({ state: 'detached', timeout: 1000 });
      const delivered = await receiver.waitFor((d) => d.some((x) => x.status === 200), 10_000);
      // The same event, the same webhook-id, now verified and accepted.
      expect(delivered.map((d) => [d.status, d.event?.type, d.event?.data.booking?.booking_ref])).toEqual([
        [500, 'booking.confirmed', webhookRef],
        [200, 'booking.confirmed', webhookRef],
      ]);
      expect(new Set(delivered.map((d) => d.headers['webhook-id'])).size).toBe(1);
      await textSoon(w.page.locator('#deliveries-status'), /0 failed, 1 retrying/);
      await shots(w.page, 'ops-console-deliveries-retried');
      expect(w.outside(app.url)).toEqual([]);
    } finally {
      await w.close();
    }
  });

  it('searches the audit log by request id and shows the redacted request and response side by side', async () => {
    const w = await watchedPage(browser);
    try {
      const ping = await client(app.url)('GET', '/transfers/v1/ping', { key: partner.testKey });
      const requestId = ping.headers.get('x-request-id')!;
      await signIn(w.page);
      await w.page.click('#sections a[href="#audit"]');
      await visibleSoon(w.page.locator('#audit-table tbody tr'));
      // Paging back through the newest entries.
      await w.page.click('#audit-older');
      await textSoon(w.page.locator('#audit-page'), /Page 2/);
      await w.page.click('#audit-newer');
      await textSoon(w.page.locator('#audit-page'), /Page 1/);

      await w.page.fill('#audit-request-id', requestId);
      await w.page.click('#audit-form button[type="submit"]');
      // A single match opens by itself.
      await textSoon(w.page.locator('#audit-detail-title'), /GET \/transfers\/v1\/ping/);
      expect(await w.page.locator('#audit-table tbody tr').count()).toBe(1);
      await textSoon(w.page.locator('#audit-table tbody'), new RegExp(requestId));
      // The key is redacted to its non-secret prefix; the response is the one the partner got.
      await textSoon(
        w.page.locator('#audit-request-headers'),
        new RegExp(`"authorization": "Bearer ${partner.testKey.slice(0, partner.testKey.lastIndexOf('_') + 1)}\\[REDACTED\\]"`),
      );
      expect(await w.page.content()).not.toContain(partner.testKey);
      await textSoon(w.page.locator('#audit-response-body'), /"partner": "Island Holidays"/);
      await textSoon(w.page.locator('#audit-detail'), /Response 200/);
      const [request, response] = await Promise.all([0, 1].map((i) => w.page.locator('#audit-detail .pair > section').nth(i).boundingBox()));
      const sideBySide = Math.abs(request!.y - response!.y) < 2 && request!.x + request!.width <= response!.x;
      expect(sideBySide).toBe(true);
      await shots(w.page, 'ops-console-audit');

      // An entry the list shows cut (a body over 8 KiB) is read whole when it is opened.
      const big = { pickup: { name: 'Colombo '.repeat(2000) } };
      const bigQuote = await client(app.url)('POST', '/transfers/v1/quotes', { key: partner.testKey, body: big });
      await w.page.fill('#audit-request-id', bigQuote.headers.get('x-request-id')!);
      await Promise.all([
        w.page.waitForResponse((r) => /\/ops\/v1\/audit\/\d+$/.test(new URL(r.url()).pathname)),
        w.page.click('#audit-form button[type="submit"]'),
      ]);
      await textSoon(w.page.locator('#audit-detail-title'), /POST \/transfers\/v1\/quotes/);
      expect((await w.page.locator('#audit-request-body').textContent())!.match(/Colombo/g)).toHaveLength(2000);

      // The other filters: partner, path, surface, direction and a time range (Sri Lanka time).
      await w.page.click('#audit-clear');
      await w.page.fill('#audit-partner', partner.partner_id);
      await w.page.fill('#audit-path', '/transfers/v1/bookings');
      await w.page.selectOption('#audit-surface', 'transfers');
      await w.page.selectOption('#audit-direction', 'inbound');
      // (The audit log's times are the database's; the form takes Sri Lanka time.)
      const local = (t: number) => new Date(t + 330 * 60_000).toISOString().slice(0, 19);
      await w.page.fill('#audit-from', local(started.getTime() - 60_000));
      await w.page.fill('#audit-to', local(Date.now() + 60_000));
      await Promise.all([
        w.page.waitForResponse((r) => r.url().includes('/ops/v1/audit?') && r.url().includes('partner_id=')),
        w.page.click('#audit-form button[type="submit"]'),
      ]);
      await textSoon(w.page.locator('#audit-table tbody'), /POST \/transfers\/v1\/bookings/);
      // The seven production bookings of the board, and the sandbox one whose webhook delivery failed.
      expect(await w.page.locator('#audit-table tbody tr').count()).toBe(8);
      expect((await w.page.locator('#audit-table tbody').innerText()).match(/POST \/transfers\/v1\/bookings/g)).toHaveLength(8);
      await w.page.fill('#audit-to', local(started.getTime() - 60_000));
      await w.page.fill('#audit-from', local(started.getTime() - 3_600_000));
      await w.page.click('#audit-form button[type="submit"]');
      await textSoon(w.page.locator('#audit-status'), /No entry matches/);
      // The deliveries view links each attempt to its entry by request id (outbox_<id>_a<attempt>).
      const [m] = (await ops().call('GET', `/outbox?order_id=${failedOrderId}`)).body.data;
      await w.page.goto(`${consoleUrl()}#audit?request_id=outbox_${m.id}_a1`);
      await textSoon(w.page.locator('#audit-detail'), new RegExp(`marketplace · outbound · request outbox_${m.id}_a1`));
      await textSoon(w.page.locator('#audit-detail'), /Response 400/);
      expect(w.outside(app.url)).toEqual([]);
      expect(w.errors).toEqual([]);
    } finally {
      await w.close();
    }
  });

  it('fetches nothing from outside the service on any view, loads only its own files besides the API, and labels every field', async () => {
    const w = await watchedPage(browser);
    try {
      await signIn(w.page);
      await w.page.click(`#timeline [data-job="${jobs.kandy.job_id}"]`);
      await w.page.click('#sections a[href="#partners"]');
      await w.page.click('#partners-table a');
      await visibleSoon(w.page.locator('#vocab-form'));
      for (const view of ['drivers', 'deliveries', 'audit', 'operators', 'board']) {
        await w.page.click(`#sections a[href="#${view}"]`);
        await w.page.waitForLoadState('networkidle');
        // Every field of the view has a label, and the view's heading has the focus.
        const unlabelled = await w.page.evaluate(
          "Array.from(document.querySelectorAll('main input, main select, main textarea')).filter((c) => c.offsetParent !== null && !c.labels.length && !c.getAttribute('aria-label')).map((c) => c.id || c.name)",
        );
        expect({ view, unlabelled }).toEqual({ view, unlabelled: [] });
        // (The view is shown on the hash change that follows the click: wait for it to take the focus.)
        const focused = await evaluateSoon<string>(w.page, 'document.activeElement && document.activeElement.id', (id) => id === `${view}-title`);
        expect(focused).toBe(`${view}-title`);
      }
      await w.page.click(`#timeline [data-job="${jobs.galle.job_id}"]`);
      expect(
        await w.page.evaluate(
          "Array.from(document.querySelectorAll('#job-panel input, #job-panel select, #job-panel textarea')).filter((c) => !c.labels.length).length",
        ),
      ).toBe(0);
      expect(w.outside(app.url)).toEqual([]);
      const files = [...new Set(w.requests.filter((u) => !u.includes('/ops/v1/')))].sort();
      // The page, its styles, and its script: ops.js and the ES modules it imports (web/ops/*.js), nothing else.
      const modules = [
        'api',
        'audit',
        'board',
        'board-timeline',
        'board-words',
        'deliveries',
        'dom',
        'driver-hours',
        'drivers',
        'format',
        'job-panel',
        'operators',
        'ops',
        'partner-agents',
        'partner-settings',
        'partner-terms',
        'partners',
        'plan-api',
        'plan-card',
        'plan-ghosts',
        'plan-state',
        'router',
        'session',
        'state',
      ];
      const styles = [
        'console-base',
        'console-docs',
        'console-workbench',
        'console-workbench-detail',
        'ops-base',
        'ops-tables',
        'ops-board',
        'ops-plan',
        'ops-drivers',
        'ops-narrow',
      ];
      const own = [...styles.map((s) => `${s}.css`), 'favicon-32x32.png', ...modules.map((m) => `${m}.js`)].map((f) => `${app.url}/ops/assets/${f}`);
      expect(files).toEqual([`${app.url}/ops/`, ...own].sort());
      // Every request the page made is in the audit log, the page's own under the ops-console surface.
      const pages = await ops().audit({ surface: 'ops-console', limit: '500' });
      expect(pages.length).toBeGreaterThanOrEqual(5);
      expect(w.errors).toEqual([]);
    } finally {
      await w.close();
    }
  });

  it("shows the ride as the driver's app reports it: a late job flagged until its driver sets off, then the ride's state and times, and it can still be finished", async () => {
    const w = await watchedPage(browser);
    await w.page.context().clock.install();
    try {
      await signIn(w.page);
      const block = w.page.locator(`#timeline [data-job="${jobs.kandy.job_id}"]`);
      // Its pickup (11:00) has passed and the driver is not on the way: flagged.
      await textSoon(block, /⚠/);
      expect(await block.getAttribute('class')).toContain('alert');
      await block.click();
      await textSoon(w.page.locator('#job-panel [data-fact="Needs attention"]'), /Late: no driver on the way/);

      // The driver sets off from the app.
      const { driver } = (await ops().call('GET', `/jobs/${jobs.kandy.job_id}`)).body;
      const phone = (await ops().driverToken(driver.driver_id)).token;
      const moved = await client(app.url)('POST', `/driver/v1/jobs/${jobs.kandy.job_id}/status`, { key: phone, body: { status: 'en_route' } });
      expect(moved.status).toBe(200);
      const ride = w.page.locator('#job-panel [data-fact="Ride"]');
      await clockRounds(w.page, POLL_MS, async () => (await shows(block, /driver on the way/)()) && (await shows(ride, /on the way 13:30/)()));
      await textSoon(block, /driver on the way/);
      expect(await block.getAttribute('class')).not.toContain('alert');
      await textSoon(ride, /on the way 13:30/);
      expect(await w.page.locator('#job-panel [data-fact="Needs attention"]').count()).toBe(0);
      // An operator can still finish it.
      expect(await w.page.locator('#job-panel button', { hasText: 'Mark completed' }).count()).toBe(1);
      await shots(w.page, 'ops-console-board-ride');
      expect(w.outside(app.url)).toEqual([]);
    } finally {
      await w.close();
    }
  });

  it('works on its own address when OPS_LISTEN is set, and the public port serves no console', async () => {
    const separate = await startTestApp({ env: { OPS_LISTEN: '127.0.0.1:0' } });
    const w = await watchedPage(browser);
    try {
      await w.page.goto(`${separate.url}/ops/`);
      await textSoon(w.page.locator('body'), /No route GET \/ops\//);
      await signIn(w.page, separate.opsUrl);
      await textSoon(w.page.locator('#board-status'), /0 jobs/);
      await shots(w.page, 'ops-console-ops-listen');
      expect(w.outside(separate.opsUrl).filter((u) => !u.startsWith(`${separate.url}/`))).toEqual([]);
    } finally {
      await w.close();
      await separate.close();
    }
  });
});
