/**
 * The exact optimum of a day, as a mixed-integer programme solved by HiGHS (WebAssembly, npm `highs`), or, when it
 * does not finish within its time, a proven bound.
 *
 * The model is a flow. Each driver's shift is a resource with the driver's vehicle; its day is a path from the base
 * through jobs in pickup order back to the base. Arcs: base → job when the driver can leave the base for it inside
 * the shift and the vehicle fits; job → job when the second can follow the first (the drive plus the margin,
 * travel.ts); job → base when the driver is back inside the shift. Each arc costs its empty km. Drivers alike (same
 * base, same shift, a vehicle that may take exactly the same jobs) are one class whose integer flow is at most their
 * number: exact, and much smaller than one copy per driver. Each job is entered at most once over all classes.
 *
 * The objective is lexicographic, so it is solved in two stages on one model: first the most jobs covered; then,
 * with at least that many covered, the least deadhead. Costs are in tenths of a km (the road model's precision),
 * so both objectives are integers and a gap below 1 proves optimality. When a stage stops at its time limit, HiGHS's
 * dual bound is a proven bound: at most that many jobs can be covered, and no plan covering at least the best
 * coverage found has less deadhead than that.
 */
import highsLoader, { type Highs } from 'highs';
import { vehicleFits, type PlanDriver, type PlanJob } from '../../src/domain/dispatch/planner';
import type { ShiftInstance } from '../../src/domain/drivers/shifts';
import { minutesShort, travelKm, travelMin } from '../../src/domain/fleet/travel';
import type { LatLon } from '../../src/domain/geo/types';

export interface Bounded {
  /** The best plan's value (jobs, or km). */
  best: number;
  /** Proven bound: most jobs coverable; least deadhead km of a plan covering at least `coverage.best`. */
  bound: number;
  proven: boolean;
}
export interface Optimum {
  size: { classes: number; columns: number; rows: number };
  coverage: Bounded;
  deadheadKm: Bounded;
  /** The best plan found: job id → driver id. */
  driverOf: Map<string, string>;
  seconds: number;
}
export interface OptimumOptions {
  /** For each of the two stages. */
  timeLimitSec: number;
  /** Called every few seconds while HiGHS works. */
  progress?: (stage: 'coverage' | 'deadhead', seconds: number, best: number, bound: number) => void;
}

/** Drivers alike over one shift, and the jobs they may take (indices into the day's jobs, in pickup order). */
interface ResourceClass {
  base: LatLon;
  shift: ShiftInstance;
  drivers: string[];
  jobs: number[];
}
interface Arc {
  cls: number;
  /** Job indices; -1 is the base. */
  from: number;
  to: number;
  tenthsKm: number;
}

let loaded: Promise<Highs> | undefined;
/** HiGHS compiles once per process. */
export const loadHighs = (): Promise<Highs> => (loaded ??= highsLoader());

