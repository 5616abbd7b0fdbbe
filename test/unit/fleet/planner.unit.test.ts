import fc from 'fast-check';
import { planDay, vehicleFits, type PlanDriver, type PlanJob } from '../../../src/domain/dispatch/planner';
import { dayOf, insideShift, minutesShort, overlap } from '../../../src/domain/fleet/travel';
import type { FleetCode } from '../../../src/domain/kernel/fleet';

const at = (local: string) => new Date(`${local}:00+05:30`);
const PLACES = {
  CMB: { lat: 7.1808, lon: 79.8841 },
  Negombo: { lat: 7.2083, lon: 79.8358 },
  Colombo: { lat: 6.9271, lon: 79.8612 },
  Kandy: { lat: 7.2906, lon: 80.6337 },
  Galle: { lat: 6.0535, lon: 80.221 },
};
type Place = keyof typeof PLACES;
const NAMES = Object.keys(PLACES) as Place[];

let n = 0;
function job(pickupAt: string, from: Place, to: Place, o: Partial<PlanJob> = {}): PlanJob {
  n += 1;
  const start = at(pickupAt);
  return {
    jobId: String(n),
    pickupAt: start,
    dropoffAt: new Date(start.getTime() + (from === to ? 20 : 90) * 60_000),
    pickup: PLACES[from],
    dropoff: PLACES[to],
    fleetCode: 'standard_car',
    party: 2,
    luggage: 1,
    seats: {},
    current: null,
    fixed: false,
    ...o,
  };
}
const driver = (id: string, base: Place, code: FleetCode = 'standard_car', equipment = {}): PlanDriver => ({
  driverId: id,
  base: PLACES[base],
  shifts: [{ starts: at('2026-12-07T05:00'), ends: at('2026-12-07T23:00') }],
  vehicle: { vehicleId: `veh_${id}`, fleetCode: code, equipment },
});

