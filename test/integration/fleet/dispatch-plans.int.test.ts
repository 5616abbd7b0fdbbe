import { ManualClock } from '../../../src/shared/clock';
import { useTestApp } from '../../support/use-test-app';
import { productionJob } from '../../support/bookings';

const NOW = '2026-11-21T08:00:00Z';
const EVERY_DAY = [1, 2, 3, 4, 5, 6, 7];

/**
 * Plans for a day: proposals under the hard rules, with their deadhead, kept for the operator to apply; applying
 * assigns each as an operator would (events included) and skips what changed since.
 */
describe('Dispatch plans', () => {
  const clock = new ManualClock(NOW);
  const svc = useTestApp({ clock, partner: 'Planned Tours', resetClock: true });
  let negombo: { driver_id: string; car: string };
  let galle: { driver_id: string; car: string };
  beforeAll(async () => {
    for (let i = 0; i < 12; i++) await svc.ops.vehicle('standard_car');
    await svc.ops.vehicle('standard_van');
    await svc.ops.vehicle('standard_car', { equipment: { child_seat: 1 } });
    negombo = await driver('Sunil Fernando', 'Negombo', '05:00', '22:00');
    galle = await driver('Dilshan Silva', 'Galle', '05:00', '22:00');
    // Not planned: one without a base, one without hours.
    await svc.ops.driver('Mohamed Rizwan');
    const noHours = await svc.ops.driver('Arun Kumar');
    await svc.ops.call('PATCH', `/drivers/${noHours.driver_id}`, { body: { base: { name: 'Colombo' } } });
  });

  async function driver(name: string, base: string, starts: string, ends: string) {
    const d = await svc.ops.driver(name);
    const car = await svc.ops.vehicle('standard_car');
    await svc.ops.call('PATCH', `/drivers/${d.driver_id}`, { body: { base: { name: base }, usual_vehicle_id: car.vehicle_id } });
    await svc.ops.call('PUT', `/drivers/${d.driver_id}/shifts`, { body: { weekly: EVERY_DAY.map((weekday) => ({ weekday, starts, ends })) } });
    return { driver_id: d.driver_id, car: car.vehicle_id };
  }

  const job = (date: string, time: string, pickup: object, dropoff: object, o: Parameters<typeof productionJob>[5] = {}) =>
    productionJob(svc, date, time, pickup, dropoff, o);

  const plan = async (date: string, mode = 'fill') => {
    const r = await svc.ops.call('POST', '/dispatch/plans', { body: { date, mode } });
    expect(r.status).toBe(201);
    return r;
  };
  const proposal = (p: any, jobId: string) => p.assignments.find((a: any) => a.job_id === jobId);

  it('when a day is planned, then each job goes to the driver nearest it, with its deadhead; the drivers not planned say why; the plan is audited and reads back', async () => {
    const fromAirport = await job('2026-12-07', '10:00', { iata: 'CMB' }, { name: 'Negombo' });
    const inGalle = await job('2026-12-07', '10:00', { name: 'Galle' }, { name: 'Unawatuna' });
    const r = await plan('2026-12-07');
    const p = r.body;
    expect(p).toMatchObject({ plan_id: expect.stringMatching(/^plan_/), date: '2026-12-07', mode: 'fill', applied_at: null, unassigned: [] });
    expect(proposal(p, fromAirport.job_id)).toMatchObject({ driver_id: negombo.driver_id, vehicle_id: negombo.car, change: 'new' });
    expect(proposal(p, inGalle.job_id)).toMatchObject({ driver_id: galle.driver_id, vehicle_id: galle.car, change: 'new' });
    // Negombo's base is some 10 km from the airport; Galle's driver starts in town.
    expect(proposal(p, fromAirport.job_id).deadhead_km_before).toBeGreaterThan(3);
    expect(proposal(p, fromAirport.job_id).deadhead_km_before).toBeLessThan(25);
    expect(proposal(p, inGalle.job_id).deadhead_km_before).toBeLessThan(3);
    for (const a of p.assignments) expect(a.score).toBeCloseTo(a.deadhead_km_before + a.deadhead_km_after, 1);
    expect(p.totals).toMatchObject({ jobs: 2, covered: 2 });
    expect(p.totals.deadhead_km).toBeCloseTo(
      p.assignments.reduce((s: number, a: any) => s + a.deadhead_km_before + a.deadhead_km_after, 0),
      0,
    );
    expect(p.drivers_not_planned.map((d: any) => d.reason).sort()).toEqual(['no_base', 'no_shift']);
    // Nothing is assigned until applied.
    expect((await svc.ops.call('GET', `/jobs/${fromAirport.job_id}`)).body.status).toBe('confirmed');
    expect((await svc.ops.call('GET', `/dispatch/plans/${p.plan_id}`)).body).toEqual(p);
    const [audited] = await svc.ops.audit({ request_id: r.headers.get('x-request-id')! });
    expect(audited.response_body.assignments).toEqual(p.assignments);
    expect((await svc.ops.call('GET', '/dispatch/plans/plan_nope')).status).toBe(404);
  });

  it('when each hard rule cannot be met, then the job is unassigned with that rule: no driver in shift, no vehicle fits, seats missing, no time to get there', async () => {
    const night = await job('2026-12-08', '23:30', { iata: 'CMB' }, { name: 'Negombo' });
    const van = await job('2026-12-08', '12:00', { iata: 'CMB' }, { name: 'Negombo' }, { vehicle: 'standard_van', adults: 6 });
    const seat = await job('2026-12-08', '14:00', { iata: 'CMB' }, { name: 'Negombo' }, { extras: [{ code: 'child_seat', quantity: 1 }] });
    const a = await job('2026-12-08', '09:00', { name: 'Galle' }, { name: 'Unawatuna' });
    const b = await job('2026-12-08', '09:00', { iata: 'CMB' }, { name: 'Negombo' });
    const kandy = await job('2026-12-08', '09:00', { name: 'Kandy' }, { name: 'Katugastota' });
    const p = (await plan('2026-12-08')).body;
    const reasons = Object.fromEntries(p.unassigned.map((u: any) => [u.job_id, u.reason]));
    expect(reasons).toEqual({
      [night.job_id]: 'no_driver_in_shift',
      [van.job_id]: 'no_vehicle_fits',
      [seat.job_id]: 'equipment_missing',
      [kandy.job_id]: 'travel_time',
    });
    expect(p.assignments.map((x: any) => x.job_id).sort()).toEqual([a.job_id, b.job_id].sort());
    expect(p.totals).toMatchObject({ jobs: 6, covered: 2 });
  });

  it('when a day already has a job assigned by hand, then fill and replan keep it as it is and plan around it', async () => {
    const byHand = await job('2026-12-09', '09:00', { iata: 'CMB' }, { name: 'Negombo' });
    // By hand, the Galle driver takes the airport job: the planner would not have, but it is the operator's call.
    expect((await svc.ops.call('POST', `/jobs/${byHand.job_id}/assign`, { body: { driver_id: galle.driver_id, vehicle_id: galle.car } })).status).toBe(200);
    const other = await job('2026-12-09', '09:00', { iata: 'CMB' }, { name: 'Colombo' });
    for (const mode of ['fill', 'replan']) {
      const p = (await plan('2026-12-09', mode)).body;
      expect(proposal(p, byHand.job_id)).toMatchObject({ driver_id: galle.driver_id, vehicle_id: galle.car, change: 'kept' });
      expect(proposal(p, other.job_id)).toMatchObject({ driver_id: negombo.driver_id, change: 'new' });
    }
  });

  it('when a plan is applied, then its jobs are assigned as by an operator (the partner sees the driver, the webhook event is queued); a job changed since is skipped, and applying again skips the rest', async () => {
    const first = await job('2026-12-10', '08:00', { iata: 'CMB' }, { name: 'Negombo' });
    const second = await job('2026-12-10', '10:00', { name: 'Galle' }, { name: 'Unawatuna' });
    const third = await job('2026-12-10', '15:00', { iata: 'CMB' }, { name: 'Negombo' });
    const p = (await plan('2026-12-10')).body;
    expect(p.assignments).toHaveLength(3);
    // Meanwhile the third booking is cancelled.
    expect((await svc.call('POST', `/transfers/v1/bookings/${third.booking_ref}/cancel`, { key: svc.partner.liveKey })).status).toBe(200);

    const r = await svc.ops.call('POST', `/dispatch/plans/${p.plan_id}/apply`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      plan_id: p.plan_id,
      applied: [first.job_id, second.job_id],
      skipped: [{ job_id: third.job_id, reason: 'changed_since_plan' }],
    });
    const booking = (await svc.call('GET', `/transfers/v1/bookings/${first.booking_ref}`, { key: svc.partner.liveKey })).body;
    expect(booking).toMatchObject({ status: 'driver_assigned', driver: { name: 'Sunil Fernando' } });
    const events = await svc.app
      .db('webhook_events')
      .where({ type: 'booking.driver_assigned' })
      .whereRaw(`payload::text like ?`, [`%${first.booking_ref}%`]);
    expect(events).toHaveLength(1);
    expect((await svc.ops.call('GET', `/jobs/${second.job_id}`)).body).toMatchObject({ status: 'driver_assigned', driver: { driver_id: galle.driver_id } });
    expect((await svc.ops.call('GET', `/dispatch/plans/${p.plan_id}`)).body.applied_at).toBe(NOW.replace('Z', '.000Z'));

    const again = await svc.ops.call('POST', `/dispatch/plans/${p.plan_id}/apply`);
    expect(again.body.applied).toEqual([]);
    expect(again.body.skipped.map((s: any) => s.reason)).toEqual(['already_applied', 'already_applied', 'changed_since_plan']);
    // A new fill plan of the day keeps what the first applied.
    const next = (await plan('2026-12-10')).body;
    expect(next.assignments.map((a: any) => a.change)).toEqual(['kept', 'kept']);
  });

  it('when the board applies one proposal, then only that job is assigned (marked as by a plan); the day lists its plans newest first', async () => {
    const one = await job('2026-12-11', '08:00', { iata: 'CMB' }, { name: 'Negombo' });
    const two = await job('2026-12-11', '11:00', { name: 'Galle' }, { name: 'Unawatuna' });
    const p = (await plan('2026-12-11')).body;
    const listed = await svc.ops.call('GET', '/dispatch/plans?date=2026-12-11');
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((x: any) => [x.plan_id, x.created_by])).toEqual([[p.plan_id, 'bootstrap']]);
    expect((await svc.ops.call('GET', '/dispatch/plans?date=2026-12-12')).body.data).toEqual([]);

    const r = await svc.ops.call('POST', `/dispatch/plans/${p.plan_id}/apply`, { body: { job_ids: [one.job_id, 'job_elsewhere'] } });
    expect(r.body).toEqual({ plan_id: p.plan_id, applied: [one.job_id], skipped: [{ job_id: 'job_elsewhere', reason: 'not_in_plan' }] });
    expect((await svc.ops.call('GET', `/jobs/${one.job_id}`)).body).toMatchObject({ status: 'driver_assigned', assigned_by: 'plan' });
    expect((await svc.ops.call('GET', `/jobs/${two.job_id}`)).body).toMatchObject({ status: 'confirmed', assigned_by: null, driver: null });
    // "Apply all" afterwards assigns the rest.
    expect((await svc.ops.call('POST', `/dispatch/plans/${p.plan_id}/apply`)).body).toMatchObject({
      applied: [two.job_id],
      skipped: [{ job_id: one.job_id, reason: 'already_applied' }],
    });
  });

  it("when a replan swaps two drivers' jobs, then applying moves both together (one by one, each would meet the other's old job)", async () => {
    const airport = await job('2026-12-12', '10:00', { iata: 'CMB' }, { name: 'Negombo' });
    const inGalle = await job('2026-12-12', '10:00', { name: 'Galle' }, { name: 'Unawatuna' });
    // A plan's earlier, poor choice: each driver sent to the other's end of the coast.
    const assign = (jobId: string, d: { driver_id: string; car: string }) =>
      svc.ops.call('POST', `/jobs/${jobId}/assign`, { body: { driver_id: d.driver_id, vehicle_id: d.car } });
    expect((await assign(airport.job_id, galle)).status).toBe(200);
    expect((await assign(inGalle.job_id, negombo)).status).toBe(200);
    await svc.app.db('jobs').whereIn('job_id', [airport.job_id, inGalle.job_id]).update({ assigned_by: 'plan' });

    const p = (await plan('2026-12-12', 'replan')).body;
    expect(proposal(p, airport.job_id)).toMatchObject({ driver_id: negombo.driver_id, change: 'moved' });
    expect(proposal(p, inGalle.job_id)).toMatchObject({ driver_id: galle.driver_id, change: 'moved' });
    const r = await svc.ops.call('POST', `/dispatch/plans/${p.plan_id}/apply`);
    expect(r.body).toEqual({ plan_id: p.plan_id, applied: [airport.job_id, inGalle.job_id], skipped: [] });
    expect((await svc.ops.call('GET', `/jobs/${airport.job_id}`)).body).toMatchObject({
      driver: { driver_id: negombo.driver_id },
      vehicle: { vehicle_id: negombo.car },
    });
    expect((await svc.ops.call('GET', `/jobs/${inGalle.job_id}`)).body).toMatchObject({
      driver: { driver_id: galle.driver_id },
      vehicle: { vehicle_id: galle.car },
    });
  });
});
