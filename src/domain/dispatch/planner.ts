import { boardOf } from './planner-board';
import { construct } from './planner-cover';
import { describe } from './planner-describe';
import { price } from './planner-pricing';
import { repriceKm } from './planner-reprice';
import { improve } from './planner-ruin';
import { PlanState } from './planner-state';
import { byPickup, type DayPlan, type PlanDriver, type PlanJob } from './planner-types';

export { vehicleFits, type DayPlan, type PlanDriver, type PlanJob, type PlanVehicle, type Proposal, type UnassignedReason } from './planner-types';

/**
 * Plans a day: which driver, in which vehicle, takes each job. Pure: it reads what it is given and proposes (the
 * same day always gets the same plan).
 *
 * Hard rules: the vehicle's class is at least the class sold and its seats, luggage and children's seats fit; the
 * driver is in shift from leaving the base to returning to it; between two jobs there is the drive plus the margin
 * (travel.ts); a driver drives one vehicle all day (their usual one, else one of the spare vehicles).
 * Objective, in order: cover as many jobs as possible, then the least deadhead (empty km: base to the first pickup,
 * between jobs, back to base), then the fewest changes to existing assignments, then even work between drivers.
 *
 * Method (docs/architecture.md, measured by `npm run bench:dispatch` against a MIP's optimum): each job has one place
 * in a driver's shift, as the shift is ordered by pickup, so a plan is which shift takes which job. The steps, each
 * in a file of its own:
 *
 *   planner-types.ts     what the planner is given and answers, and `vehicleFits`;
 *   planner-board.ts     the day as tables: which job may follow which, the km, which shifts may take each job;
 *   planner-state.ts     the plan under search, its worth (uncovered, km, changes), its moves and their undoing;
 *   planner-cover.ts     the first plan (movable jobs with their current driver where they still fit, the rest where
 *                        they add the least deadhead), and chains of moves that place a job left out, as in a matching;
 *   planner-pricing.ts   coverage from prices (a Lagrangian relaxation of "each job once": each shift's best chain at
 *                        the job prices, the prices moved until each job is taken about once), whose chains make plans;
 *   planner-ruin.ts      deadhead from ruin and recreate: take out the jobs of a few shifts around one job, put them
 *                        back where each costs least with the jobs nobody took, and keep the result by simulated
 *                        annealing on (uncovered, deadhead, changes), which never gives up a covered job; run from
 *                        each of the pricing's best plans, and from
 *   planner-reprice.ts   a plan made by pricing the covered jobs for km (the same relaxation, km instead of jobs);
 *   planner-describe.ts  the plan as proposals, the jobs left out with why, and the totals.
 *
 * Fixed rounds from a fixed seed keep it a function of its input.
 */
export function planDay(jobs: readonly PlanJob[], drivers: readonly PlanDriver[]): DayPlan {
  const { board, routes, where, outside } = boardOf(jobs, drivers);
  const search = new PlanState(board);
  construct(search);
  const starts = price(search);
  // Small days, cheap to search, get more: runs again from the best plan so far, up to MIN_ROUNDS in all.
  const rounds = ROUNDS_PER_JOB * board.movable.length;
  const runs = Math.max(1, Math.floor(Math.min(MIN_ROUNDS, 400 * board.movable.length) / Math.max(1, rounds)));
  let best: { value: number; seqs: number[][] } | undefined;
  const searchFrom = (start: number[][]) => {
    search.restore(start);
    for (let run = 0; run < runs; run++) improve(search, rounds);
    if (!best || search.value() < best.value - 1e-9) best = { value: search.value(), seqs: search.snapshot() };
  };
  // From each plan the pricing found with the most jobs covered, then from the best of the km's prices for them.
  for (const start of starts) searchFrom(start);
  search.restore(best!.seqs);
  const repriced = repriceKm(search);
  if (repriced) searchFrom(repriced);
  search.restore(best!.seqs);
  for (const d of board.duties) {
    const r = routes.get(d.driver.driverId)!;
    for (const i of d.seq) {
      r.jobs.push(board.jobs[i]);
      where.set(board.jobs[i].jobId, d.driver.driverId);
    }
  }
  for (const r of routes.values()) r.jobs.sort(byPickup);
  return describe(jobs, drivers, routes, where, outside);
}

/** Rounds of ruin and recreate per movable job. */
const ROUNDS_PER_JOB = 60;
/** Rounds a small day gets in all (at most 400 a job), in runs of ROUNDS_PER_JOB a job. */
const MIN_ROUNDS = 20_000;