describe('The day planner', () => {
  it('gives each job to the driver whose base is nearest when both are free', () => {
    const galle = job('2026-12-07T10:00', 'Galle', 'Galle');
    const kandy = job('2026-12-07T10:00', 'Kandy', 'Kandy');
    const p = planDay([galle, kandy], [driver('k', 'Kandy'), driver('g', 'Galle')]);
    expect(p.assignments.map((a) => [a.jobId, a.driverId])).toEqual([
      [galle.jobId, 'g'],
      [kandy.jobId, 'k'],
    ]);
    expect(p.totals).toMatchObject({ jobs: 2, covered: 2 });
    expect(p.totals.deadheadKm).toBeLessThan(5);
  });

  it('covers more by moving a placed job: the only van driver is kept free for the job only a van can take', () => {
    const carJob = job('2026-12-07T09:00', 'CMB', 'Negombo');
    const vanJob = job('2026-12-07T09:00', 'CMB', 'Colombo', { fleetCode: 'standard_van', party: 6 });
    const p = planDay([carJob, vanJob], [driver('van', 'Negombo', 'standard_van'), driver('car', 'Colombo')]);
    expect(p.unassigned).toEqual([]);
    expect(p.assignments.find((a) => a.jobId === vanJob.jobId)?.driverId).toBe('van');
  });

  it('keeps a fixed assignment as it is, even on a driver the planner would not choose', () => {
    const kept = job('2026-12-07T10:00', 'Galle', 'Galle', { current: { driverId: 'k', vehicleId: 'veh_k' }, fixed: true });
    const p = planDay([kept], [driver('k', 'Kandy'), driver('g', 'Galle')]);
    expect(p.assignments).toEqual([expect.objectContaining({ jobId: kept.jobId, driverId: 'k', kept: true })]);
  });

  it('keeps, and counts as covered, a fixed assignment whose driver is not planned; its vehicle stays busy for others', () => {
    // Assigned by hand to a driver the plan does not have (no base, or no shift that day), in a vehicle that is now
    // another driver's.
    const kept = job('2026-12-07T10:00', 'Galle', 'Galle', { current: { driverId: 'gone', vehicleId: 'veh_spare' }, fixed: true });
    const same = job('2026-12-07T10:00', 'Galle', 'Galle');
    const spare = { ...driver('g', 'Galle'), vehicle: { vehicleId: 'veh_spare', fleetCode: 'standard_car' as const, equipment: {} } };
    const p = planDay([kept, same], [spare]);
    expect(p.assignments).toEqual([
      {
        jobId: kept.jobId,
        driverId: 'gone',
        vehicleId: 'veh_spare',
        deadheadKmBefore: 0,
        deadheadMinBefore: 0,
        deadheadKmAfter: 0,
        idleMin: 0,
        kept: true,
      },
    ]);
    expect(p.unassigned).toEqual([{ jobId: same.jobId, reason: 'travel_time' }]);
    expect(p.totals).toMatchObject({ jobs: 2, covered: 1, deadheadKm: 0 });
  });

  it("keeps, and counts as covered, a fixed assignment outside every shift of its driver; the driver's other jobs leave time for it", () => {
    // Before the shift (05:00), and it ends in Kandy at 06:00: the driver cannot be back in Galle for 06:30.
    const night = job('2026-12-07T04:30', 'Galle', 'Kandy', { current: { driverId: 'g', vehicleId: 'veh_g' }, fixed: true });
    const early = job('2026-12-07T06:30', 'Galle', 'Galle');
    const later = job('2026-12-07T14:00', 'Galle', 'Galle');
    const p = planDay([night, early, later], [driver('g', 'Galle')]);
    expect(p.assignments).toEqual([
      { jobId: night.jobId, driverId: 'g', vehicleId: 'veh_g', deadheadKmBefore: 0, deadheadMinBefore: 0, deadheadKmAfter: 0, idleMin: 0, kept: true },
      expect.objectContaining({ jobId: later.jobId, driverId: 'g', kept: false }),
    ]);
    expect(p.unassigned).toEqual([{ jobId: early.jobId, reason: 'travel_time' }]);
    expect(p.totals).toMatchObject({ jobs: 3, covered: 2 });
  });

  it('for any day of jobs and drivers, every proposal keeps the hard rules, and every job is proposed or unassigned once', () => {
    const jobArb = fc.record({
      hour: fc.integer({ min: 5, max: 21 }),
      minute: fc.constantFrom(0, 15, 30, 45),
      from: fc.constantFrom(...NAMES),
      to: fc.constantFrom(...NAMES),
      van: fc.boolean(),
      seat: fc.boolean(),
    });
    const driverArb = fc.record({ base: fc.constantFrom(...NAMES), van: fc.boolean(), seat: fc.boolean() });
    fc.assert(
      fc.property(fc.array(jobArb, { minLength: 1, maxLength: 14 }), fc.array(driverArb, { minLength: 1, maxLength: 5 }), (js, ds) => {
        const jobs = js.map((j) =>
          job(`2026-12-07T${String(j.hour).padStart(2, '0')}:${String(j.minute).padStart(2, '0')}`, j.from, j.to, {
            fleetCode: j.van ? 'standard_van' : 'standard_car',
            party: j.van ? 6 : 2,
            seats: j.seat ? { child_seat: 1 } : {},
          }),
        );
        const drivers = ds.map((d, i) => driver(`d${i}`, d.base, d.van ? 'standard_van' : 'standard_car', d.seat ? { child_seat: 1 } : {}));
        const p = planDay(jobs, drivers);
        const ids = [...p.assignments.map((a) => a.jobId), ...p.unassigned.map((u) => u.jobId)].sort();
        expect(ids).toEqual(jobs.map((j) => j.jobId).sort());
        for (const d of drivers) {
          const mine = p.assignments.filter((a) => a.driverId === d.driverId).map((a) => jobs.find((j) => j.jobId === a.jobId)!);
          mine.sort((a, b) => a.pickupAt.getTime() - b.pickupAt.getTime());
          for (const j of mine) expect(vehicleFits(d.vehicle!, j)).toBe('ok');
          for (let i = 1; i < mine.length; i++) {
            expect(overlap(mine[i - 1], mine[i])).toBe(false);
            expect(minutesShort(mine[i - 1], mine[i])).toBe(0);
          }
          if (mine.length) expect(insideShift(dayOf(mine, d.base), d.shifts[0])).toBe(true);
        }
        expect(p.totals.covered).toBe(p.assignments.length);
      }),
      { numRuns: 60 },
    );
  });
});
