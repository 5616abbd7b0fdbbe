import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/test-app';
import { operator } from '../support/fixtures';
import { client } from '../support/http';
import { launchBrowser, shotsAtBothSizes, signInToConsole, dispatcherAndViewer, textSoon, watchedPage, describeInBrowser } from '../support/browser';
import { eventually } from '../support/eventually';
import { ManualClock } from '../../src/shared/clock';

/** 13:30 in Sri Lanka on Saturday 21 November 2026. */
const NOW = '2026-11-21T08:00:00Z';
const TODAY = '2026-11-21';

/**
 * The drivers view of the operator console: the roster, and a driver's panel where a dispatcher sets the base (a
 * place the API locates, or refuses in its words), the usual vehicle, and the weekly hours and exceptions (night
 * shifts past midnight marked as such), saved whole with PUT. What the page set is what the API then holds. On the
 * board, an assignment the API refuses for the drive between jobs or the driver's hours is shown in its words.
 */
describeInBrowser('Operator console (/ops/): drivers, bases and hours', () => {
  let app: TestApp;
  let browser: Browser;
  const clock = new ManualClock('2026-11-19T12:00:00Z');
  const ops = () => operator(app.url);
  const fleet: Record<string, { vehicle_id: string }> = {};
  const people: Record<string, { driver_id: string }> = {};
  const jobs: Record<string, Record<string, any>> = {};
  let dispatcher: { token: string };
  let viewer: { token: string };

  beforeAll(async () => {
    app = await startTestApp({ clock, outboxWorker: false });
    fleet.car = await ops().vehicle('standard_car', { plate: 'CAB-4821', brand: 'Toyota', model: 'Axio', colour: 'white' });
    fleet.car2 = await ops().vehicle('standard_car', { plate: 'CBG-7781', brand: 'Toyota', model: 'Premio', colour: 'silver' });
    fleet.car3 = await ops().vehicle('standard_car', { plate: 'KX-2210', brand: 'Suzuki', model: 'Ciaz', colour: 'blue' });
    fleet.van = await ops().vehicle('standard_van', { plate: 'PH-7034', brand: 'Toyota', model: 'HiAce KDH', colour: 'silver' });
    people.sunil = await ops().driver('Sunil Fernando', '+94 77 123 4567');
    people.nimal = await ops().driver('Nimal Silva', '+94 70 456 7890');
    const partner = await ops().partnerWithKeys('Island Holidays');
    /** A production booking's job, picked up at `time` today (Sri Lanka time). */
    const booked = async (ref: string, time: string, pickup: object, dropoff: object) => {
      const call = client(app.url);
      const q = await call('POST', '/transfers/v1/quotes', {
        key: partner.liveKey,
        body: { pickup, dropoff, pickup_datetime: `${TODAY}T${time}:00+05:30`, passengers: { adults: 2, luggage: 2 } },
      });
      const offer = q.body.offers?.find((o: any) => o.vehicle_code === 'standard_car');
      if (!offer) throw new Error(`no standard_car offer for ${ref}: ${q.text}`);
      const b = await call('POST', '/transfers/v1/bookings', {
        key: partner.liveKey,
        body: {
          quote_id: q.body.quote_id,
          offer_id: offer.offer_id,
          partner_reference: ref,
          passenger: { first_name: 'Ayesha', last_name: 'Perera', phone: '+94771234567' },
          passengers: { adults: 2, luggage: 2 },
          flight_number: 'UL504',
        },
      });
      if (b.status !== 201) throw new Error(`booking ${ref}: ${b.status} ${b.text}`);
      return (await ops().jobs({ booking_ref: b.body.booking_ref }))[0];
    };
    jobs.galle = await booked('IH-301', '14:30', { iata: 'CMB' }, { name: 'Jetwing Lighthouse, Galle' });
    jobs.kandy = await booked('IH-302', '18:30', { name: 'Kandy' }, { iata: 'CMB' });
    jobs.evening = await booked('IH-303', '18:30', { iata: 'CMB' }, { name: 'Negombo' });
    clock.set(NOW);
    // Nimal drives the airport run to Galle this afternoon.
    const r = await ops().call('POST', `/jobs/${jobs.galle.job_id}/assign`, { body: { driver_id: people.nimal.driver_id, vehicle_id: fleet.car2.vehicle_id } });
    if (r.status !== 200) throw new Error(`assign ${r.status} ${r.text}`);
    ({ dispatcher, viewer } = await dispatcherAndViewer(ops()));
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  /** The page at both sizes (test-artifacts/); at a phone's width it must not scroll sideways. */
  async function shots(page: Page, name: string) {
    expect({ name, overflow: await shotsAtBothSizes(page, name) }).toEqual({ name, overflow: 0 });
  }
  const day = (page: Page, weekday: number) => page.locator(`#hours-form .week-day[data-weekday="${weekday}"]`);
  /** Sets a shift's times (the `n`th of the row). */
  async function times(row: ReturnType<Page['locator']>, starts: string, ends: string, n = 0) {
    await row.locator('input[data-part="starts"]').nth(n).fill(starts);
    await row.locator('input[data-part="ends"]').nth(n).fill(ends);
  }

  it("sets a driver's base, usual vehicle and hours from the panel, and the API holds them; a place it cannot locate and overlapping hours are refused in its words", async () => {
    const w = await watchedPage(browser);
    try {
      await signInToConsole(w.page, app.url, dispatcher.token);
      await w.page.click('#sections a[href="#drivers"]');
      await textSoon(w.page.locator('#drivers-table'), /Nimal Silva[\s\S]*Sunil Fernando/);
      await w.page.click('#drivers-table a:has-text("Sunil Fernando")');
      await textSoon(w.page.locator('#driver-detail-title'), /Sunil Fernando/);
      expect(await w.page.evaluate('document.activeElement.id')).toBe('driver-detail-title');
      await textSoon(w.page.locator('#hours-updated'), /Never set/);

      // A place the API cannot locate: its message, next to the field; nothing is set.
      const nowhere = 'Xyzzy Plughville';
      await w.page.fill('#driver-base', nowhere);
      await w.page.click('#driver-profile-save');
      const direct = await ops().call('PATCH', `/drivers/${people.sunil.driver_id}`, { body: { base: { name: nowhere } } });
      expect(direct.status).toBe(400);
      const [field] = direct.body.error.details.fields;
      await textSoon(w.page.locator('#driver-base-error'), new RegExp(`Could not locate this place: ${field.message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
      expect(await w.page.locator('#driver-base').getAttribute('aria-invalid')).toBe('true');
      expect(await w.page.evaluate('document.activeElement.id')).toBe('driver-base');

      // A base it locates, and the usual vehicle (a select of the vehicles in service).
      await w.page.fill('#driver-base', 'Katunayake airport');
      await w.page.selectOption('#driver-vehicle', fleet.car.vehicle_id);
      await w.page.click('#driver-profile-save');
      await textSoon(
        w.page.locator('#driver-profile-result'),
        /Saved: base Katunayake airport, located as Bandaranaike International Airport; usual vehicle CAB-4821\./,
      );
      await textSoon(w.page.locator('#driver-facts [data-fact="Base"]'), /^Katunayake airport → Bandaranaike International Airport \(7\.\d{5}, 79\.\d{5}\)$/);
      await textSoon(w.page.locator('#drivers-table tr', { hasText: 'Sunil Fernando' }), /Katunayake airport[\s\S]*CAB-4821/);
      expect(await w.page.locator('#driver-base-error').isVisible()).toBe(false);
      const drivers = (await ops().call('GET', '/drivers')).body.data;
      expect(drivers.find((d: any) => d.driver_id === people.sunil.driver_id)).toMatchObject({
        base: { name: 'Katunayake airport', resolved_name: 'Bandaranaike International Airport', lat: expect.any(Number), lon: expect.any(Number) },
        usual_vehicle_id: fleet.car.vehicle_id,
      });

      // The week: Monday's hours; Tuesday's start as Monday's; a night shift on Friday; Saturday mornings.
      await day(w.page, 1).locator('button.add').click();
      expect(await w.page.evaluate('document.activeElement.getAttribute("data-part")')).toBe('starts');
      await times(day(w.page, 1), '06:00', '18:00');
      await day(w.page, 2).locator('button.add').click();
      expect(await day(w.page, 2).locator('input[data-part="ends"]').inputValue()).toBe('18:00');
      // Times are typed on the 24-hour clock, tidied when the field is left ("2000" is 20:00, "6" 06:00).
      await day(w.page, 5).locator('button.add').click();
      await w.page.keyboard.press('Control+A');
      await w.page.keyboard.type('2000');
      await w.page.keyboard.press('Tab');
      await w.page.keyboard.press('Control+A');
      await w.page.keyboard.type('6');
      await w.page.keyboard.press('Tab');
      expect([
        await day(w.page, 5).locator('input[data-part="starts"]').inputValue(),
        await day(w.page, 5).locator('input[data-part="ends"]').inputValue(),
      ]).toEqual(['20:00', '06:00']);
      await textSoon(day(w.page, 5).locator('.overnight'), /overnight, until Sat 06:00/);
      expect(await day(w.page, 1).locator('.overnight').isVisible()).toBe(false);
      await day(w.page, 6).locator('button.add').click();
      await times(day(w.page, 6), '06:00', '14:00');
      // Two exceptions: Christmas off, other hours on Boxing Day.
      await w.page.click('#hours-add-exception');
      await w.page.locator('#hours-form .exception input[type="date"]').nth(0).fill('2026-12-25');
      await w.page.click('#hours-add-exception');
      const boxing = w.page.locator('#hours-form .exception').nth(1);
      await boxing.locator('input[type="date"]').fill('2026-12-26');
      await boxing.locator('select').selectOption('hours');
      await times(boxing, '10:00', '16:00');
      const unlabelled = await w.page.evaluate(
        "Array.from(document.querySelectorAll('#driver-detail input, #driver-detail select')).filter((c) => c.offsetParent !== null && !c.labels.length).map((c) => c.id)",
      );
      expect(unlabelled).toEqual([]);
      await w.page.click('#hours-save');
      await textSoon(w.page.locator('#hours-result'), /Saved: 4 weekly shifts and 2 exceptions\./);
      await textSoon(w.page.locator('#hours-updated'), /Last set 21 Nov 13:30/);
      const held = (await ops().call('GET', `/drivers/${people.sunil.driver_id}/shifts`)).body;
      expect(held).toEqual({
        driver_id: people.sunil.driver_id,
        weekly: [
          { weekday: 1, starts: '06:00', ends: '18:00' },
          { weekday: 2, starts: '06:00', ends: '18:00' },
          { weekday: 5, starts: '20:00', ends: '06:00' },
          { weekday: 6, starts: '06:00', ends: '14:00' },
        ],
        exceptions: [
          { date: '2026-12-25', off: true },
          { date: '2026-12-26', starts: '10:00', ends: '16:00' },
        ],
        updated_at: expect.any(String),
      });
      // Read back into the form as saved, the night shift marked.
      await textSoon(day(w.page, 5), /Friday[\s\S]*overnight, until Sat 06:00/);
      await w.page.evaluate('window.scrollTo(0, 0)');
      await shots(w.page, 'ops-console-driver-panel');
      await w.page.evaluate("document.getElementById('hours').scrollIntoView()");
      await shots(w.page, 'ops-console-driver-hours');

      // A second Monday shift that overlaps the first: refused whole, with the API's messages; nothing changes.
      await day(w.page, 1).locator('button.add').click();
      await times(day(w.page, 1), '17:00', '23:00', 1);
      await w.page.click('#hours-save');
      const refused = await ops().call('PUT', `/drivers/${people.sunil.driver_id}/shifts`, {
        body: { weekly: [...held.weekly, { weekday: 1, starts: '17:00', ends: '23:00' }], exceptions: held.exceptions },
      });
      expect(refused.status).toBe(400);
      const messages: string[] = refused.body.error.details.fields.map((f: any) => f.message);
      expect(messages.join(' ')).toMatch(/overlap/);
      await textSoon(w.page.locator('#hours-result'), /^Not accepted:/);
      expect(await w.page.locator('#hours-result li').allInnerTexts()).toEqual(messages);
      expect(await w.page.locator('#hours-result').getAttribute('role')).toBe('alert');
      // What was typed stays, to be put right.
      expect(await day(w.page, 1).locator('.shift').count()).toBe(2);
      expect((await ops().call('GET', `/drivers/${people.sunil.driver_id}/shifts`)).body).toEqual(held);
      await w.page.evaluate("document.getElementById('hours-result').scrollIntoView({ block: 'center' })");
      await shots(w.page, 'ops-console-driver-hours-refused');
      expect(w.outside(app.url)).toEqual([]);
      expect(w.errors.filter((e) => !e.includes('status of 400'))).toEqual([]);
    } finally {
      await w.close();
    }
  });

  it('shows a viewer the base and the hours, read only', async () => {
    const w = await watchedPage(browser);
    try {
      await signInToConsole(w.page, app.url, viewer.token);
      await w.page.goto(`${app.url}/ops/#drivers/${people.sunil.driver_id}`);
      await textSoon(w.page.locator('#driver-detail-title'), /Sunil Fernando/);
      await textSoon(
        w.page.locator('#driver-facts'),
        /Base, as given → as located\s+Katunayake airport → Bandaranaike International Airport[\s\S]*Usual vehicle\s+CAB-4821 · Toyota Axio, Standard car/i,
      );
      await textSoon(w.page.locator('#hours-week'), /Friday\s+20:00–06:00 \(overnight, until Sat 06:00\)[\s\S]*Sunday\s+off/i);
      await textSoon(w.page.locator('#hours-exceptions'), /Fri 25 Dec 2026: off[\s\S]*Sat 26 Dec 2026: 10:00–16:00/);
      for (const s of ['#driver-profile-form', '#hours-form']) expect({ s, count: await w.page.locator(s).count() }).toEqual({ s, count: 0 });
      expect(w.errors).toEqual([]);
    } finally {
      await w.close();
    }
  });

  it("shows the API's words when the board's assignment is refused for the driver's hours or the drive between jobs", async () => {
    const w = await watchedPage(browser);
    try {
      await signInToConsole(w.page, app.url, dispatcher.token);
      /** Assigns from the board's panel and returns what the API answered (from the audit log). */
      const assign = async (job: Record<string, any>, driver: string, vehicle: string) => {
        await w.page.click(`#unassigned [data-job="${job.job_id}"]`);
        await textSoon(w.page.locator('#job-title'), new RegExp(`Job ${job.job_id}`));
        await w.page.selectOption('#assign-driver', driver);
        await w.page.selectOption('#assign-vehicle', vehicle);
        await Promise.all([w.page.waitForResponse((r) => r.url().endsWith(`/jobs/${job.job_id}/assign`)), w.page.click('#assign-form button[type="submit"]')]);
        const row = await eventually('the assignment audited', async () => (await ops().audit({ path: `/ops/v1/jobs/${job.job_id}/assign` }))[0], 5_000);
        return row.response_body.error as { code: string; message: string; details: { reason: string } };
      };
      const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

      // Sunil works Saturdays 06:00–14:00: the 18:30 pickup is outside his hours.
      const outside = await assign(jobs.evening, people.sunil.driver_id, fleet.car.vehicle_id);
      expect(outside).toMatchObject({ code: 'assignment_conflict', details: { reason: 'outside_shift' } });
      await textSoon(w.page.locator('#assign-result'), new RegExp(`^Outside the driver's hours: ${escape(outside.message)}`));
      expect(await w.page.locator('#assign-result').getAttribute('role')).toBe('alert');
      // In view, under the button, without scrolling to it.
      const inView =
        "(() => { const r = document.getElementById('assign-result').getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight + 1; })()";
      expect(await w.page.evaluate(inView)).toBe(true);
      await shots(w.page, 'ops-console-assign-outside-shift');

      // Nimal is in Galle after the afternoon's airport run: Kandy at 18:30 is too far to make it.
      const far = await assign(jobs.kandy, people.nimal.driver_id, fleet.car2.vehicle_id);
      expect(far).toMatchObject({ code: 'assignment_conflict', details: { reason: 'travel_time' } });
      await textSoon(w.page.locator('#assign-result'), new RegExp(`^Not enough time between jobs: ${escape(far.message)}`));
      expect(await w.page.evaluate(inView)).toBe(true);
      await shots(w.page, 'ops-console-assign-travel-time');
      for (const j of [jobs.evening, jobs.kandy])
        expect((await ops().call('GET', `/jobs/${j.job_id}`)).body).toMatchObject({ status: 'confirmed', driver: null });
      expect(w.outside(app.url)).toEqual([]);
      expect(w.errors.filter((e) => !e.includes('status of 409'))).toEqual([]);
    } finally {
      await w.close();
    }
  });
});
