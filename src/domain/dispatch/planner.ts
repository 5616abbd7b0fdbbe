import { haversineKm } from '../geo/geo-math';
import type { LatLon } from '../geo/types';
import type { ShiftInstance } from '../drivers/shifts';
import { missingSeats, type SeatCounts } from '../kernel/seats';
import { vehicleOf, type FleetCode } from '../kernel/fleet';
import { dayOf, minutesShort, overlap, travelKm, travelMin, type Leg } from '../fleet/travel';

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
 * in a driver's shift, as the shift is ordered by pickup, so a plan is which shift takes which job. Movable jobs
 * start with their current driver where they still fit, the rest go in pickup order where they add the least
 * deadhead. Coverage comes from prices (a Lagrangian relaxation of "each job once": each shift's best chain at the
 * job prices, the prices moved until each job is taken about once), whose chains make plans, completed by chains of
 * moves as in a matching. Deadhead then comes from ruin and recreate: take out the jobs of a few shifts around one job,
 * put them back where each costs least with the jobs nobody took, and keep the result by simulated annealing on
 * (uncovered, deadhead, changes), which never gives up a covered job. Fixed rounds from a fixed seed keep it a
 * function of its input.
 */
export interface PlanVehicle {
  vehicleId: string;
  fleetCode: FleetCode;
  equipment: SeatCounts;
}
export interface PlanJob extends Leg {
  fleetCode: FleetCode;
  party: number;
  luggage: number;
  seats: SeatCounts;
  /** Assigned now (kept as it is when `fixed`; a starting point otherwise). */
  current: { driverId: string; vehicleId: string } | null;
  /** Never moved: assigned by hand, or too close to pickup (or every assignment, in `fill`). */
  fixed: boolean;
}
export interface PlanDriver {
  driverId: string;
  base: LatLon;
  shifts: ShiftInstance[];
  vehicle: PlanVehicle | null;
}
export type UnassignedReason = 'no_driver_in_shift' | 'no_vehicle_fits' | 'equipment_missing' | 'travel_time';
export interface Proposal {
  jobId: string;
  driverId: string;
  vehicleId: string;
  deadheadKmBefore: number;
  deadheadMinBefore: number;
  deadheadKmAfter: number;
  idleMin: number;
  kept: boolean;
}
export interface DayPlan {
  assignments: Proposal[];
  unassigned: Array<{ jobId: string; reason: UnassignedReason }>;
  totals: { jobs: number; covered: number; deadheadKm: number; driverHours: number };
}

const CLASS_RANK = { Economy: 0, Standard: 1, Business: 2 } as const;

/** Whether the vehicle may carry the job: its class at least the one sold, the party, the bags, the seats. */
export function vehicleFits(v: PlanVehicle, j: PlanJob): 'ok' | 'no_vehicle_fits' | 'equipment_missing' {
  const have = vehicleOf(v.fleetCode);
  const sold = vehicleOf(j.fleetCode);
  if (CLASS_RANK[have.class] < CLASS_RANK[sold.class] || have.max_passengers < j.party || have.max_luggage < j.luggage) return 'no_vehicle_fits';
  return Object.keys(missingSeats(j.seats, v.equipment)).length ? 'equipment_missing' : 'ok';
}

interface Route {
  driver: PlanDriver;
  jobs: PlanJob[];
}

const byPickup = (a: Leg, b: Leg) => a.pickupAt.getTime() - b.pickupAt.getTime();
const inShift = (s: ShiftInstance, j: Leg) => s.starts <= j.pickupAt && j.pickupAt < s.ends;
const shiftOf = (d: PlanDriver, j: Leg) => d.shifts.find((s) => inShift(s, j));

/**
 * Prices (Lagrangian) rounds: first nearly blind to km, to find the most jobs that can be covered; then with km
 * weighing more (still less than a job: ALPHA × any day's km < 1), to find a set that covers as many for less.
 */
