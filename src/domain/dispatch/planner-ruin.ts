import { duration } from './planner-types';
import type { PlanState } from './planner-state';

/**
 * Deadhead, by ruin and recreate with simulated annealing: a round takes the jobs out of a few shifts around one job
 * and puts them back, with the jobs nobody took, where each costs least; the result is kept or not by annealing on
 * the plan's worth (uncovered, km, changes: planner-state.ts), which never gives up a covered job for km. Large
 * neighbourhoods of a few shifts find what one-job moves and swaps do not (the benchmark measured both), and are
 * cheap here because a job has one place in a shift.
 */

/** The annealing's temperature (km of deadhead), hot to cold over a run. */
const HOT_KM = 30;
const COLD_KM = 0.2;

/** `rounds` rounds of ruin and recreate from `p`'s plan, annealing from hot to cold; the best plan seen is left in `p`. */
export function improve(p: PlanState, rounds: number): void {
  let current = p.value();
  let best = { value: current, seqs: p.snapshot() };
  for (let round = 0; round < rounds; round++) {
    const temperature = HOT_KM * (COLD_KM / HOT_KM) ** (round / rounds);
    recreate(p, ruin(p));
    const value = p.value();
    if (value < current - temperature * Math.log(p.random())) {
      current = value;
      if (value < best.value - 1e-9) best = { value, seqs: p.snapshot() };
    } else p.rollback(0);
    p.log.length = 0;
  }
  p.restore(best.seqs);
}

/**
 * Takes out the movable jobs, within one to four hours of a job's pickup (often an uncovered job's), of the duty
 * that has it (or one that could take it) and of one to three duties holding the jobs nearest to it.
 */
function ruin(p: PlanState): { seed: number; jobs: number[]; duties: number[] } {
  const b = p.b;
  const open = b.movable.filter((i) => p.dutyOf[i] < 0 && b.candidates[i].length);
  const pickFrom = open.length && p.random() < 0.5 ? open : b.movable;
  const s = pickFrom[Math.floor(p.random() * pickFrom.length)];
  const reach = (60 + p.random() * 180) * 60_000;
  const at = b.jobs[s].pickupAt.getTime();
  const duties = new Set<number>();
  const own = b.candidates[s];
  if (p.dutyOf[s] >= 0) duties.add(p.dutyOf[s]);
  else if (own.length) duties.add(own[Math.floor(p.random() * own.length)]);
  const want = duties.size + 1 + Math.floor(p.random() * 3);
  for (const j of b.near[s]) {
    if (duties.size >= want) break;
    if (p.dutyOf[j] >= 0) duties.add(p.dutyOf[j]);
  }
  const jobs: number[] = [];
  for (const k of duties) {
    const d = b.duties[k];
    for (let pos = d.seq.length - 1; pos >= 0; pos--) {
      const i = d.seq[pos];
      if (b.fixed[i] || Math.abs(b.jobs[i].pickupAt.getTime() - at) > reach || !p.removable(d, pos)) continue;
      p.remove(k, pos);
      jobs.push(i);
    }
  }
  return { seed: s, jobs, duties: [...duties] };
}

/**
 * Puts back the jobs taken out (anywhere) and tries the uncovered ones (in the duties that now have room), in one
 * of four orders drawn at random, each where it costs least. An uncovered job the ruin was about goes first: it
 * takes the room made for it, whoever is left out.
 */
function recreate(p: PlanState, ruined: { seed: number; jobs: number[]; duties: number[] }): void {
  const b = p.b;
  const taken = new Set(ruined.jobs);
  const waiting = b.movable.filter((i) => p.dutyOf[i] < 0);
  const order = p.random();
  if (order < 0.25) shuffle(waiting, p.random);
  else if (order < 0.5) waiting.sort((x, y) => x - y);
  else if (order < 0.75) waiting.sort((x, y) => duration(b.jobs[x]) - duration(b.jobs[y]) || x - y);
  else waiting.sort((x, y) => b.candidates[x].length - b.candidates[y].length || x - y);
  if (!taken.has(ruined.seed) && waiting.includes(ruined.seed)) waiting.unshift(...waiting.splice(waiting.indexOf(ruined.seed), 1));
  for (const i of waiting) p.insertBest(i, taken.has(i) || i === ruined.seed ? b.candidates[i] : ruined.duties, true);
}

function shuffle<T>(xs: T[], random: () => number): void {
  for (let i = xs.length - 1; i > 0; i--) {
    const k = Math.floor(random() * (i + 1));
    [xs[i], xs[k]] = [xs[k], xs[i]];
  }
}
