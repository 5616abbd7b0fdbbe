import { duration } from './planner-types';
import type { Board, Duty } from './planner-board';
import { seededRandom as rng } from '../../shared/random';

/**
 * The plan under search: which duty (a driver's shift, planner-board.ts) holds each job, and its worth. Every change
 * goes through `insert` and `remove`, which keep the totals (deadhead km, uncovered jobs, changes to existing
 * assignments) up to date and log what they did, so that a step that did not pay (a ruin, a chain) is undone by
 * `rollback`. The steps that search (planner-cover.ts, planner-pricing.ts, planner-ruin.ts) change the plan only
 * through these, and draw from its one seeded generator, so that a plan is a function of its day.
 */

/** An uncovered job weighs more than any day's deadhead (km), so the search never buys km with coverage. */
export const UNCOVERED_KM = 1e6;
/** The search's seed: the same day always gets the same plan. */
const SEED = 0x5eed;

export class PlanState {
  readonly n: number;
  /** Per job: the index of the duty that has it, or -1. */
  readonly dutyOf: Int32Array;
  km = 0;
  uncovered: number;
  changes = 0;
  /** What a change to an existing assignment weighs, in km. */
  readonly changeKm: number;
  readonly random = rng(SEED);
  /** Every insertion and removal since the last commit (`log.length = 0`). */
  readonly log: Array<{ k: number; pos: number; i: number; inserted: boolean }> = [];

  constructor(readonly b: Board) {
    this.n = b.jobs.length;
    this.dutyOf = new Int32Array(this.n).fill(-1);
    // Changes weigh less, all together, than the 0.1 km the road model counts in: they only break ties.
    this.changeKm = 0.05 / (this.n + 1);
    b.duties.forEach((d, k) => {
      for (const i of d.seq) this.dutyOf[i] = k;
      this.refresh(d);
      this.km += d.km;
    });
    this.uncovered = b.movable.length;
    for (const i of b.movable) if (b.home[i] !== null) this.changes++;
  }

  /** The plan's worth, lowest best: uncovered jobs, then km, then changes. */
  value(): number {
    return this.uncovered * UNCOVERED_KM + this.km + this.changes * this.changeKm;
  }

  /** Each duty's jobs, to `restore` later. */
  snapshot(): number[][] {
    return this.b.duties.map((d) => d.seq.slice());
  }

  /** Puts back a plan kept earlier (each duty's jobs), and its totals. */
  restore(seqs: readonly number[][]): void {
    this.dutyOf.fill(-1);
    this.km = 0;
    this.b.duties.forEach((d, k) => {
      d.seq = seqs[k].slice();
      for (const i of d.seq) this.dutyOf[i] = k;
      this.refresh(d);
      this.km += d.km;
    });
    this.uncovered = this.b.movable.filter((i) => this.dutyOf[i] < 0).length;
    this.changes = this.b.movable.filter((i) => this.b.home[i] !== null && (this.dutyOf[i] < 0 || this.changed(i, this.dutyOf[i]))).length;
    this.log.length = 0;
  }

  /** Undoes the log back to `mark`, last first. */
  rollback(mark: number): void {
    while (this.log.length > mark) {
      const op = this.log.pop()!;
      if (op.inserted) this.remove(op.k, op.pos);
      else this.insert(op.k, op.pos, op.i);
      this.log.pop();
    }
  }

  /** Where in duty `k` job `i` would go, and the km it would add; null when it cannot. */
  placeIn(k: number, i: number): { pos: number; delta: number } | null {
    const d = this.b.duties[k];
    if (!d.allowed[i]) return null;
    const seq = d.seq;
    let pos = 0;
    while (pos < seq.length && seq[pos] < i) pos++;
    const a = pos > 0 ? seq[pos - 1] : -1;
    const c = pos < seq.length ? seq[pos] : -1;
    if (a >= 0 ? !this.follows(a, i) : !d.leaves[i] || !this.afterShiftBefore(d, i)) return null;
    if (c >= 0 ? !this.follows(i, c) : !d.returns[i] || !this.beforeShiftAfter(d, i)) return null;
    return { pos, delta: this.through(d, a, i, c) - this.link(d, a, c) };
  }

  /** Whether the job at `pos` can leave duty `d` (its neighbours then meet, or the shift begins or ends with them). */
  removable(d: Duty, pos: number): boolean {
    const a = pos > 0 ? d.seq[pos - 1] : -1;
    const c = pos + 1 < d.seq.length ? d.seq[pos + 1] : -1;
    if (a >= 0 && c >= 0) return this.follows(a, c);
    if (a >= 0) return !!d.returns[a] && this.beforeShiftAfter(d, a);
    if (c >= 0) return !!d.leaves[c] && this.afterShiftBefore(d, c);
    return true;
  }

