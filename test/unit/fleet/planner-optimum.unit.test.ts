import { planDay } from '../../../src/domain/dispatch/planner';
import { makeDay } from '../../../bench/dispatch/day';
import { optimum } from '../../../bench/dispatch/optimum';
import { score } from '../../../bench/dispatch/score';

/**
 * The dispatch benchmark's claim (npm run bench:dispatch), kept cheaply: on small seeded Sri Lanka days, the planner
 * covers as many jobs as the exact optimum (a MIP through HiGHS) and its deadhead is within 2 % of it.
 */
describe('The day planner against the optimum', () => {
  it.each([
    { jobs: 24, drivers: 6, seed: 11 },
    { jobs: 24, drivers: 6, seed: 12 },
  ])('$jobs jobs, $drivers drivers, seed $seed: the most jobs covered, and deadhead within 2 % of the least', async (size) => {
    const day = makeDay(size);
    const best = await optimum(day.jobs, day.drivers, { timeLimitSec: 20 });
    expect(best.coverage.proven && best.deadheadKm.proven).toBe(true);
    const plan = planDay(day.jobs, day.drivers);
    const mine = score(day.jobs, day.drivers, new Map(plan.assignments.map((a) => [a.jobId, a.driverId])));
    expect(mine.covered).toBe(best.coverage.best);
    expect(mine.deadheadKm).toBeLessThanOrEqual(best.deadheadKm.best * 1.02 + 1e-9);
    expect(plan.totals.deadheadKm).toBeCloseTo(mine.deadheadKm, 1);
  });
});
