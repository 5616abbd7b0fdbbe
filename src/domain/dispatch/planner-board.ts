import { haversineKm } from '../geo/geo-math';
import type { ShiftInstance } from '../drivers/shifts';
import { minutesShort, overlap, travelKm, travelMin, type Leg } from '../fleet/travel';
import { byPickup, inShift, shiftOf, vehicleFits, type PlanDriver, type PlanJob, type Route } from './planner-types';

/**
 * The day as tables (the planner's first step): which job may follow which, the empty km between them, and per
 * driver's shift (a duty) which jobs it may take and the km out from the base and back. Worked out once, so that the
 * search (planner-state.ts and the steps that use it) only adds and compares numbers, and asks the road model
 * nothing. Jobs kept as they are (fixed, with a driver) are placed here, in their own driver's shift.
 */

/** A driver's shift as the search holds it: its jobs, and what each job of the day would need and cost in it. */
export interface Duty {
  index: number;
  driver: PlanDriver;
  shift: ShiftInstance;
  /** Its jobs as indices into the board's jobs, ascending: in pickup order. */
  seq: number[];
  km: number;
  /** Hours of jobs (ms), for even work. */
  load: number;
  /** Per job: it may go here at all (the vehicle fits, the pickup is in the shift, the vehicle is free then). */
  allowed: Uint8Array;
  /** Per job: km from the base to its pickup, and from its drop-off back to the base. */
  outKm: Float64Array;
  backKm: Float64Array;
  /** Per job: the driver can leave the base for it, and be back after it, inside the shift. */
  leaves: Uint8Array;
  returns: Uint8Array;
  /** The same driver's shifts just before and after, whose last and first jobs this one must leave time for. */
  before: Duty | null;
  after: Duty | null;
  /** All of the driver's shifts (this one included), for their work. */
  all: Duty[];
}

export interface Board {
  /** The jobs the search places, by pickup (fixed ones in their own driver's shift, and the movable ones). */
  jobs: PlanJob[];
  /** Indices of the movable jobs, and per job whether it is kept where it is. */
  movable: number[];
  fixed: Uint8Array;
  /** `follows[i * n + k]`: job k can come after job i in one day (no overlap; the drive and the margin between). */
  follows: Uint8Array;
  /** `gapKm[i * n + k]`: from i's drop-off to k's pickup, where k follows i. */
  gapKm: Float64Array;
  duties: Duty[];
  /** Per job: the duties that may take it. */
  candidates: number[][];
  /** Per job: the other jobs nearest to it in time and place, nearest first (whose drivers a ruin takes apart). */
  near: number[][];
  /** Per job: the driver who keeps it unchanged (its current one, in the same vehicle), if any. */
  home: Array<string | null>;
}

/** Jobs remembered as near each job (whose shifts a ruin takes apart). */
const NEAR = 40;

/**
 * The board of a day. Jobs kept as they are go to their own driver, in the shift they fall in; their vehicle, when
 * it is not that driver's, is busy for whoever has it. A kept job outside the plan's shifts (its driver is not
 * planned, having no base or no shift that day, or it falls outside every shift of its driver) is `outside`: kept
 * as it is, and in `where`, but not on the board; it leaves time around it for its driver and its vehicle.
 */
