import { cover } from './planner-cover';
import { UNCOVERED_KM, type PlanState } from './planner-state';

/**
 * Coverage, by prices: a Lagrangian relaxation of "each job at most once", as the benchmark's MIP bound finds it.
 * With a price on each job, every duty takes its best chain on its own (a longest path in pickup order, each job
 * worth 1 less its price, each km a little), and the prices move towards each job being taken once (subgradient
 * steps). Chains make plans two ways (the chains made exclusive, or each duty in turn taking its best chain of what
 * is left), completed by planner-cover.ts; the best plan seen is kept. Why prices: covering one more job often means
 * dropping one and adding two elsewhere, which moves of one job rarely find, and the relaxation is tight on our days
 * (the MIP's LP bound is within a job of the optimum). The chains are also what planner-reprice.ts prices km with.
 */

/**
 * Prices rounds: first nearly blind to km, to find the most jobs that can be covered; then with km weighing more
 * (still less than a job: kmWeight × any day's km < 1), to find a set that covers as many for less.
 */
const PRICE_ROUNDS: ReadonlyArray<{ rounds: number; kmWeight: number }> = [
  { rounds: 600, kmWeight: 1e-4 },
  { rounds: 200, kmWeight: 1e-3 },
];
/** Work (steps of the chains) the price rounds may take in all: what keeps a 300-job day well inside its 5 s. */
const PRICE_WORK = 2e8;
/** A plan is made from the prices' chains every this many rounds. */
export const PRICE_PLAN_EVERY = 5;
/** Rounds without a better bound before the steps are halved. */
const PATIENCE = 20;

/** A duty's jobs for its chains (in pickup order), each with the ones it may follow, and room to work out a chain. */
export interface ChainList {
  k: number;
  jobs: Int32Array;
  /** Positions (in `jobs`) that position `pos` may follow: `pred[start[pos]]` to `pred[start[pos + 1] - 1]`, with the km. */
  start: Int32Array;
  pred: Int32Array;
  predKm: Float64Array;
  /** `predKm` times the km's weight it was last worked out for. */
  predCost: Float64Array;
  costFor: number;
  value: Float64Array;
  from: Int32Array;
}
export type Chain = { k: number; value: number; jobs: number[] };

/**
 * The best plan the prices' chains make, left in `p`; returned with the best plan of each stage that covers as many
 * (other places to start the search for less deadhead from).
 */
export function price(p: PlanState): number[][][] {
  const b = p.b;
  const lists = b.duties.map((d, k) => {
    const jobs = b.movable.filter((i) => d.allowed[i]);
    return chainList(p, k, jobs);
  });
  // Duties alike (one base, one shift, the same jobs) have the same chain at any prices: worked out once for all.
  const firstAlike = new Map<string, number>();
  const alike = b.duties.map((d, k) => {
    const key = `${d.driver.base.lat},${d.driver.base.lon},${d.shift.starts.getTime()},${d.shift.ends.getTime()}:${lists[k].jobs.join(',')}`;
    if (!firstAlike.has(key)) firstAlike.set(key, k);
    return firstAlike.get(key)!;
  });
  const work = lists.reduce((s, l, k) => s + (alike[k] === k ? l.pred.length + l.jobs.length : 0), 0);
  const rounds = PRICE_ROUNDS.reduce((s, r) => s + r.rounds, 0);
  const scale = Math.min(1, PRICE_WORK / Math.max(1, work * rounds));
  let best = { value: p.value(), seqs: p.snapshot() };
  const stageBest: Array<typeof best> = [];
  for (const stage of PRICE_ROUNDS) {
    let mine = { value: Infinity, seqs: [] as number[][] };
    const keep = () => {
      if (p.value() < best.value - 1e-9) best = { value: p.value(), seqs: p.snapshot() };
      if (p.value() < mine.value - 1e-9) mine = { value: p.value(), seqs: p.snapshot() };
    };
    const prices = new Float64Array(p.n);
    let bound = Infinity;
    let theta = 1;
    let stale = 0;
    for (let round = 0; round < Math.round(stage.rounds * scale); round++) {
      const chains: Chain[] = [];
      for (const l of lists) chains.push({ ...(alike[l.k] === l.k ? chain(p, l, prices, stage.kmWeight, null) : chains[alike[l.k]]), k: l.k });
      const taken = new Int32Array(p.n);
      for (const c of chains) for (const i of c.jobs) taken[i]++;
      const value = chains.reduce((s, c) => s + c.value, 0) + b.movable.reduce((s, i) => s + prices[i], 0);
      // Smaller steps when the bound stops falling.
      if (value < bound - 1e-9) [bound, stale] = [value, 0];
      else if (++stale >= PATIENCE) [theta, stale] = [theta / 2, 0];
      if (round % PRICE_PLAN_EVERY === 0) {
        fromChains(p, chains);
        keep();
        inTurn(p, chains, lists, prices, stage.kmWeight, null);
        keep();
      }
      let norm = 0;
      for (const i of b.movable) if (taken[i] !== 1 && (taken[i] > 1 || prices[i] > 0)) norm += (1 - taken[i]) ** 2;
      if (!norm) break;
      const covered = b.movable.length - best.value / UNCOVERED_KM;
      const step = (theta * Math.max(1e-3, value - covered)) / norm;
      for (const i of b.movable) prices[i] = Math.max(0, prices[i] - step * (1 - taken[i]));
    }
    stageBest.push(mine);
  }
  p.restore(best.seqs);
  const most = Math.floor(best.value / UNCOVERED_KM);
  const others = stageBest.filter((x) => Math.floor(x.value / UNCOVERED_KM) === most && x.value > best.value + 1e-9);
  return [best.seqs, ...others.map((x) => x.seqs)];
}

