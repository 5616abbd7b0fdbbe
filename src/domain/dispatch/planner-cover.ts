import type { PlanDriver } from './planner-types';
import type { PlanState } from './planner-state';

/**
 * The first plan, and coverage by chains of moves. A replan starts each movable job with its current driver where it
 * still fits (so that an unchanged day gets an unchanged plan), the rest where they add the least. Then each job
 * left out is placed, where it can be, by the shortest chain of moves, as a matching grows: the job into a shift
 * where one job is in its way, that job into another shift where one is in its way, and so on. One-job moves rarely
 * find those; the pricing (planner-pricing.ts) completes its plans with them too.
 */

/** Jobs a covering chain may look at, from the uncovered one out. */
const CHAIN_LOOKS = 100;

/** Each movable job, in pickup order, with its current driver when it still fits there, else where it costs least. */
export function construct(p: PlanState): void {
  for (const i of p.b.movable) {
    const home = p.b.home[i];
    const own = home === null ? undefined : p.b.candidates[i].find((k) => p.b.duties[k].driver.driverId === home);
    const place = own !== undefined ? p.placeIn(own, i) : null;
    if (place) p.insert(own!, place.pos, i);
    else p.insertBest(i, p.b.candidates[i]);
  }
  cover(p);
  p.log.length = 0;
}

/** Each uncovered job that a chain can place (`augment`), until none can. */
export function cover(p: PlanState): void {
  for (let more = true; more;) {
    more = false;
    for (const i of p.b.movable) if (p.dutyOf[i] < 0 && p.b.candidates[i].length && augment(p, i)) more = true;
  }
}

/**
 * Places uncovered job `u` along the shortest chain, searched breadth first as for a matching: `u` into a duty
 * where one job is in its way, that job into another driver's duty where one job is in its way, and so on, to a
 * job that fits where it goes as things are. False, with nothing changed, when there is none.
 */
function augment(p: PlanState, u: number): boolean {
  const b = p.b;
  const ejectedBy = new Map<number, { job: number; k: number }>();
  const queue = [u];
  const seen = new Set(queue);
  for (let q = 0; q < queue.length && q < CHAIN_LOOKS; q++) {
    const x = queue[q];
    const drivers = new Set<PlanDriver>();
    for (let y = x, link = ejectedBy.get(y); link; y = link.job, link = ejectedBy.get(y)) drivers.add(b.duties[link.k].driver);
    for (const k of b.candidates[x]) {
      if (drivers.has(b.duties[k].driver)) continue;
      if (p.placeIn(k, x)) return carryOut(p, x, k, ejectedBy);
      const away = inTheWay(p, k, x);
      if (away < 0 || seen.has(away)) continue;
      seen.add(away);
      ejectedBy.set(away, { job: x, k });
      queue.push(away);
    }
  }
  return false;
}

/** Carries out a chain found by `augment`: `x` into duty `k`, then each job back along the chain into the place it frees. */
function carryOut(p: PlanState, x: number, k: number, ejectedBy: Map<number, { job: number; k: number }>): boolean {
  const mark = p.log.length;
  for (let job = x, into = k; ;) {
    const link = ejectedBy.get(job);
    if (link) p.remove(link.k, p.b.duties[link.k].seq.indexOf(job));
    const place = p.placeIn(into, job);
    if (!place) {
      p.rollback(mark);
      return false;
    }
    p.insert(into, place.pos, job);
    if (!link) return true;
    [job, into] = [link.job, link.k];
  }
}

/** The one movable job of duty `k` whose leaving would let job `i` in; -1 if there is none (or more than one). */
function inTheWay(p: PlanState, k: number, i: number): number {
  const d = p.b.duties[k];
  if (!d.allowed[i]) return -1;
  const seq = d.seq;
  let pos = 0;
  while (pos < seq.length && seq[pos] < i) pos++;
  let a = pos - 1;
  while (a >= 0 && !p.follows(seq[a], i)) a--;
  let c = pos;
  while (c < seq.length && !p.follows(i, seq[c])) c++;
  if (c - a !== 2) return -1;
  const x = seq[a + 1];
  if (p.b.fixed[x]) return -1;
  // With it gone, `i` must still fit between its new neighbours (or the base).
  if ((a < 0 && (!d.leaves[i] || !p.afterShiftBefore(d, i))) || (c >= seq.length && (!d.returns[i] || !p.beforeShiftAfter(d, i)))) return -1;
  return x;
}