  /** Job `i` where it adds the least (ties: the driver with less work), among `duties`; false when none can take it. */
  insertBest(i: number, duties: readonly number[], blink = false): boolean {
    let best: { k: number; pos: number; cost: number; work: number } | undefined;
    for (const k of duties) {
      // A blink now and then skips the cheapest place, so that the rounds do not all repeat one choice.
      if (blink && this.random() < 0.01) continue;
      const place = this.placeIn(k, i);
      if (!place) continue;
      const cost = place.delta + (this.changed(i, k) ? this.changeKm : 0);
      const work = this.b.duties[k].all.reduce((w, d) => w + d.load, 0);
      if (!best || cost < best.cost - 1e-9 || (cost < best.cost + 1e-9 && work < best.work)) best = { k, pos: place.pos, cost, work };
    }
    if (best) this.insert(best.k, best.pos, i);
    return !!best;
  }

  /** Job `i` into duty `k` at `pos` (where `placeIn` says it goes). */
  insert(k: number, pos: number, i: number): void {
    const d = this.b.duties[k];
    const a = pos > 0 ? d.seq[pos - 1] : -1;
    const c = pos < d.seq.length ? d.seq[pos] : -1;
    const delta = this.through(d, a, i, c) - this.link(d, a, c);
    d.seq.splice(pos, 0, i);
    d.km += delta;
    d.load += duration(this.b.jobs[i]);
    this.km += delta;
    this.dutyOf[i] = k;
    this.uncovered--;
    if (this.b.home[i] !== null && !this.changed(i, k)) this.changes--;
    this.log.push({ k, pos, i, inserted: true });
  }

  /** The job at `pos` out of duty `k`. */
  remove(k: number, pos: number): void {
    const d = this.b.duties[k];
    const i = d.seq[pos];
    const a = pos > 0 ? d.seq[pos - 1] : -1;
    const c = pos + 1 < d.seq.length ? d.seq[pos + 1] : -1;
    const delta = this.link(d, a, c) - this.through(d, a, i, c);
    d.seq.splice(pos, 1);
    d.km += delta;
    d.load -= duration(this.b.jobs[i]);
    this.km += delta;
    if (this.b.home[i] !== null && !this.changed(i, k)) this.changes++;
    this.dutyOf[i] = -1;
    this.uncovered++;
    this.log.push({ k, pos, i, inserted: false });
  }

  follows(a: number, c: number): boolean {
    return this.b.follows[a * this.n + c] === 1;
  }
  gap(a: number, c: number): number {
    return this.b.gapKm[a * this.n + c];
  }
  /** Job `i` may open duty `d`: the same driver's shift before it is done in time. */
  afterShiftBefore(d: Duty, i: number): boolean {
    return !d.before?.seq.length || this.follows(d.before.seq[d.before.seq.length - 1], i);
  }
  /** Job `i` may close duty `d`: the same driver's shift after it can still begin. */
  beforeShiftAfter(d: Duty, i: number): boolean {
    return !d.after?.seq.length || this.follows(i, d.after.seq[0]);
  }
  /** Job `i` in duty `k` changes its existing assignment. */
  changed(i: number, k: number): boolean {
    return this.b.home[i] !== null && this.b.duties[k].driver.driverId !== this.b.home[i];
  }

  private refresh(d: Duty): void {
    d.km = 0;
    d.load = 0;
    d.seq.forEach((i, p) => {
      d.km += p === 0 ? d.outKm[i] : this.gap(d.seq[p - 1], i);
      d.load += duration(this.b.jobs[i]);
    });
    if (d.seq.length) d.km += d.backKm[d.seq[d.seq.length - 1]];
  }
  /** The km from `a` to `c` when they are neighbours (-1: the base). */
  private link(d: Duty, a: number, c: number): number {
    return a >= 0 && c >= 0 ? this.gap(a, c) : a >= 0 ? d.backKm[a] : c >= 0 ? d.outKm[c] : 0;
  }
  /** The km from `a` to `i` and on to `c` (-1: the base). */
  private through(d: Duty, a: number, i: number, c: number): number {
    return (a >= 0 ? this.gap(a, i) : d.outKm[i]) + (c >= 0 ? this.gap(i, c) : d.backKm[i]);
  }
}
