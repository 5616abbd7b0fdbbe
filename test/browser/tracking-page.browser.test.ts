import type { Browser } from 'playwright-core';
import { ManualClock } from '../../src/shared/clock';
import { PHONE, DESKTOP, launchBrowser, screenshot, watchedPage, describeInBrowser } from '../support/browser';
import { quoteAndBook } from '../support/bookings';
import { useTestApp } from '../support/use-test-app';

/** 1 December, 09:30 in Sri Lanka: the arrival's booked pickup. */
const PICKUP = Date.parse('2026-12-01T04:00:00Z');
const at = (minutes: number) => new Date(PICKUP + minutes * 60_000).toISOString();

/**
 * The passenger's tracking link in headless Chromium at phone size (and desktop), against the service: an unknown
 * link is a plain 404; before tracking starts the page shows the pickup and when it starts; live, the driver's first
 * name, car and plate, the moved pickup of a late flight, the car on the map with an ETA; an hour after the ride it
 * is gone (410). Nothing is fetched from outside the service and the page runs no script.
 */
describeInBrowser('Passenger tracking page (/t/{token}) in a browser', () => {
  const clock = new ManualClock('2026-11-21T08:00:00Z');
  const svc = useTestApp({ clock, outboxWorker: false, partner: 'Island Holidays' });
  let browser: Browser;
  let url: string;
  let ref: string;
  let jobId: string;
  let token: string;

  beforeAll(async () => {
    browser = await launchBrowser();
    const vehicle = await svc.ops.vehicle('standard_car', { plate: 'CAB-4521', brand: 'Toyota', model: 'Prius', colour: 'Silver' });
    const driver = await svc.ops.driver('Nimal Perera', '+94771112233');
    const { booking } = await quoteAndBook(svc.call, svc.partner.liveKey, { reference: 'IH-301' });
    ref = booking.booking_ref;
    url = booking.tracking_url;
    const [job] = await svc.ops.jobs({ booking_ref: ref });
    expect((await svc.ops.call('POST', `/jobs/${job.job_id}/assign`, { body: { driver_id: driver.driver_id, vehicle_id: vehicle.vehicle_id } })).status).toBe(
      200,
    );
    // The flight is 40 minutes late (as the poller would have found it): the pickup moves to 10:10.
    await svc.app.db.raw(`update bookings set flight = ?::jsonb, pickup_estimated_at = ? where booking_ref = ?`, [
      JSON.stringify({ number: 'UL504', status: 'delayed', scheduled_arrival: at(0), estimated_arrival: at(40) }),
      at(40),
      ref,
    ]);
    await svc.app.db.raw(
      `update jobs set pickup_at = pickup_at + interval '40 minutes', ends_at = ends_at + interval '40 minutes', pickup_shift_min = 40 where job_id = ?`,
      [job.job_id],
    );
    jobId = job.job_id;
    token = (await svc.ops.driverToken(driver.driver_id)).token;
  });
  afterAll(() => browser?.close());

  it('when the traveller opens the link, then 404 for a wrong one, the pickup before tracking starts, the live ride, and 410 after', async () => {
    const origin = new URL(svc.app.url).origin;
    const path = new URL(url).pathname;
    const phone = await watchedPage(browser, PHONE);
    const { page } = phone;

    const wrong = await page.goto(`${svc.app.url}/t/AAAAAAAAAAAAAAAAAAAAAAAA`);
    expect(wrong!.status()).toBe(404);
    expect(await page.textContent('body')).toContain('This tracking link does not exist.');

    // A week before: what is booked, and when tracking starts (2 hours before the moved pickup).
    const upcoming = await page.goto(`${svc.app.url}${path}`);
    expect(upcoming!.status()).toBe(200);
    const early = await page.textContent('body');
    expect(early).toContain('Live tracking starts at Tue 1 Dec, 08:10');
    expect(early).not.toContain('CAB-4521');
    expect(early).not.toContain('on the way');
    await screenshot(page, 'tracking-upcoming-phone', true);

    // On the way (the driver set off from the app, 4 km north of the airport): the driver, the car, the moved
    // pickup, the map with the car, an ETA.
    clock.set(at(-30));
    expect((await svc.call('POST', `/driver/v1/jobs/${jobId}/status`, { key: token, body: { status: 'en_route' } })).status).toBe(200);
    expect((await svc.call('POST', '/driver/v1/location', { key: token, body: { lat: 7.21, lon: 79.885 } })).status).toBe(202);
    clock.set(at(-25));
    await page.goto(`${svc.app.url}${path}`);
    const live = await page.textContent('body');
    expect(live).toContain('Your driver is on the way');
    expect(live).toContain('Nimal');
    expect(live).not.toContain('Perera');
    expect(live).toContain('CAB-4521');
    expect(live).toContain('Toyota Prius');
    expect(live).not.toContain('(Silver)');
    expect(live).toContain('Silver');
    expect(live).toMatch(/Moved to\s*10:10/);
    expect(live).toMatch(/min away/);
    expect(await page.locator('svg[role="img"]').count()).toBeGreaterThan(0);
    expect(await page.locator('script').count()).toBe(0);
    await screenshot(page, 'tracking-live-phone', true);
    const desk = await watchedPage(browser, DESKTOP);
    await desk.page.goto(`${svc.app.url}${path}`);
    await screenshot(desk.page, 'tracking-live-desktop', true);
    await desk.close();

    // The ride ends at 10:50; an hour later the link is gone.
    clock.set(at(80));
    expect((await svc.ops.call('POST', `/jobs/${(await svc.ops.jobs({ booking_ref: ref }))[0].job_id}/complete`)).status).toBe(200);
    clock.set(at(141));
    const gone = await page.goto(`${svc.app.url}${path}`);
    expect(gone!.status()).toBe(410);
    expect(await page.textContent('body')).toMatch(/expired/i);
    await screenshot(page, 'tracking-gone-phone', true);

    expect(phone.outside(origin)).toEqual([]);
    // The browser reports the 404 and 410 it was sent to (and the plain 404's favicon); nothing else went wrong.
    expect(phone.errors.filter((e) => !/status of (404|410)/.test(e))).toEqual([]);
    await phone.close();
  });
});
