import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/test-app';
import { operator } from '../support/fixtures';
import { client } from '../support/http';
import { productionJob } from '../support/bookings';
import {
  launchBrowser,
  PHONE,
  screenshot,
  signInToConsole,
  dispatcherAndViewer,
  textSoon,
  visibleSoon,
  watchedPage,
  describeInBrowser,
} from '../support/browser';
import { ManualClock } from '../../src/shared/clock';

/** 13:30 in Sri Lanka on Saturday 21 November 2026. */
const NOW = '2026-11-21T08:00:00Z';
const TODAY = '2026-11-21';
const TOMORROW = '2026-11-22';
const EVERY_DAY = [1, 2, 3, 4, 5, 6, 7];
/** The screen sizes of this file's screenshots. */
const DESKTOP = { width: 1366, height: 900 };

/**
 * The dispatch board plans the day: "Plan the day" asks the API for a `fill` plan; its proposals are drawn as ghost
 * blocks (dashed, not jobs) on the proposed vehicle's row, each with "Apply", beside the plan's totals, "Apply all"
 * and the jobs it could not cover in words. Applied, they are the vehicle's jobs, tagged as assigned by a plan; a
 * proposal whose job changed meanwhile is reported skipped, with why. A viewer sees the proposals without the buttons.
 * And a job's window runs across midnight: the evening's airport run is drawn to the day's edge, and the next day's
 * board draws it from 00:00 to its drop-off.
 */