export async function optimum(jobs: readonly PlanJob[], drivers: readonly PlanDriver[], options: OptimumOptions): Promise<Optimum> {
  const started = Date.now();
  const highs = await loadHighs();
  const sorted = [...jobs].sort((a, b) => a.pickupAt.getTime() - b.pickupAt.getTime());
  const classes = classesOf(sorted, drivers);
  const arcs = arcsOf(sorted, classes);

  // Rows: each job covered at most once; each class's drivers; flow kept at each (class, job).
  const n = sorted.length;
  const flowRow = new Map<string, number>();
  const rowOf = (cls: number, job: number) => {
    const key = `${cls}:${job}`;
    let r = flowRow.get(key);
    if (r === undefined) flowRow.set(key, (r = n + classes.length + flowRow.size));
    return r;
  };
  const starts = [0];
  const indices: number[] = [];
  const values: number[] = [];
  for (const a of arcs) {
    const entries: Array<[number, number]> = [];
    if (a.from < 0) entries.push([n + a.cls, 1]);
    else entries.push([rowOf(a.cls, a.from), -1]);
    if (a.to >= 0) entries.push([a.to, 1], [rowOf(a.cls, a.to), 1]);
    for (const [r, v] of entries.sort((x, y) => x[0] - y[0])) {
      indices.push(r);
      values.push(v);
    }
    starts.push(indices.length);
  }
  const numRows = n + classes.length + flowRow.size;
  const rowUpper = [...Array<number>(n).fill(1), ...classes.map((c) => c.drivers.length), ...Array<number>(flowRow.size).fill(0)];
  const rowLower = [...Array<number>(n).fill(0), ...Array<number>(classes.length).fill(0), ...Array<number>(flowRow.size).fill(0)];
  const entersJob = arcs.map((a) => (a.to >= 0 ? 1 : 0));
  const model = highs.createModel({
    numCols: arcs.length,
    numRows,
    colCost: entersJob.map((e) => -e),
    colLower: Array<number>(arcs.length).fill(0),
    colUpper: arcs.map((a) => classes[a.cls].drivers.length),
    rowLower,
    rowUpper,
    matrix: {
      format: 'csc',
      numRows,
      numCols: arcs.length,
      starts: Int32Array.from(starts),
      indices: Int32Array.from(indices),
      values: Float64Array.from(values),
    },
    integrality: Array(arcs.length).fill(highs.constants.variableType.integer),
  });
  try {
    model.options.set({ output_flag: false, mip_rel_gap: 0, mip_abs_gap: 0.99 });
    const run = (stage: 'coverage' | 'deadhead', limit: number) => {
      model.options.set('time_limit', Math.max(1, limit));
      let said = Date.now();
      model.run({
        [highs.constants.callbackType.mipInterrupt]: (event) => {
          const d = event.data;
          if (!options.progress || Date.now() - said < 5000 || !Number.isFinite(d.mip_primal_bound) || !Number.isFinite(d.mip_dual_bound)) return;
          said = Date.now();
          options.progress(stage, (said - started) / 1000, d.mip_primal_bound!, d.mip_dual_bound!);
        },
      });
      const proven = model.getModelStatus() === highs.constants.modelStatus.optimal;
      return { proven, colValue: model.getSolution().colValue, best: model.getObjectiveValue(), bound: Number(model.info.get('mip_dual_bound')) };
    };

    // Stage 1: the most jobs covered.
    const first = run('coverage', options.timeLimitSec);
    const covered = Math.round(-first.best);
    const coverage = { best: covered, bound: first.proven ? covered : Math.floor(-first.bound + 1e-6), proven: first.proven };

    // Stage 2: at least that many, the least deadhead; stage 1's plan is where it starts.
    model.addRow(covered, highs.infinity, { indices: arcs.flatMap((a, i) => (a.to >= 0 ? [i] : [])), values: arcs.flatMap((a) => (a.to >= 0 ? [1] : [])) });
    model.changeColsCost({ kind: 'range', from: 0, to: arcs.length - 1 }, Float64Array.from(arcs.map((a) => a.tenthsKm)));
    model.setSolution({ colValue: first.colValue });
    const second = run('deadhead', options.timeLimitSec);
    const deadheadKm = {
      best: Math.round(second.best) / 10,
      // No bound yet (HiGHS stopped before its root LP) reads as 0 km: true, and useless.
      bound: second.proven ? Math.round(second.best) / 10 : Number.isFinite(second.bound) ? Math.ceil(second.bound - 1e-6) / 10 : 0,
      proven: second.proven,
    };
    return {
      size: { classes: classes.length, columns: arcs.length, rows: numRows },
      coverage,
      deadheadKm,
      driverOf: planOf(second.colValue, arcs, classes, sorted),
      seconds: (Date.now() - started) / 1000,
    };
  } finally {
    model.dispose();
  }
}