/** The chain list of duty `k` over `jobs` (ascending). */
export function chainList(p: PlanState, k: number, jobs: readonly number[]): ChainList {
  const start = new Int32Array(jobs.length + 1);
  const pred: number[] = [];
  const predKm: number[] = [];
  for (let pos = 0; pos < jobs.length; pos++) {
    start[pos] = pred.length;
    for (let q = 0; q < pos; q++) {
      if (!p.follows(jobs[q], jobs[pos])) continue;
      pred.push(q);
      predKm.push(p.gap(jobs[q], jobs[pos]));
    }
  }
  start[jobs.length] = pred.length;
  const n = jobs.length;
  return {
    k,
    jobs: Int32Array.from(jobs),
    start,
    pred: Int32Array.from(pred),
    predKm: Float64Array.from(predKm),
    predCost: new Float64Array(pred.length),
    costFor: NaN,
    value: new Float64Array(n),
    from: new Int32Array(n),
  };
}

/**
 * The duty's best chain on its own at these prices (each job worth 1 less its price, each km `kmWeight`): jobs in
 * pickup order, out from the base and back; without the jobs `skip` marks (≥ 0), when given.
 */
export function chain(p: PlanState, l: ChainList, prices: Float64Array, kmWeight: number, skip: Int32Array | null): { value: number; jobs: number[] } {
  const d = p.b.duties[l.k];
  const { jobs, start, pred, predCost, value, from } = l;
  if (l.costFor !== kmWeight) {
    for (let e = 0; e < pred.length; e++) predCost[e] = kmWeight * l.predKm[e];
    l.costFor = kmWeight;
  }
  let top = 0;
  let end = -1;
  for (let pos = 0; pos < jobs.length; pos++) {
    const i = jobs[pos];
    from[pos] = -1;
    if (skip && skip[i] >= 0) {
      value[pos] = -Infinity;
      continue;
    }
    let v = d.leaves[i] ? -kmWeight * d.outKm[i] : -Infinity;
    for (let e = start[pos]; e < start[pos + 1]; e++) {
      const q = pred[e];
      if (value[q] === -Infinity) continue;
      const w = value[q] - predCost[e];
      if (w > v) {
        v = w;
        from[pos] = q;
      }
    }
    value[pos] = v === -Infinity ? v : v + 1 - prices[i];
    const closed = d.returns[i] ? value[pos] - kmWeight * d.backKm[i] : -Infinity;
    if (closed > top) [top, end] = [closed, pos];
  }
  const out: number[] = [];
  for (let q = end; q >= 0; q = from[q]) out.unshift(jobs[q]);
  return { value: top, jobs: out };
}

/** A plan from chains: the most valuable first, each without the jobs already taken; then the rest placed. */
export function fromChains(p: PlanState, chains: readonly Chain[]): void {
  const b = p.b;
  p.restore(b.duties.map((d) => d.seq.filter((i) => b.fixed[i])));
  for (const { k, jobs } of [...chains].sort((x, y) => y.value - x.value || x.k - y.k)) {
    for (const i of jobs) {
      const place = p.dutyOf[i] < 0 ? p.placeIn(k, i) : null;
      if (place) p.insert(k, place.pos, i);
    }
  }
  complete(p);
}

/**
 * A plan from the prices, duty by duty in the order of their chains' worth: each takes its best chain among the
 * jobs not yet taken (nor marked in `outside`, when given); then the rest placed.
 */
export function inTurn(
  p: PlanState,
  chains: readonly Chain[],
  lists: readonly ChainList[],
  prices: Float64Array,
  kmWeight: number,
  outside: Int32Array | null,
): void {
  const b = p.b;
  p.restore(b.duties.map((d) => d.seq.filter((i) => b.fixed[i])));
  const skip = outside ? Int32Array.from(outside) : new Int32Array(p.n).fill(-1);
  for (const { k } of [...chains].sort((x, y) => y.value - x.value || x.k - y.k)) {
    for (const i of chain(p, lists[k], prices, kmWeight, skip).jobs) {
      const place = p.placeIn(k, i);
      if (!place) continue;
      p.insert(k, place.pos, i);
      skip[i] = 0;
    }
  }
  complete(p);
}

/** The jobs left out, each where it costs least, then by chains of moves. */
function complete(p: PlanState): void {
  for (const i of p.b.movable) if (p.dutyOf[i] < 0) p.insertBest(i, p.b.candidates[i]);
  cover(p);
  p.log.length = 0;
}