const PRICE_ROUNDS: ReadonlyArray<{ rounds: number; kmWeight: number }> = [
  { rounds: 300, kmWeight: 1e-4 },
  { rounds: 200, kmWeight: 1e-3 },
];
/** Work (chain steps) the price rounds may take in all: what keeps a 300-job day well inside its 5 s. */
const PRICE_WORK = 2e8;
/** A plan is made from the prices' chains every this many rounds. */
const PRICE_PLAN_EVERY = 5;
/** Rounds of ruin and recreate per movable job, and the annealing's temperature (km of deadhead), hot to cold. */
const ROUNDS_PER_JOB = 60;
/** Rounds a small day gets in all (at most 400 a job), in runs of ROUNDS_PER_JOB a job. */
const MIN_ROUNDS = 20_000;
const HOT_KM = 30;
const COLD_KM = 0.2;
/** An uncovered job weighs more than any day's deadhead (km), so the search never buys km with coverage. */
const UNCOVERED_KM = 1e6;
/** Jobs remembered as near each job (whose shifts a ruin takes apart), and the jobs a covering chain may look at. */
const NEAR = 40;
const CHAIN_LOOKS = 100;
/** The search's seed: the same day always gets the same plan. */
const SEED = 0x5eed;

export function planDay(jobs: readonly PlanJob[], drivers: readonly PlanDriver[]): DayPlan {
  const { board, routes, where } = boardOf(jobs, drivers);
  const search = new Search(board);
  search.construct();
  search.price();
  // Small days, cheap to search, get more: runs again from the best plan so far, up to MIN_ROUNDS in all.
  const rounds = ROUNDS_PER_JOB * board.movable.length;
  const runs = Math.max(1, Math.floor(Math.min(MIN_ROUNDS, 400 * board.movable.length) / Math.max(1, rounds)));
  for (let run = 0; run < runs; run++) search.improve(rounds);
  for (const d of board.duties) {
    const r = routes.get(d.driver.driverId)!;
    for (const i of d.seq) {
      r.jobs.push(board.jobs[i]);
      where.set(board.jobs[i].jobId, d.driver.driverId);
    }
  }
  for (const r of routes.values()) r.jobs.sort(byPickup);
  return describe(jobs, drivers, routes, where);
}

