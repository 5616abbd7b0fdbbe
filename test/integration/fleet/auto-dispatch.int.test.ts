import { ManualClock } from '../../../src/shared/clock';
import { autoDispatchOnce, daysAhead } from '../../../src/domain/dispatch/auto-dispatch';
import { startServer } from '../../../src/server';
import { testConfig } from '../../support/test-app';
import { useTestApp } from '../../support/use-test-app';
import { productionJob } from '../../support/bookings';

const NOW = '2026-12-07T02:30:00Z'; // 08:00 in Colombo
const EVERY_DAY = [1, 2, 3, 4, 5, 6, 7];

/**
 * The automatic pass (DISPATCH_AUTO): it plans and applies the days ahead that have jobs without a driver, never
 * moves an operator's assignment, plans a day again only when something changed, and one instance at a time.
 */
describe('Automatic dispatch', () => {
  const clock = new ManualClock(NOW);
  const svc = useTestApp({ clock, partner: 'Auto Tours' });
  let negombo: string;
  let galle: string;
  let galleCar: string;
  beforeAll(async () => {
    [negombo] = await driver('Sunil Fernando', 'Negombo');
    [galle, galleCar] = await driver('Dilshan Silva', 'Galle');
  });

  async function driver(name: string, base: string): Promise<[string, string]> {
    const d = await svc.ops.driver(name);
    const car = await svc.ops.vehicle('standard_car');
    await svc.ops.call('PATCH', `/drivers/${d.driver_id}`, { body: { base: { name: base }, usual_vehicle_id: car.vehicle_id } });
    await svc.ops.call('PUT', `/drivers/${d.driver_id}/shifts`, {
      body: { weekly: EVERY_DAY.map((weekday) => ({ weekday, starts: '05:00', ends: '23:00' })) },
    });
    return [d.driver_id, car.vehicle_id];
  }
  const pass = (holder = 'instance-a', deps = svc.app.deps) =>
    autoDispatchOnce(deps, { holder, aheadHours: 24, lockHours: 6, onPlanned: (_p, _a, seconds) => svc.app.deps.metrics.observePlan(seconds) });
  const job = async (id: string) => (await svc.ops.call('GET', `/jobs/${id}`)).body;
  const plansOf = (date: string) => svc.app.db('dispatch_plans').where({ day: date }).orderBy('created_at');

  it('the days ahead run from today to the one DISPATCH_AHEAD_HOURS away (Sri Lanka dates)', () => {
    expect(daysAhead(new Date(NOW), 24)).toEqual(['2026-12-07', '2026-12-08']);
    expect(daysAhead(new Date('2026-12-07T18:00:00Z'), 6)).toEqual(['2026-12-07', '2026-12-08']); // 23:30 there
    expect(daysAhead(new Date(NOW), 1)).toEqual(['2026-12-07']);
  });

  it('when a booking arrives, then the next pass assigns it (as a plan, with the events), audits its score breakdown, and does nothing more while nothing changes', async () => {
    const airport = await productionJob(svc, '2026-12-08', '09:00', { iata: 'CMB' }, { name: 'Negombo' });
    const done = await pass();
    expect(done).toEqual([{ date: '2026-12-08', planId: expect.stringMatching(/^plan_/), applied: 1 }]);
    expect(await job(airport.job_id)).toMatchObject({ status: 'driver_assigned', assigned_by: 'plan', driver: { driver_id: negombo } });
    const events = await svc.app
      .db('webhook_events')
      .where({ type: 'booking.driver_assigned' })
      .whereRaw('payload::text like ?', [`%${airport.booking_ref}%`]);
    expect(events).toHaveLength(1);
    const audit = await svc.ops.audit({ surface: 'dispatch' });
    const planned = audit.find((a: any) => a.path === '/ops/v1/dispatch/plans')!;
    expect(planned).toMatchObject({ status: 201, request_body: { date: '2026-12-08', mode: 'fill' }, response_body: { created_by: 'auto' } });
    expect(planned.response_body.assignments).toEqual([
      expect.objectContaining({ job_id: airport.job_id, driver_id: negombo, change: 'new', score: expect.any(Number), deadhead_km_before: expect.any(Number) }),
    ]);
    expect(audit.find((a: any) => a.path.endsWith('/apply'))!.response_body).toMatchObject({ applied: [airport.job_id], skipped: [] });
    expect((await svc.ops.call('GET', '/dispatch/plans?date=2026-12-08')).body.data[0].created_by).toBe('auto');

    // Nothing new: no plan. A new booking: planned at the next pass.
    expect(await pass()).toEqual([]);
    const galleRun = await productionJob(svc, '2026-12-08', '11:00', { name: 'Galle' }, { name: 'Unawatuna' });
    expect((await pass()).map((d) => d.applied)).toEqual([1]);
    expect(await job(galleRun.job_id)).toMatchObject({ assigned_by: 'plan', driver: { driver_id: galle } });
  });

  it('when an operator assigned a job by hand, then the pass never moves it, even where another driver is nearer', async () => {
    // Galle's driver is sent to the airport by hand, where Negombo's is nearer: the pass plans around it.
    const byHand = await productionJob(svc, '2026-12-08', '15:00', { iata: 'CMB' }, { name: 'Negombo' });
    expect((await svc.ops.call('POST', `/jobs/${byHand.job_id}/assign`, { body: { driver_id: galle, vehicle_id: galleCar } })).status).toBe(200);
    const other = await productionJob(svc, '2026-12-08', '20:00', { iata: 'CMB' }, { name: 'Negombo' });
    await pass();
    expect(await job(byHand.job_id)).toMatchObject({ assigned_by: 'operator', driver: { driver_id: galle } });
    expect(await job(other.job_id)).toMatchObject({ status: 'driver_assigned', assigned_by: 'plan' });
  });

  it('when a job is assigned by hand to a driver the plan does not use, then the pass leaves it and does not plan the day again for it', async () => {
    const rizwan = await svc.ops.driver('Mohamed Rizwan'); // no base, no hours: never planned
    const van = await svc.ops.vehicle('standard_van');
    const byHand = await productionJob(svc, '2026-12-08', '08:30', { name: 'Kandy' }, { name: 'Katugastota' });
    expect((await svc.ops.call('POST', `/jobs/${byHand.job_id}/assign`, { body: { driver_id: rizwan.driver_id, vehicle_id: van.vehicle_id } })).status).toBe(
      200,
    );
    const other = await productionJob(svc, '2026-12-08', '13:00', { iata: 'CMB' }, { name: 'Negombo' });
    expect((await pass()).map((d) => d.applied)).toEqual([1]);
    expect(await job(byHand.job_id)).toMatchObject({ assigned_by: 'operator', driver: { driver_id: rizwan.driver_id } });
    expect(await job(other.job_id)).toMatchObject({ assigned_by: 'plan' });
    expect(await pass()).toEqual([]);
  });

  it('when a job cannot be covered, then the pass tries it once, says so in the metrics, and tries again when the day changes', async () => {
    const night = await productionJob(svc, '2026-12-08', '23:30', { iata: 'CMB' }, { name: 'Negombo' }); // no one works so late
    const first = await pass();
    expect(first).toHaveLength(1);
    expect((await plansOf('2026-12-08')).at(-1).result.unassigned).toEqual([{ jobId: night.job_id, reason: 'no_driver_in_shift' }]);
    expect(await pass()).toEqual([]);
    const metrics = (await svc.call('GET', '/metrics', { headers: { Authorization: `Bearer ${svc.app.operatorToken}` } })).text;
    expect(metrics).toMatch(/dispatch_jobs_unassigned\{within="48h"\} 1\b/);
    expect(metrics).toMatch(/dispatch_jobs_unassigned\{within="12h"\} 0\b/);
    expect(metrics).toMatch(/dispatch_plan_deadhead_km\{day="tomorrow"\} \d/);
    expect(metrics).toMatch(/dispatch_plan_duration_seconds_count [1-9]/);
    // Fifteen minutes on, the pass tries the day again (a driver's hours may have changed).
    clock.advance(16 * 60_000);
    expect(await pass()).toHaveLength(1);
  });

  it('when a pass fails half-way, then the next one plans the day again at once (not 15 minutes later)', async () => {
    await productionJob(svc, '2026-12-08', '19:00', { name: 'Galle' }, { name: 'Unawatuna' });
    // The clock fails when the apply asks it the time (the 4th call: the days, today, tomorrow, the apply).
    let calls = 0;
    const failing = { ...svc.app.deps, clock: { now: () => (++calls === 4 ? boom() : clock.now()) } };
    await expect(autoDispatchOnce(failing, { holder: 'instance-a', aheadHours: 24, lockHours: 6 })).rejects.toThrow('clock failed');
    expect((await plansOf('2026-12-08')).at(-1).appliedAt).toBeNull();
    expect((await pass()).map((d) => d.applied)).toEqual([1]);
  });

  it('when two instances pass at once, then only one plans the day', async () => {
    // A second instance on the same database, as a second process behind a balancer would be.
    const second = await startServer({ config: testConfig({ ...svc.app.dbEnv }), db: svc.app.db, clock, outboxWorker: false });
    try {
      await productionJob(svc, '2026-12-08', '18:00', { name: 'Galle' }, { name: 'Unawatuna' });
      const before = (await plansOf('2026-12-08')).length;
      const [a, b] = await Promise.all([pass('instance-a'), pass('instance-b', second.deps)]);
      expect(a.length + b.length).toBe(1);
      expect((await plansOf('2026-12-08')).length).toBe(before + 1);
    } finally {
      await second.stop();
    }
  });
});

function boom(): never {
  throw new Error('clock failed');
}