describeInBrowser('Operator console (/ops/): the day planned on the board, and windows across midnight', () => {
  let app: TestApp;
  let browser: Browser;
  const clock = new ManualClock('2026-11-19T12:00:00Z');
  const ops = () => operator(app.url);
  const fleet: Record<string, { vehicle_id: string }> = {};
  const people: Record<string, { driver_id: string }> = {};
  const jobs: Record<string, Record<string, any> & { job_id: string }> = {};
  /** The plates, by vehicle id. */
  const plates: Record<string, string> = {};
  let dispatcher: { token: string };
  let viewer: { token: string };

  beforeAll(async () => {
    app = await startTestApp({ clock, outboxWorker: false });
    fleet.sunil = await ops().vehicle('standard_car', { plate: 'CAB-4821', brand: 'Toyota', model: 'Axio', colour: 'white' });
    fleet.nimal = await ops().vehicle('standard_car', { plate: 'CBG-7781', brand: 'Toyota', model: 'Premio', colour: 'silver' });
    fleet.spare = await ops().vehicle('standard_car', { plate: 'KX-2210', brand: 'Suzuki', model: 'Ciaz', colour: 'blue' });
    fleet.van = await ops().vehicle('standard_van', { plate: 'PH-7034', brand: 'Toyota', model: 'HiAce KDH', colour: 'silver' });
    for (const [key, plate] of Object.entries({ sunil: 'CAB-4821', nimal: 'CBG-7781', spare: 'KX-2210', van: 'PH-7034' }))
      plates[fleet[key].vehicle_id] = plate;
    // Two drivers the planner plans (a base, a usual car, hours every day); one it does not (no base, no hours).
    for (const [key, name, base] of [
      ['sunil', 'Sunil Fernando', 'Negombo'],
      ['nimal', 'Nimal Silva', 'Galle'],
    ] as const) {
      people[key] = await ops().driver(name, '+94 77 123 4567');
      const patched = await ops().call('PATCH', `/drivers/${people[key].driver_id}`, {
        body: { base: { name: base }, usual_vehicle_id: fleet[key].vehicle_id },
      });
      if (patched.status !== 200) throw new Error(`base ${patched.status} ${patched.text}`);
      const shifts = await ops().call('PUT', `/drivers/${people[key].driver_id}/shifts`, {
        body: { weekly: EVERY_DAY.map((weekday) => ({ weekday, starts: '05:00', ends: '22:00' })) },
      });
      if (shifts.status !== 200) throw new Error(`shifts ${shifts.status} ${shifts.text}`);
    }
    people.chaminda = await ops().driver('Chaminda Perera', '+94 76 345 6789');

    // Today's production jobs, booked two days ahead.
    const partner = await ops().partnerWithKeys('Island Holidays');
    const svc = { call: client(app.url), ops: ops(), partner };
    const job = (date: string, time: string, pickup: object, dropoff: object, o: Parameters<typeof productionJob>[5] = {}) =>
      productionJob(svc, date, time, pickup, dropoff, o);
    jobs.airport = await job(TODAY, '15:00', { iata: 'CMB' }, { name: 'Negombo' });
    jobs.galle = await job(TODAY, '16:00', { name: 'Galle' }, { name: 'Unawatuna' });
    jobs.evening = await job(TODAY, '18:30', { iata: 'CMB' }, { name: 'Cinnamon Grand, 77 Galle Road, Colombo 03' });
    // Not coverable: a van for six (no planned driver drives one), and a pickup after every shift has ended.
    jobs.van = await job(TODAY, '17:00', { iata: 'CMB' }, { name: 'Kandy' }, { vehicle: 'standard_van', adults: 6 });
    jobs.late = await job(TODAY, '23:30', { iata: 'CMB' }, { name: 'Negombo' });
    // The night's airport run to Kandy, past midnight, and a job tomorrow morning.
    jobs.night = await job(TODAY, '23:50', { iata: 'CMB' }, { name: 'Kandy' });
    jobs.tomorrow = await job(TOMORROW, '09:30', { iata: 'CMB' }, { name: 'Bentota' });
    clock.set(NOW);
    // Chaminda (no hours: any time) takes the night run, by hand.
    const r = await ops().call('POST', `/jobs/${jobs.night.job_id}/assign`, {
      body: { driver_id: people.chaminda.driver_id, vehicle_id: fleet.spare.vehicle_id },
    });
    if (r.status !== 200) throw new Error(`assign ${r.status} ${r.text}`);
    jobs.night = (await ops().call('GET', `/jobs/${jobs.night.job_id}`)).body;
    ({ dispatcher, viewer } = await dispatcherAndViewer(ops()));
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  /**
   * The page at 1366×900 and at a phone's width (390×844, the whole page), as test-artifacts/<name>-desktop.png and
   * <name>-phone.png; at a phone's width it must not scroll sideways.
   */
  async function shots(page: Page, name: string, prepare = async () => {}) {
    await page.setViewportSize(DESKTOP);
    await page.waitForTimeout(100);
    await prepare();
    await screenshot(page, `${name}-desktop`);
    await page.setViewportSize(PHONE);
    await page.waitForTimeout(100);
    await prepare();
    await screenshot(page, `${name}-phone`, true);
    const overflow = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
    await page.setViewportSize(DESKTOP);
    expect({ name, overflow }).toEqual({ name, overflow: 0 });
  }
  const row = (page: Page, plate: string) => page.locator(`#timeline .tl-row[aria-label^="${plate},"]`);
  const job = async (id: string) => (await ops().call('GET', `/jobs/${id}`)).body;

  it('plans the day from the board: ghosts on the proposed rows, applied one and then all; the jobs are the plan’s, marked so; a skipped one says why', async () => {
    const w = await watchedPage(browser, DESKTOP);
    try {
      await signInToConsole(w.page, app.url, dispatcher.token);
      await textSoon(w.page.locator('#plan-card'), /No plan for this day yet/);
      expect(await w.page.locator('#timeline [data-ghost]').count()).toBe(0);

      // "Plan the day": a fill plan of today, as the API has it.
      await Promise.all([
        w.page.waitForResponse((r) => r.url().endsWith('/ops/v1/dispatch/plans') && r.request().method() === 'POST'),
        w.page.click('#plan-day'),
      ]);
      const [plan] = (await ops().call('GET', `/dispatch/plans?date=${TODAY}`)).body.data;
      expect(plan).toMatchObject({ date: TODAY, mode: 'fill', applied_at: null });
      const proposed = plan.assignments.filter((a: any) => a.change !== 'kept');
      expect(proposed.map((a: any) => a.job_id).sort()).toEqual([jobs.airport.job_id, jobs.galle.job_id, jobs.evening.job_id].sort());
      expect(Object.fromEntries(plan.unassigned.map((u: any) => [u.job_id, u.reason]))).toMatchObject({
        [jobs.van.job_id]: 'no_vehicle_fits',
        [jobs.late.job_id]: 'no_driver_in_shift',
      });
      // Each proposal a ghost on its vehicle's row: dashed, not a job the vehicle holds.
      for (const a of proposed) {
        const ghost = row(w.page, plates[a.vehicle_id]).locator(`[data-ghost="${a.job_id}"]`);
        await visibleSoon(ghost);
        expect(await ghost.evaluate((el) => (globalThis as any).getComputedStyle(el).borderTopStyle)).toBe('dashed');
        expect(await ghost.getAttribute('aria-label')).toMatch(
          new RegExp(`^Proposed: job ${a.job_id}, \\d\\d:\\d\\d to \\d\\d:\\d\\d, .+, .+ with ${plates[a.vehicle_id]}`),
        );
        expect(await w.page.locator(`#timeline [data-job="${a.job_id}"]`).count()).toBe(0);
      }
      expect(await w.page.locator('#timeline [data-ghost]').count()).toBe(3);
      await textSoon(w.page.locator('#plan-result'), /^Planned: 3 proposals to apply/);
      const t = plan.totals;
      await textSoon(w.page.locator('#plan-totals'), new RegExp(`^Covers ${t.covered} of ${t.jobs} jobs · ${t.deadhead_km.toFixed(1)} km empty`));
      await textSoon(w.page.locator('#plan-open'), /^3 proposals to apply/);
      await textSoon(w.page.locator('#plan-apply-all'), /^Apply all 3$/);
      // The jobs it could not cover, in words; the one driver it left out, with why.
      await textSoon(
        w.page.locator(`#plan-uncovered [data-job-reason="${jobs.van.job_id}"]`),
        /17:00 CMB → Kandy: no vehicle the planned drivers drive fits the party\./,
      );
      await textSoon(w.page.locator(`#plan-uncovered [data-job-reason="${jobs.late.job_id}"]`), /23:30 CMB → .+: no driver with a base is in shift then\./);
      // (Only the jobs still without a driver: the night run has one, by hand.)
      expect(await w.page.locator('#plan-uncovered li').count()).toBe(2);
      await textSoon(w.page.locator('#plan-card .plan-left-out'), /Not planned: Chaminda Perera \(no base set\)/);
      // The unassigned list says what is proposed for each.
      await textSoon(w.page.locator(`#unassigned [data-job="${jobs.airport.job_id}"]`), /Proposed: Sunil Fernando with CAB-4821/);
      await textSoon(
        w.page.locator(`#unassigned [data-job="${jobs.van.job_id}"]`),
        /Not covered by the plan: no vehicle the planned drivers drive fits the party/,
      );
      const unlabelled = await w.page.evaluate(
        "Array.from(document.querySelectorAll('#view-board button')).filter((b) => b.offsetParent !== null && !(b.getAttribute('aria-label') || b.textContent || '').trim()).length",
      );
      expect(unlabelled).toBe(0);
      await w.page.evaluate('window.scrollTo(0, 0)');
      await shots(w.page, 'ops-console-dispatch-plan');

      // A viewer sees the same proposals, without a button to act on them.
      const v = await watchedPage(browser, DESKTOP);
      try {
        await signInToConsole(v.page, app.url, viewer.token);
        await visibleSoon(v.page.locator(`#timeline [data-ghost="${jobs.airport.job_id}"]`));
        expect(await v.page.locator('#timeline [data-ghost]').count()).toBe(3);
        await textSoon(v.page.locator('#plan-totals'), /^Covers /);
        for (const s of ['#plan-day', '#plan-apply-all', '.ghost-apply']) expect({ s, count: await v.page.locator(s).count() }).toEqual({ s, count: 0 });
        await shots(v.page, 'ops-console-dispatch-plan-viewer');
        expect(v.errors).toEqual([]);
      } finally {
        await v.close();
      }

      // Apply one: the airport run is Sunil's, a job of his car now, marked as the plan's; the focus is on it.
      const first = proposed.find((a: any) => a.job_id === jobs.airport.job_id);
      await w.page.click(`#timeline [data-apply="${jobs.airport.job_id}"]`);
      const firstBlock = row(w.page, plates[first.vehicle_id]).locator(`[data-job="${jobs.airport.job_id}"]`);
      await visibleSoon(firstBlock);
      await textSoon(w.page.locator('#plan-result'), new RegExp(`^Applied: job ${jobs.airport.job_id} to Sunil Fernando with CAB-4821\\.$`));
      expect(await w.page.locator(`#timeline [data-ghost="${jobs.airport.job_id}"]`).count()).toBe(0);
      expect(await firstBlock.locator('.by-plan').textContent()).toBe('plan');
      expect(await firstBlock.getAttribute('aria-label')).toMatch(/driver Sunil Fernando, assigned by a plan/);
      expect(await w.page.evaluate('document.activeElement.getAttribute("data-job")')).toBe(jobs.airport.job_id);
      expect(await job(jobs.airport.job_id)).toMatchObject({ status: 'driver_assigned', assigned_by: 'plan', driver: { driver_id: first.driver_id } });
      await textSoon(w.page.locator('#plan-apply-all'), /^Apply all 2$/);

      // Elsewhere, an operator gives the evening job to Chaminda by hand; "Apply all" then skips it, and says why.
      const byHand = await ops().call('POST', `/jobs/${jobs.evening.job_id}/assign`, {
        body: { driver_id: people.chaminda.driver_id, vehicle_id: fleet.spare.vehicle_id },
      });
      expect(byHand.status).toBe(200);
      await w.page.click('#plan-apply-all');
      await textSoon(
        w.page.locator('#plan-result'),
        new RegExp(
          `^Applied: job ${jobs.galle.job_id} to Nimal Silva with CBG-7781\\. Not applied:\\s+Job ${jobs.evening.job_id}: the job changed since the plan`,
        ),
      );
      expect(await w.page.locator('#plan-result li').allInnerTexts()).toEqual([
        `Job ${jobs.evening.job_id}: the job changed since the plan (assigned, cancelled or moved): plan again.`,
      ]);
      expect(await w.page.locator('#plan-result').getAttribute('role')).toBe('alert');
      expect(await job(jobs.galle.job_id)).toMatchObject({ status: 'driver_assigned', assigned_by: 'plan', driver: { driver_id: people.nimal.driver_id } });
      expect(await job(jobs.evening.job_id)).toMatchObject({
        status: 'driver_assigned',
        assigned_by: 'operator',
        driver: { driver_id: people.chaminda.driver_id },
      });

      // On the board: no ghost left; the plan's jobs are real and marked, the operators' are not.
      await w.page.locator('#timeline [data-ghost]').first().waitFor({ state: 'detached' });
      await textSoon(w.page.locator('#plan-open'), /^Nothing left to apply/);
      expect(await w.page.locator('#plan-apply-all').count()).toBe(0);
      for (const [id, plate, byPlan] of [
        [jobs.airport.job_id, 'CAB-4821', true],
        [jobs.galle.job_id, 'CBG-7781', true],
        [jobs.evening.job_id, 'KX-2210', false],
        [jobs.night.job_id, 'KX-2210', false],
      ] as const) {
        const block = row(w.page, plate).locator(`.tl-job[data-job="${id}"]`);
        await visibleSoon(block);
        expect({ id, tagged: await block.locator('.by-plan').count() }).toEqual({ id, tagged: byPlan ? 1 : 0 });
      }
      await w.page.evaluate('window.scrollTo(0, 0)');
      await shots(w.page, 'ops-console-dispatch-applied');
      expect(w.outside(app.url)).toEqual([]);
      expect(w.errors).toEqual([]);
    } finally {
      await w.close();
    }
  });

  it("draws a job across midnight: to the day's edge, marked as going on; and on the next day's board from 00:00 to its drop-off", async () => {
    const night = jobs.night;
    const pickup = Date.parse(night.pickup_estimated_at ?? night.pickup_at);
    const dropoff = Date.parse(night.dropoff_at);
    const midnight = Date.parse(`${TOMORROW}T00:00:00+05:30`);
    expect(pickup).toBeLessThan(midnight);
    expect(dropoff - midnight).toBeGreaterThan(3 * 3600_000);
    const w = await watchedPage(browser, DESKTOP);
    /** The block's box and its row's, and how many hours the row spans (from the hours' labels). */
    const measure = async () => {
      const block = w.page.locator(`#timeline .tl-job[data-job="${night.job_id}"]`);
      await visibleSoon(block);
      const box = (await block.boundingBox())!;
      const track = (await block.locator('xpath=..').boundingBox())!;
      const hours = (await w.page
        .locator('#timeline .tl-hours .tl-hour')
        .evaluateAll((els) => els.map((e) => [Number(e.textContent!.slice(0, 2)), parseFloat((e as any).style.left)]))) as Array<[number, number]>;
      // Two labels give the hours per percent of the row.
      const [[h0, p0], [h1, p1]] = hours;
      return { block, box, track, first: h0 - (p0 / (p1 - p0)) * (h1 - h0), perHour: track.width / ((100 / (p1 - p0)) * (h1 - h0)) };
    };
    try {
      await signInToConsole(w.page, app.url, dispatcher.token);
      // Today: from its pickup to the right edge, where it goes on past midnight.
      const today = await measure();
      expect(await today.block.getAttribute('class')).toContain('cut-end');
      expect(await today.block.getAttribute('aria-label')).toMatch(/\(runs past midnight\)/);
      expect(Math.abs(today.box.x + today.box.width - (today.track.x + today.track.width))).toBeLessThan(1.5);
      const start = today.track.x + ((pickup - Date.parse(`${TODAY}T00:00:00+05:30`)) / 3600_000 - today.first) * today.perHour;
      // Its pickup is where it starts (a block is at least 22 px wide, to show the arrow).
      expect(today.box.x).toBeLessThanOrEqual(Math.max(start, today.track.x + today.track.width - 22) + 1.5);
      expect(today.box.width).toBeGreaterThanOrEqual(22);
      expect(await today.block.evaluate((el) => (globalThis as any).getComputedStyle(el, '::before').content)).toBe('"›"');
      // (Scrolled to the night, on a phone.)
      await shots(w.page, 'ops-console-board-midnight-today', async () => {
        await w.page.evaluate("document.querySelector('#timeline').scrollLeft = 10000");
      });

      // Tomorrow: the evening's job holds the car from 00:00 until its drop-off.
      await w.page.click('#day-tomorrow');
      await textSoon(w.page.locator('#board-status'), /^1 job; 1 job of the evening before runs past midnight\./);
      const next = await measure();
      expect(next.first).toBe(0);
      expect(await next.block.getAttribute('class')).toContain('cut-start');
      expect(await next.block.getAttribute('aria-label')).toMatch(/\(from the evening before\)/);
      expect(Math.abs(next.box.x - next.track.x)).toBeLessThan(1.5);
      const expected = ((dropoff - midnight) / 3600_000) * next.perHour;
      expect(Math.abs(next.box.width - expected)).toBeLessThan(2);
      await textSoon(next.block, /until \d\d:\d\d · CMB → Kandy/);
      expect(await row(w.page, 'KX-2210').locator(`[data-job="${night.job_id}"]`).count()).toBe(1);
      // It is the day before's job: not in tomorrow's list; tomorrow's own job is.
      expect(await w.page.locator(`#unassigned [data-job="${night.job_id}"]`).count()).toBe(0);
      await visibleSoon(w.page.locator(`#unassigned [data-job="${jobs.tomorrow.job_id}"]`));
      await shots(w.page, 'ops-console-board-midnight-tomorrow');
      expect(w.outside(app.url)).toEqual([]);
      expect(w.errors).toEqual([]);
    } finally {
      await w.close();
    }
  });
});
