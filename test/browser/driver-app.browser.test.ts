import type { Browser, Page } from 'playwright-core';
import { ManualClock } from '../../src/shared/clock';
import { PHONE, DESKTOP, clockRounds, launchBrowser, screenshot, shows, textSoon, visibleSoon, watchedPage, describeInBrowser } from '../support/browser';
import { quoteAndBook } from '../support/bookings';
import { useTestApp } from '../support/use-test-app';

/** Booked two days ahead; the ride is on Saturday 21 November 2026. */
const BOOKED_AT = '2026-11-19T12:00:00Z';
/** 08:00 in Sri Lanka on the day: the ride's pickup, 10:30 at the airport, is less than 3 hours away. */
const MORNING = '2026-11-21T02:30:00Z';
/** 10:25 in Sri Lanka: the driver reaches the airport. */
const AT_THE_AIRPORT = '2026-11-21T04:55:00Z';
const CMB = { latitude: 7.174016, longitude: 79.887887 };
/** The app queues the latest position once a round, by the page's clock (SEND_MS in web/driver/location.js). */
const SEND_MS = 10_000;

/**
 * The driver app (/driver/) on a phone in headless Chromium, against the service: a driver signs in with the token
 * an operator issued, sees the day's jobs, drives the ride through its states with the one big button while the
 * phone's position (mocked) reaches the job, loses the network (positions and a tap wait, then go), and is sent back
 * to the sign-in when the token is revoked. Nothing is fetched from outside the service.
 */
