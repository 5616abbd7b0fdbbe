import { chain, chainList, fromChains, inTurn, PRICE_PLAN_EVERY } from './planner-pricing';
import type { PlanState } from './planner-state';

/**
 * Deadhead, by prices, once coverage is found: which jobs are covered decides much of the deadhead (two plans may
 * cover as many jobs, different ones, for different km), and so does which driver takes which run of jobs; ruin and
 * recreate, which moves a few jobs at a time where each costs least, can stay on the wrong ones. So the jobs `p`'s
 * plan covers are priced as coverage was (planner-pricing.ts), now for km: each duty takes its best chain of those
 * jobs on its own (each job worth its price, each km 1), the prices moved until each is taken once (a Lagrangian
 * relaxation of the least km that covers them, whose value bounds it). The chains make plans that start from where
 * the km are low; the best that covers as many jobs as `p`'s plan is another start for ruin and recreate.
 */

/** Rounds of pricing, and the work (steps of the chains) they may take in all, for the 5 s of a 300-job day. */
const ROUNDS = 500;
const WORK = 1e7;

/** The best plan the chains make that covers as many as `p`'s plan (`p` is left as it was); null if none does. */
export function repriceKm(p: PlanState): number[][] | null {
  const b = p.b;
  const keep = p.snapshot();
  const most = p.uncovered;
  const upper = p.km;
  const covered = b.movable.filter((i) => p.dutyOf[i] >= 0);
  // The jobs the chains may take: -1; the others 0.
  const outside = new Int32Array(p.n);
  for (const i of covered) outside[i] = -1;
  const lists = b.duties.map((d, k) => {
    const jobs = covered.filter((i) => d.allowed[i]);
    return chainList(p, k, jobs);
  });
  const work = lists.reduce((s, l) => s + l.pred.length + l.jobs.length, 0);
  // A job is worth 1 less its price to a chain: its worth starts at twice the average km a job costs now.
  const prices = new Float64Array(p.n);
  for (const i of covered) prices[i] = 1 - (2 * upper) / Math.max(1, covered.length);
  let best: { value: number; seqs: number[][] } | null = null;
  let [bound, theta, stale] = [-Infinity, 1, 0];
  for (let round = 0; round < Math.min(ROUNDS, Math.floor(WORK / Math.max(1, work))); round++) {
    const chains = lists.map((l) => ({ k: l.k, ...chain(p, l, prices, 1, outside) }));
    const taken = new Int32Array(p.n);
    for (const c of chains) for (const i of c.jobs) taken[i]++;
    let value = -chains.reduce((s, c) => s + c.value, 0);
    for (const i of covered) value += 1 - prices[i];
    // Smaller steps when the bound (the least km, at most) stops rising.
    if (value > bound + 1e-9) [bound, stale] = [value, 0];
    else if (++stale >= 10) [theta, stale] = [theta / 2, 0];
    if (round % PRICE_PLAN_EVERY === 0) {
      for (const make of [() => fromChains(p, chains), () => inTurn(p, chains, lists, prices, 1, outside)]) {
        make();
        if (p.uncovered <= most && (!best || p.value() < best.value - 1e-9)) best = { value: p.value(), seqs: p.snapshot() };
      }
    }
    let norm = 0;
    for (const i of covered) norm += (1 - taken[i]) ** 2;
    if (!norm) break;
    const step = (theta * Math.max(1e-3, upper - value)) / norm;
    // A job taken by no chain gets more worth (a lower price), one taken by several less.
    for (const i of covered) prices[i] -= step * (1 - taken[i]);
  }
  p.restore(keep);
  return best && best.seqs;
}