/** A driver's shift as the search holds it: its jobs, and what each job of the day would need and cost in it. */
interface Duty {
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

interface Board {
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

/**
 * The day as tables, so that the search only adds and compares numbers. Jobs kept as they are go to their own
 * driver, in the shift they fall in; their vehicle, when it is not that driver's, is busy for whoever has it; one
 * outside every shift of its driver stays in that driver's day and leaves time around it, as it is.
 */
function boardOf(all: readonly PlanJob[], drivers: readonly PlanDriver[]): { board: Board; routes: Map<string, Route>; where: Map<string, string> } {
  const routes = new Map(drivers.map((d) => [d.driverId, { driver: d, jobs: [] as PlanJob[] }]));
  const where = new Map<string, string>();
  const busy = new Map<string, Leg[]>();
  const kept: Array<{ job: PlanJob; driver: PlanDriver }> = [];
  for (const j of all.filter((x) => x.fixed && x.current)) {
    const r = routes.get(j.current!.driverId);
    if (r && shiftOf(r.driver, j)) kept.push({ job: j, driver: r.driver });
    else if (r) {
      // Outside every shift: it stays on the driver's day and leaves time around it, as the vehicle's other jobs do.
      r.jobs.push(j);
      where.set(j.jobId, r.driver.driverId);
      busy.set(`driver:${r.driver.driverId}`, [...(busy.get(`driver:${r.driver.driverId}`) ?? []), j]);
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
  return { board: { jobs, movable, fixed, follows, gapKm, duties, candidates, near, home }, routes, where };
}

/** Whether the driver's vehicle fits the job and is free for it, around the legs it already has (another driver's, a kept one). */
function fitsAround(driver: PlanDriver, j: PlanJob, around: readonly Leg[]): boolean {
  if (!driver.vehicle || vehicleFits(driver.vehicle, j) !== 'ok') return false;
  return around.every((o) => !overlap(o, j) && (o.pickupAt <= j.pickupAt ? minutesShort(o, j) === 0 : minutesShort(j, o) === 0));
}

/**
 * The search over a board: which duty holds each job. Every change goes through `insert` and `remove`, which keep
 * the totals (deadhead, uncovered, changes) and a log, so that a round, or a chain that did not work, is undone.
 */
class Search {
  private readonly n: number;
  /** Per job: the index of the duty that has it, or -1. */
  private readonly dutyOf: Int32Array;
  private km = 0;
  private uncovered: number;
  private changes = 0;
  private readonly changeKm: number;
  private readonly random = rng(SEED);
  /** Every insertion and removal since the last commit. */
  private readonly log: Array<{ k: number; pos: number; i: number; inserted: boolean }> = [];

  constructor(private readonly b: Board) {
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

  /** Each movable job, in pickup order, with its current driver when it still fits there, else where it costs least. */
  construct(): void {
    for (const i of this.b.movable) {
      const home = this.b.home[i];
      const own = home === null ? undefined : this.b.candidates[i].find((k) => this.b.duties[k].driver.driverId === home);
      const place = own !== undefined ? this.placeIn(own, i) : null;
      if (place) this.insert(own!, place.pos, i);
      else this.insertBest(i, this.b.candidates[i]);
    }
    this.cover();
    this.log.length = 0;
  }

  /**
   * Coverage, by prices (Lagrangian relaxation of "each job at most once"): with a price on each job, every duty
   * takes its best chain on its own (a longest path in pickup order, each job worth 1 less its price, each km a
   * little), and the prices move towards each job being taken once (subgradient steps). The chains, made exclusive
   * and completed, are a plan; the best plan seen is kept. The relaxation's value bounds the coverage, and it is
   * tight on our days (the benchmark's MIP: an LP bound within a job of the optimum).
   */
  price(): void {
    const b = this.b;
    const lists = b.duties.map((d) => Int32Array.from(b.movable.filter((i) => d.allowed[i])));
    const work = lists.reduce((s, l) => s + l.length * l.length, 0);
    const rounds = PRICE_ROUNDS.reduce((s, p) => s + p.rounds, 0);
    const scale = Math.min(1, PRICE_WORK / Math.max(1, work * rounds));
    let best = { value: this.value(), seqs: b.duties.map((d) => d.seq.slice()) };
    for (const stage of PRICE_ROUNDS) {
      const prices = new Float64Array(this.n);
      let bound = Infinity;
      let theta = 1;
      let stale = 0;
      for (let round = 0; round < Math.round(stage.rounds * scale); round++) {
        const chains = b.duties.map((d, k) => ({ k, ...this.chain(d, lists[k], prices, stage.kmWeight) }));
        const taken = new Int32Array(this.n);
        for (const c of chains) for (const i of c.jobs) taken[i]++;
        const value = chains.reduce((s, c) => s + c.value, 0) + b.movable.reduce((s, i) => s + prices[i], 0);
        // Smaller steps when the bound stops falling.
        if (value < bound - 1e-9) [bound, stale] = [value, 0];
        else if (++stale >= 10) [theta, stale] = [theta / 2, 0];
        if (round % PRICE_PLAN_EVERY === 0) {
          this.fromChains(chains);
          if (this.value() < best.value - 1e-9) best = { value: this.value(), seqs: b.duties.map((d) => d.seq.slice()) };
        }
        let norm = 0;
        for (const i of b.movable) if (taken[i] !== 1 && (taken[i] > 1 || prices[i] > 0)) norm += (1 - taken[i]) ** 2;
        if (!norm) break;
        const covered = b.movable.length - best.value / UNCOVERED_KM;
        const step = (theta * Math.max(1e-3, value - covered)) / norm;
        for (const i of b.movable) prices[i] = Math.max(0, prices[i] - step * (1 - taken[i]));
      }
    }
    this.restore(best.seqs);
  }

  /** The duty's best chain on its own at these prices: jobs in pickup order, out from the base and back. */
  private chain(d: Duty, list: Int32Array, prices: Float64Array, kmWeight: number): { value: number; jobs: number[] } {
    const { n } = this;
    const value = new Float64Array(list.length);
    const from = new Int32Array(list.length).fill(-1);
    let top = 0;
    let end = -1;
    for (let p = 0; p < list.length; p++) {
      const i = list[p];
      let v = d.leaves[i] ? -kmWeight * d.outKm[i] : -Infinity;
      for (let q = 0; q < p; q++) {
        const h = list[q];
        if (value[q] === -Infinity || !this.b.follows[h * n + i]) continue;
        const w = value[q] - kmWeight * this.b.gapKm[h * n + i];
        if (w > v) [v, from[p]] = [w, q];
      }
      value[p] = v === -Infinity ? v : v + 1 - prices[i];
      const closed = d.returns[i] ? value[p] - kmWeight * d.backKm[i] : -Infinity;
      if (closed > top) [top, end] = [closed, p];
    }
    const jobs: number[] = [];
    for (let p = end; p >= 0; p = from[p]) jobs.unshift(list[p]);
    return { value: top, jobs };
  }

  /** A plan from chains: the most valuable first, each without the jobs already taken; then the rest placed. */
  private fromChains(chains: ReadonlyArray<{ k: number; value: number; jobs: number[] }>): void {
    const b = this.b;
    this.restore(b.duties.map((d) => d.seq.filter((i) => b.fixed[i])));
    for (const { k, jobs } of [...chains].sort((x, y) => y.value - x.value || x.k - y.k)) {
      for (const i of jobs) {
        const place = this.dutyOf[i] < 0 ? this.placeIn(k, i) : null;
        if (place) this.insert(k, place.pos, i);
      }
    }
    for (const i of b.movable) if (this.dutyOf[i] < 0) this.insertBest(i, b.candidates[i]);
    this.cover();
    this.log.length = 0;
  }

  /**
   * Deadhead, by ruin and recreate, `rounds` times, annealing from hot to cold on (uncovered, km, changes): a round
   * takes jobs out around one job and puts them back where each costs least, with the uncovered ones. The best plan
   * seen is kept.
   */
  improve(rounds: number): void {
    let current = this.value();
    let best = { value: current, seqs: this.b.duties.map((d) => d.seq.slice()) };
    for (let round = 0; round < rounds; round++) {
      const temperature = HOT_KM * (COLD_KM / HOT_KM) ** (round / rounds);
      this.recreate(this.ruin());
      const value = this.value();
      if (value < current - temperature * Math.log(this.random())) {
        current = value;
        if (value < best.value - 1e-9) best = { value, seqs: this.b.duties.map((d) => d.seq.slice()) };
      } else this.rollback(0);
      this.log.length = 0;
    }
    this.restore(best.seqs);
  }

  /**
   * Takes out the movable jobs, within one to four hours of a job's pickup (often an uncovered job's), of the duty
   * that has it (or one that could take it) and of one to three duties holding the jobs nearest to it.
   */
  private ruin(): { seed: number; jobs: number[]; duties: number[] } {
    const b = this.b;
    const open = b.movable.filter((i) => this.dutyOf[i] < 0 && b.candidates[i].length);
    const pickFrom = open.length && this.random() < 0.5 ? open : b.movable;
    const s = pickFrom[Math.floor(this.random() * pickFrom.length)];
    const reach = (60 + this.random() * 180) * 60_000;
    const at = b.jobs[s].pickupAt.getTime();
    const duties = new Set<number>();
    const own = b.candidates[s];
    if (this.dutyOf[s] >= 0) duties.add(this.dutyOf[s]);
    else if (own.length) duties.add(own[Math.floor(this.random() * own.length)]);
    const want = duties.size + 1 + Math.floor(this.random() * 3);
    for (const j of b.near[s]) {
      if (duties.size >= want) break;
      if (this.dutyOf[j] >= 0) duties.add(this.dutyOf[j]);
    }
    const jobs: number[] = [];
    for (const k of duties) {
      const d = b.duties[k];
      for (let p = d.seq.length - 1; p >= 0; p--) {
        const i = d.seq[p];
        if (b.fixed[i] || Math.abs(b.jobs[i].pickupAt.getTime() - at) > reach || !this.removable(d, p)) continue;
        this.remove(k, p);
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
  private recreate(ruined: { seed: number; jobs: number[]; duties: number[] }): void {
    const b = this.b;
    const taken = new Set(ruined.jobs);
    const waiting = b.movable.filter((i) => this.dutyOf[i] < 0);
    const order = this.random();
    if (order < 0.25) shuffle(waiting, this.random);
    else if (order < 0.5) waiting.sort((x, y) => x - y);
    else if (order < 0.75) waiting.sort((x, y) => duration(b.jobs[x]) - duration(b.jobs[y]) || x - y);
    else waiting.sort((x, y) => b.candidates[x].length - b.candidates[y].length || x - y);
    if (!taken.has(ruined.seed) && waiting.includes(ruined.seed)) waiting.unshift(...waiting.splice(waiting.indexOf(ruined.seed), 1));
    for (const i of waiting) this.insertBest(i, taken.has(i) || i === ruined.seed ? b.candidates[i] : ruined.duties, true);
  }

  /** Each uncovered job that a chain can place (`augment`), until none can. */
  private cover(): void {
    for (let more = true; more;) {
      more = false;
      for (const i of this.b.movable) if (this.dutyOf[i] < 0 && this.b.candidates[i].length && this.augment(i)) more = true;
    }
  }

  /**
   * Places uncovered job `u` along the shortest chain, searched breadth first as for a matching: `u` into a duty
   * where one job is in its way, that job into another driver's duty where one job is in its way, and so on, to a
   * job that fits where it goes as things are. False, with nothing changed, when there is none.
   */
  private augment(u: number): boolean {
    const b = this.b;
    const ejectedBy = new Map<number, { job: number; k: number }>();
    const queue = [u];
    const seen = new Set(queue);
    for (let q = 0; q < queue.length && q < CHAIN_LOOKS; q++) {
      const x = queue[q];
      const drivers = new Set<PlanDriver>();
      for (let y = x, link = ejectedBy.get(y); link; y = link.job, link = ejectedBy.get(y)) drivers.add(b.duties[link.k].driver);
      for (const k of b.candidates[x]) {
        if (drivers.has(b.duties[k].driver)) continue;
        if (this.placeIn(k, x)) return this.carryOut(x, k, ejectedBy);
        const away = this.inTheWay(k, x);
        if (away < 0 || seen.has(away)) continue;
        seen.add(away);
        ejectedBy.set(away, { job: x, k });
        queue.push(away);
      }
    }
    return false;
  }

  /** Carries out a chain found by `augment`: `x` into duty `k`, then each job back along the chain into the place it frees. */
  private carryOut(x: number, k: number, ejectedBy: Map<number, { job: number; k: number }>): boolean {
    const mark = this.log.length;
    for (let job = x, into = k; ;) {
      const link = ejectedBy.get(job);
      if (link) this.remove(link.k, this.b.duties[link.k].seq.indexOf(job));
      const place = this.placeIn(into, job);
      if (!place) {
        this.rollback(mark);
        return false;
      }
      this.insert(into, place.pos, job);
      if (!link) return true;
      [job, into] = [link.job, link.k];
    }
  }

  /** The one movable job of duty `k` whose leaving would let job `i` in; -1 if there is none (or more than one). */
  private inTheWay(k: number, i: number): number {
    const d = this.b.duties[k];
    if (!d.allowed[i]) return -1;
    const seq = d.seq;
    let pos = 0;
    while (pos < seq.length && seq[pos] < i) pos++;
    let a = pos - 1;
    while (a >= 0 && !this.follows(seq[a], i)) a--;
    let c = pos;
    while (c < seq.length && !this.follows(i, seq[c])) c++;
    if (c - a !== 2) return -1;
    const x = seq[a + 1];
    if (this.b.fixed[x]) return -1;
    // With it gone, `i` must still fit between its new neighbours (or the base).
    if ((a < 0 && (!d.leaves[i] || !this.afterShiftBefore(d, i))) || (c >= seq.length && (!d.returns[i] || !this.beforeShiftAfter(d, i)))) return -1;
    return x;
  }

  /** Puts back a plan kept earlier (each duty's jobs), and its totals. */
  private restore(seqs: readonly number[][]): void {
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

  /** The plan's worth, lowest best: uncovered jobs, then km, then changes. */
  private value(): number {
    return this.uncovered * UNCOVERED_KM + this.km + this.changes * this.changeKm;
  }

  /** Undoes the log back to `mark`, last first. */
  private rollback(mark: number): void {
    while (this.log.length > mark) {
      const op = this.log.pop()!;
      if (op.inserted) this.remove(op.k, op.pos);
      else this.insert(op.k, op.pos, op.i);
      this.log.pop();
    }
  }

  /** Where in duty `k` job `i` would go, and the km it would add; null when it cannot. */
  private placeIn(k: number, i: number): { pos: number; delta: number } | null {
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
  private removable(d: Duty, pos: number): boolean {
    const a = pos > 0 ? d.seq[pos - 1] : -1;
    const c = pos + 1 < d.seq.length ? d.seq[pos + 1] : -1;
    if (a >= 0 && c >= 0) return this.follows(a, c);
    if (a >= 0) return !!d.returns[a] && this.beforeShiftAfter(d, a);
    if (c >= 0) return !!d.leaves[c] && this.afterShiftBefore(d, c);
    return true;
  }

  /** Job `i` where it adds the least (ties: the driver with less work), among `duties`; false when none can take it. */
  private insertBest(i: number, duties: readonly number[], blink = false): boolean {
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

  private insert(k: number, pos: number, i: number): void {
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

  private remove(k: number, pos: number): void {
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
  private follows(a: number, c: number): boolean {
    return this.b.follows[a * this.n + c] === 1;
  }
  private gap(a: number, c: number): number {
    return this.b.gapKm[a * this.n + c];
  }
  private afterShiftBefore(d: Duty, i: number): boolean {
    return !d.before?.seq.length || this.follows(d.before.seq[d.before.seq.length - 1], i);
  }
  private beforeShiftAfter(d: Duty, i: number): boolean {
    return !d.after?.seq.length || this.follows(i, d.after.seq[0]);
  }
  private changed(i: number, k: number): boolean {
    return this.b.home[i] !== null && this.b.duties[k].driver.driverId !== this.b.home[i];
  }
}

const duration = (j: Leg) => j.dropoffAt.getTime() - j.pickupAt.getTime();

/** mulberry32: a small seeded generator, so that a plan is a function of the day. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffle<T>(xs: T[], random: () => number): void {
  for (let i = xs.length - 1; i > 0; i--) {
    const k = Math.floor(random() * (i + 1));
    [xs[i], xs[k]] = [xs[k], xs[i]];
  }
}

/** Deadhead km of a driver's day: per shift, out from the base, between jobs, back to the base. */
function routeKm(r: Route): number {
  let km = 0;
  for (const s of r.driver.shifts) {
    const legs = r.jobs.filter((j) => inShift(s, j));
    if (!legs.length) continue;
    km += travelKm(r.driver.base, legs[0].pickup) + travelKm(legs[legs.length - 1].dropoff, r.driver.base);
    for (let i = 1; i < legs.length; i++) km += travelKm(legs[i - 1].dropoff, legs[i].pickup);
  }
  return km;
}

function describe(jobs: readonly PlanJob[], drivers: readonly PlanDriver[], routes: Map<string, Route>, where: Map<string, string>): DayPlan {
  const assignments: Proposal[] = [];
  let deadheadKm = 0;
  let driverMs = 0;
  for (const r of routes.values()) {
    if (!r.jobs.length) continue;
    deadheadKm += routeKm(r);
    for (const s of r.driver.shifts) {
      const legs = r.jobs.filter((j) => s.starts <= j.pickupAt && j.pickupAt < s.ends);
      if (!legs.length) continue;
      const day = dayOf(legs, r.driver.base);
      driverMs += day.returns.getTime() - day.leaves.getTime();
      legs.forEach((j, i) => {
        const from = i === 0 ? r.driver.base : legs[i - 1].dropoff;
        const next = legs[i + 1];
        const kept = !!j.current && j.current.driverId === r.driver.driverId && (j.fixed || j.current.vehicleId === r.driver.vehicle?.vehicleId);
        assignments.push({
          jobId: j.jobId,
          driverId: r.driver.driverId,
          vehicleId: kept ? j.current!.vehicleId : r.driver.vehicle!.vehicleId,
          deadheadKmBefore: round1(travelKm(from, j.pickup)),
          deadheadMinBefore: travelMin(from, j.pickup),
          deadheadKmAfter: round1(next ? 0 : travelKm(j.dropoff, r.driver.base)),
          idleMin: i === 0 ? 0 : Math.max(0, Math.round((j.pickupAt.getTime() - legs[i - 1].dropoffAt.getTime()) / 60_000 - travelMin(from, j.pickup))),
          kept,
        });
      });
    }
  }
  const unassigned = jobs.filter((j) => !where.has(j.jobId)).map((j) => ({ jobId: j.jobId, reason: whyNot(j, drivers) }));
  assignments.sort((a, b) => a.jobId.localeCompare(b.jobId, 'en', { numeric: true }));
  return {
    assignments,
    unassigned,
    totals: { jobs: jobs.length, covered: assignments.length, deadheadKm: round1(deadheadKm), driverHours: round1(driverMs / 3600_000) },
  };
}

/** The first rule no driver could meet, in the order an operator would look. */
function whyNot(j: PlanJob, drivers: readonly PlanDriver[]): UnassignedReason {
  const inShift = drivers.filter((d) => shiftOf(d, j));
  if (!inShift.length) return 'no_driver_in_shift';
  const fits = inShift.map((d) => (d.vehicle ? vehicleFits(d.vehicle, j) : 'no_vehicle_fits'));
  if (fits.includes('ok')) return 'travel_time';
  return fits.includes('equipment_missing') ? 'equipment_missing' : 'no_vehicle_fits';
}

const round1 = (n: number) => Math.round(n * 10) / 10;