export function boardOf(
  all: readonly PlanJob[],
  drivers: readonly PlanDriver[],
): { board: Board; routes: Map<string, Route>; where: Map<string, string>; outside: PlanJob[] } {
  const routes = new Map(drivers.map((d) => [d.driverId, { driver: d, jobs: [] as PlanJob[] }]));
  const where = new Map<string, string>();
  const outside: PlanJob[] = [];
  const busy = new Map<string, Leg[]>();
  const kept: Array<{ job: PlanJob; driver: PlanDriver }> = [];
  for (const j of all.filter((x) => x.fixed && x.current)) {
    const r = routes.get(j.current!.driverId);
    if (r && shiftOf(r.driver, j)) kept.push({ job: j, driver: r.driver });
    else {
      outside.push(j);
      where.set(j.jobId, j.current!.driverId);
      // Its driver's other jobs leave time around it, as the vehicle's other jobs do.
      if (r) busy.set(`driver:${r.driver.driverId}`, [...(busy.get(`driver:${r.driver.driverId}`) ?? []), j]);
    }
    if (!r || r.driver.vehicle?.vehicleId !== j.current!.vehicleId) busy.set(j.current!.vehicleId, [...(busy.get(j.current!.vehicleId) ?? []), j]);
  }
  const jobs = [...kept.map((k) => k.job), ...all.filter((j) => !(j.fixed && j.current))].sort(byPickup);
  const n = jobs.length;
  const index = new Map(jobs.map((j, i) => [j.jobId, i]));
  const keptBy = new Map(kept.map((k) => [index.get(k.job.jobId)!, k.driver.driverId]));
  const movable = jobs.flatMap((j, i) => (keptBy.has(i) ? [] : [i]));

  const follows = new Uint8Array(n * n);
  const gapKm = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let k = i + 1; k < n; k++) {
      if (jobs[k].pickupAt < jobs[i].dropoffAt || minutesShort(jobs[i], jobs[k]) > 0) continue;
      follows[i * n + k] = 1;
      gapKm[i * n + k] = travelKm(jobs[i].dropoff, jobs[k].pickup);
    }
  }

  const duties: Duty[] = [];
  for (const driver of drivers) {
    const mine: Duty[] = [];
    const around = [...(busy.get(`driver:${driver.driverId}`) ?? []), ...(driver.vehicle ? (busy.get(driver.vehicle.vehicleId) ?? []) : [])];
    for (const shift of [...driver.shifts].sort((a, b) => a.starts.getTime() - b.starts.getTime())) {
      const d: Duty = {
        index: duties.length,
        driver,
        shift,
        seq: [],
        km: 0,
        load: 0,
        allowed: new Uint8Array(n),
        outKm: new Float64Array(n),
        backKm: new Float64Array(n),
        leaves: new Uint8Array(n),
        returns: new Uint8Array(n),
        before: mine.at(-1) ?? null,
        after: null,
        all: mine,
      };
      if (d.before) d.before.after = d;
      for (let i = 0; i < n; i++) {
        const j = jobs[i];
        const own = keptBy.get(i);
        if (!inShift(shift, j) || (own !== undefined ? own !== driver.driverId : !fitsAround(driver, j, around))) continue;
        d.allowed[i] = 1;
        d.outKm[i] = travelKm(driver.base, j.pickup);
        d.backKm[i] = travelKm(j.dropoff, driver.base);
        d.leaves[i] = j.pickupAt.getTime() - travelMin(driver.base, j.pickup) * 60_000 >= shift.starts.getTime() ? 1 : 0;
        d.returns[i] = j.dropoffAt.getTime() + travelMin(j.dropoff, driver.base) * 60_000 <= shift.ends.getTime() ? 1 : 0;
        if (own !== undefined) d.seq.push(i);
      }
      // Kept jobs that already break the shift leave no room for others in it (as the shift's rule is about the day).
      if (d.seq.length && !(d.leaves[d.seq[0]] && d.returns[d.seq[d.seq.length - 1]])) for (const i of movable) d.allowed[i] = 0;
      mine.push(d);
      duties.push(d);
    }
  }
  const candidates = jobs.map((_, i) => duties.flatMap((d, k) => (d.allowed[i] ? [k] : [])));
  const home = jobs.map((j) => {
    const c = j.current;
    return c && routes.get(c.driverId)?.driver.vehicle?.vehicleId === c.vehicleId ? c.driverId : null;
  });
  const fixed = Uint8Array.from(jobs, (_, i) => (keptBy.has(i) ? 1 : 0));
  const apart = (a: PlanJob, c: PlanJob) =>
    (Math.abs(a.pickupAt.getTime() - c.pickupAt.getTime()) + Math.abs(a.dropoffAt.getTime() - c.dropoffAt.getTime())) / 60_000 +
    haversineKm(a.pickup, c.pickup);
  const near = jobs.map((j, i) =>
    jobs
      .map((_, k) => k)
      .filter((k) => k !== i)
      .sort((x, y) => apart(j, jobs[x]) - apart(j, jobs[y]) || x - y)
      .slice(0, NEAR),
  );
  return { board: { jobs, movable, fixed, follows, gapKm, duties, candidates, near, home }, routes, where, outside };
}

/** Whether the driver's vehicle fits the job and is free for it, around the legs it already has (another driver's, a kept one). */
function fitsAround(driver: PlanDriver, j: PlanJob, around: readonly Leg[]): boolean {
  if (!driver.vehicle || vehicleFits(driver.vehicle, j) !== 'ok') return false;
  return around.every((o) => !overlap(o, j) && (o.pickupAt <= j.pickupAt ? minutesShort(o, j) === 0 : minutesShort(j, o) === 0));
}