/** One class per (base, shift, the set of jobs the vehicle may take); its jobs are those picked up in the shift. */
function classesOf(sorted: readonly PlanJob[], drivers: readonly PlanDriver[]): ResourceClass[] {
  const byKey = new Map<string, ResourceClass>();
  for (const d of drivers) {
    if (!d.vehicle) continue;
    const fits = sorted.flatMap((j, i) => (vehicleFits(d.vehicle!, j) === 'ok' ? [i] : []));
    for (const shift of d.shifts) {
      const mine = fits.filter((i) => shift.starts <= sorted[i].pickupAt && sorted[i].pickupAt < shift.ends);
      if (!mine.length) continue;
      const key = `${d.base.lat},${d.base.lon}|${shift.starts.getTime()}|${shift.ends.getTime()}|${mine.join(',')}`;
      const c = byKey.get(key);
      if (c) c.drivers.push(d.driverId);
      else byKey.set(key, { base: d.base, shift, drivers: [d.driverId], jobs: mine });
    }
  }
  return [...byKey.values()];
}

/** Every arc of every class, keeping only jobs on some path from the base back to the base within the shift. */
function arcsOf(sorted: readonly PlanJob[], classes: readonly ResourceClass[]): Arc[] {
  const tenths = (a: LatLon, b: LatLon) => Math.round(travelKm(a, b) * 10);
  // Whether job k can follow job i, for any driver: once per pair.
  const can = sorted.map((a) => sorted.map((b) => b.pickupAt >= a.dropoffAt && minutesShort(a, b) === 0));
  const follows = (i: number, k: number) => can[i][k];
  const arcs: Arc[] = [];
  classes.forEach((c, cls) => {
    const { base, shift } = c;
    const out = (i: number) => sorted[i].pickupAt.getTime() - travelMin(base, sorted[i].pickup) * 60_000 >= shift.starts.getTime();
    const back = (i: number) => sorted[i].dropoffAt.getTime() + travelMin(sorted[i].dropoff, base) * 60_000 <= shift.ends.getTime();
    // Reachable from the base (forwards, in pickup order) and able to reach it again (backwards).
    const reached = new Set<number>();
    for (const i of c.jobs) if (out(i) || c.jobs.some((h) => reached.has(h) && follows(h, i))) reached.add(i);
    const returns = new Set<number>();
    for (const i of [...c.jobs].reverse()) if (back(i) || c.jobs.some((k) => returns.has(k) && follows(i, k))) returns.add(i);
    const kept = c.jobs.filter((i) => reached.has(i) && returns.has(i));
    for (const i of kept) {
      if (out(i)) arcs.push({ cls, from: -1, to: i, tenthsKm: tenths(base, sorted[i].pickup) });
      for (const k of kept) if (follows(i, k)) arcs.push({ cls, from: i, to: k, tenthsKm: tenths(sorted[i].dropoff, sorted[k].pickup) });
      if (back(i)) arcs.push({ cls, from: i, to: -1, tenthsKm: tenths(sorted[i].dropoff, base) });
    }
  });
  return arcs;
}

/** Each class's integer flow, as paths from the base, one per driver of the class. */
function planOf(colValue: Float64Array, arcs: readonly Arc[], classes: readonly ResourceClass[], sorted: readonly PlanJob[]): Map<string, string> {
  const driverOf = new Map<string, string>();
  const flow = Array.from(colValue, (v) => Math.round(v));
  const outOf = new Map<string, number[]>();
  arcs.forEach((a, i) => {
    if (!flow[i]) return;
    const key = `${a.cls}:${a.from}`;
    outOf.set(key, [...(outOf.get(key) ?? []), i]);
  });
  classes.forEach((c, cls) => {
    for (const driverId of c.drivers) {
      let at = -1;
      for (;;) {
        const next = (outOf.get(`${cls}:${at}`) ?? []).find((i) => flow[i] > 0);
        if (next === undefined) break;
        flow[next]--;
        at = arcs[next].to;
        if (at < 0) break;
        driverOf.set(sorted[at].jobId, driverId);
      }
    }
  });
  return driverOf;
}