describeInBrowser('Driver app (/driver/) in a browser', () => {
  const clock = new ManualClock(BOOKED_AT);
  const svc = useTestApp({ clock, outboxWorker: false, partner: 'Island Holidays' });
  let browser: Browser;
  let ticking: ReturnType<typeof setInterval> | undefined;
  let jobId: string;
  let tomorrowJobId: string;
  let token: { token: string; token_id: string };
  /** Another driver, whose ride is under way, on a phone that refuses to give its position. */
  let other: { token: string; jobId: string };

  beforeAll(async () => {
    const vehicle = await svc.ops.vehicle('standard_car', { plate: 'CAB-4521', brand: 'Toyota', model: 'Axio', colour: 'White' });
    const driver = await svc.ops.driver('Nimal Perera', '+94771112233');
    const today = await quoteAndBook(svc.call, svc.partner.liveKey, { pickupDatetime: '2026-11-21T10:30:00+05:30', reference: 'IH-201' });
    const tomorrow = await quoteAndBook(svc.call, svc.partner.liveKey, {
      pickupDatetime: '2026-11-22T09:30:00+05:30',
      pickup: { name: 'Cinnamon Grand, 77 Galle Road, Colombo 03' },
      dropoff: { iata: 'CMB' },
      reference: 'IH-202',
    });
    for (const b of [today, tomorrow]) {
      const [job] = await svc.ops.jobs({ booking_ref: b.booking.booking_ref });
      const r = await svc.ops.call('POST', `/jobs/${job.job_id}/assign`, { body: { driver_id: driver.driver_id, vehicle_id: vehicle.vehicle_id } });
      if (r.status !== 200) throw new Error(`assign ${r.status} ${r.text}`);
      if (b === today) jobId = job.job_id;
      else tomorrowJobId = job.job_id;
    }
    token = await svc.ops.driverToken(driver.driver_id);

    const otherDriver = await svc.ops.driver('Chaminda Silva', '+94763456789');
    const otherVehicle = await svc.ops.vehicle('standard_car');
    const otherRide = await quoteAndBook(svc.call, svc.partner.liveKey, { pickupDatetime: '2026-11-21T11:00:00+05:30', reference: 'IH-203' });
    const [otherJob] = await svc.ops.jobs({ booking_ref: otherRide.booking.booking_ref });
    const assigned = await svc.ops.call('POST', `/jobs/${otherJob.job_id}/assign`, {
      body: { driver_id: otherDriver.driver_id, vehicle_id: otherVehicle.vehicle_id },
    });
    if (assigned.status !== 200) throw new Error(`assign ${assigned.status} ${assigned.text}`);
    other = { token: (await svc.ops.driverToken(otherDriver.driver_id)).token, jobId: otherJob.job_id };

    clock.set(MORNING);
    // The service's clock runs as a real one would while the phone is in use (positions are dated on it).
    ticking = setInterval(() => clock.advance(250), 250);
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    clearInterval(ticking);
    await browser?.close();
  });

  const appUrl = () => `${svc.app.url}/driver/`;
  const opsJob = async (id: string) => (await svc.ops.call('GET', `/jobs/${id}`)).body;

  /** The page at a phone's size (scrolled to `at`) and at 1280×800, in test-artifacts/; at a phone's width it must not scroll sideways. */
  async function shots(page: Page, name: string, at?: string) {
    const scroll = async () => {
      if (at)
        await page
          .locator(at)
          .first()
          .evaluate((el) => el.scrollIntoView({ block: 'center' }));
    };
    await scroll();
    await screenshot(page, `${name}-phone`);
    const overflow = (await page.evaluate('document.documentElement.scrollWidth - window.innerWidth')) as number;
    await page.setViewportSize(DESKTOP);
    await scroll();
    await screenshot(page, `${name}-desktop`);
    await page.setViewportSize(PHONE);
    expect({ name, overflow }).toEqual({ name, overflow: 0 });
  }

  const bigButton = (page: Page) => page.locator('.job.next .actions button.big');
  const statusBar = (page: Page) => page.locator('#statusbar');

  it('signs in with the driver token, drives the ride with the big button and shares the position, also through a loss of network', async () => {
    const w = await watchedPage(browser, PHONE);
    const context = w.page.context();
    await context.grantPermissions(['geolocation'], { origin: svc.app.url });
    await context.setGeolocation({ ...CMB, latitude: 6.9355, longitude: 79.8487, accuracy: 15 });
    const { page } = w;
    // The page's clock runs as a real one does, but a test can move it on a sending round (clockRounds).
    await context.clock.install();
    try {
      await page.goto(appUrl());
      await visibleSoon(page.locator('#signin-title'));
      await shots(page, 'driver-app-signin');

      // A wrong token gets the plain message; the right one opens the day's jobs.
      await page.fill('#token-input', 'drv_not_a_token_000000000000000000000000000');
      await page.click('#signin-button');
      await textSoon(page.locator('#signin-status'), /This token was revoked or is wrong — ask dispatch for a new one/);
      await page.fill('#token-input', token.token);
      await page.click('#signin-button');
      await visibleSoon(page.locator('.job.next'));
      await textSoon(page.locator('#whoami'), /Nimal Perera/);
      expect(await page.evaluate("({ kept: sessionStorage.getItem('lanka-driver-token'), local: localStorage.length })")).toEqual({
        kept: token.token,
        local: 0,
      });
      expect(await page.locator('#token-input').inputValue()).toBe('');

      // The next job first and open: the pickup time in Sri Lanka, the places, the passenger to call, the car.
      const next = page.locator('.job.next');
      await textSoon(next.locator('.time'), /10:30/);
      expect(await next.getAttribute('data-job')).toBe(jobId);
      const card = await next.innerText();
      expect(card).toMatch(/Bandaranaike International Airport \(CMB\)/);
      expect(card).toMatch(/Cinnamon Grand, 77 Galle Road, Colombo 03/);
      expect(card).toMatch(/Ayesha Perera/);
      expect(card).toMatch(/2 adults · 2 bags/);
      expect(card).toMatch(/UL504/);
      expect(card).toMatch(/CAB-4521\s+White Toyota Axio/);
      expect(await next.locator('a.call').getAttribute('href')).toBe('tel:+94771234567');
      await textSoon(page.locator('#day-2026-11-21'), /Today, Sat 21 Nov/);
      await textSoon(page.locator('#day-2026-11-22'), /Tomorrow, Sun 22 Nov/);
      expect(await page.locator(`#job-${tomorrowJobId} summary`).innerText()).toMatch(/09:30/);
      await textSoon(statusBar(page), /Your location is shared only during a ride/);
      await textSoon(bigButton(page), /^Start driving to pickup$/);
      // Every touch target is at least 48 px high.
      for (const sel of ['.job.next .actions button.big', '.job.next a.call', '#sign-out', `#job-${tomorrowJobId} summary`]) {
        const box = await page.locator(sel).boundingBox();
        expect({ sel, tall: (box?.height ?? 0) >= 48 }).toEqual({ sel, tall: true });
      }
      await shots(page, 'driver-app-jobs');

      // Tomorrow's job cannot be started yet: no button, and the time it can be is said.
      await page.click(`#job-${tomorrowJobId} summary`);
      await textSoon(page.locator(`#job-${tomorrowJobId} .actions`), /You can start driving to this pickup from 06:30 \(3 hours before\)/);
      expect(await page.locator(`#job-${tomorrowJobId} .actions button`).count()).toBe(0);
      await page.click(`#job-${tomorrowJobId} summary`);

      // On the way: the first position goes at once and reaches the job.
      await bigButton(page).click();
      await textSoon(bigButton(page), /^I have arrived$/);
      await textSoon(statusBar(page), /Sharing location/);
      expect((await opsJob(jobId)).status).toBe('en_route');
      const first = await waitForLocation(jobId, (l) => l !== null);
      expect(first).toMatchObject({ lat: 6.9355, lon: 79.8487 });
      await shots(page, 'driver-app-en-route');

      // At the airport: the waiting clock counts from the pickup time (the later), 60 minutes at an airport.
      clock.set(AT_THE_AIRPORT);
      await context.setGeolocation({ ...CMB, accuracy: 8 });
      await clockRounds(page, SEND_MS, async () => (await opsJob(jobId)).last_location?.lat === CMB.latitude);
      expect((await opsJob(jobId)).last_location).toMatchObject({ lat: CMB.latitude, lon: CMB.longitude });
      await bigButton(page).click();
      await textSoon(page.locator('.job.next .waiting'), /Free waiting until 11:30/);
      await textSoon(bigButton(page), /^Passenger on board$/);
      expect(await page.locator('.job.next button[data-action="no_show"]').count()).toBe(0);
      expect((await opsJob(jobId)).status).toBe('arrived');
      await shots(page, 'driver-app-arrived', '.job.next .waiting');

      // No network: positions wait (and say so), the tap waits on the button; back online, all of it goes.
      await context.setOffline(true);
      await textSoon(statusBar(page), /No network/);
      const before = (await opsJob(jobId)).last_location;
      await context.setGeolocation({ latitude: 7.1702, longitude: 79.8841, accuracy: 10 });
      await clockRounds(page, SEND_MS, shows(statusBar(page), /1 position waiting to send/));
      await textSoon(statusBar(page), /No network — 1 position waiting to send/);
      await context.setGeolocation({ latitude: 7.1655, longitude: 79.8822, accuracy: 10 });
      await clockRounds(page, SEND_MS, shows(statusBar(page), /2 positions waiting to send/));
      await textSoon(statusBar(page), /No network — 2 positions waiting to send/);
      await bigButton(page).click();
      await textSoon(bigButton(page), /Passenger on board\s*Waiting for network — will send/);
      await shots(page, 'driver-app-offline', '.job.next .actions');
      expect((await opsJob(jobId)).last_location).toEqual(before);
      expect((await opsJob(jobId)).status).toBe('arrived');

      await context.setOffline(false);
      // On board: "Ride completed" is not offered before the ride can be over (half the drive after boarding).
      await textSoon(page.locator(`#job-${jobId} .actions`), /On the way to the drop-off/, 25_000);
      const flushed = await waitForLocation(jobId, (l) => l?.lat === 7.1655, 25_000);
      expect(flushed).toMatchObject({ lat: 7.1655, lon: 79.8822 });
      await textSoon(statusBar(page), /Sharing location/);
      expect(await page.evaluate("sessionStorage.getItem('lanka-driver-outbox')")).toBeNull();
      expect((await opsJob(jobId)).status).toBe('on_board');

      // At the drop-off: the app asks before a final, billed "completed"; Back changes nothing.
      clock.set(new Date(Date.parse(AT_THE_AIRPORT) + 2 * 3600_000).toISOString());
      await page.reload();
      await textSoon(bigButton(page), /^Ride completed$/, 25_000);
      await bigButton(page).click();
      await textSoon(page.locator(`#job-${jobId} .confirm .question`), /^Passengers dropped off at .+\?$/);
      await shots(page, 'driver-app-confirm-completed', `#job-${jobId} .actions`);
      await page.locator(`#job-${jobId} .confirm button.plain`).click();
      await textSoon(bigButton(page), /^Ride completed$/);
      expect((await opsJob(jobId)).status).toBe('on_board');
      await bigButton(page).click();
      await page.locator(`#job-${jobId} button[data-action="confirm-completed"]`).click();
      await textSoon(page.locator(`#job-${jobId} .actions`), /Ride completed\. Thank you!/);
      expect((await opsJob(jobId)).status).toBe('completed');
      await textSoon(statusBar(page), /Your location is shared only during a ride/);
      // The next job is now tomorrow's.
      expect(await page.locator('.job.next').getAttribute('data-job')).toBe(tomorrowJobId);
      await shots(page, 'driver-app-completed');

      // The token revoked: the next request brings back the sign-in, in plain words.
      expect((await svc.ops.call('POST', `/driver-tokens/${token.token_id}/revoke`)).status).toBe(200);
      await page.reload();
      await textSoon(page.locator('#signin-status'), /This token was revoked or is wrong — ask dispatch for a new one/);
      expect(await page.evaluate('sessionStorage.length')).toBe(0);
      await shots(page, 'driver-app-revoked');

      expect(w.outside(svc.app.url)).toEqual([]);
      expect(w.errors.filter((e) => !/status of 401|ERR_INTERNET_DISCONNECTED/.test(e))).toEqual([]);
    } finally {
      await w.close();
    }
  }, 240_000);

  it('says plainly when the location is off, and tells the driver to turn it on', async () => {
    clock.set(AT_THE_AIRPORT);
    const started = await svc.call('POST', `/driver/v1/jobs/${other.jobId}/status`, { key: other.token, body: { status: 'en_route' } });
    expect(started.status).toBe(200);
    // No permission granted: the phone refuses the position.
    const w = await watchedPage(browser, PHONE);
    try {
      await w.page.goto(appUrl());
      await w.page.fill('#token-input', other.token);
      await w.page.click('#signin-button');
      await visibleSoon(w.page.locator('.job.next'));
      await textSoon(bigButton(w.page), /^I have arrived$/);
      await textSoon(statusBar(w.page), /Location is off — turn it on so the passenger can see you/);
      await shots(w.page, 'driver-app-location-off');
      expect(w.outside(svc.app.url)).toEqual([]);
    } finally {
      await w.close();
    }
  }, 120_000);

  /** Polls the job's last position (operator API) until `done` holds; returns it. */
  async function waitForLocation(id: string, done: (l: { lat: number; lon: number; at: string } | null) => boolean, timeoutMs = 15_000) {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const l = (await opsJob(id)).last_location;
      if (done(l) || Date.now() > until) return l;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
});
