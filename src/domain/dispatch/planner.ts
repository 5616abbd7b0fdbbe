import type { LatLon } from '../geo/types';
import type { ShiftInstance } from '../drivers/shifts';
import { missingSeats, type SeatCounts } from '../kernel/seats';
import { vehicleOf, type FleetCode } from '../kernel/fleet';
import { dayOf, insideShift, minutesShort, overlap, travelKm, travelMin, type Leg } from '../fleet/travel';

/**
 * Plans a day: which driver, in which vehicle, takes each job. Pure: it reads what it is given and proposes.
 *
 * Hard rules: the vehicle's class is at least the class sold and its seats, luggage and children's seats fit; the
 * driver is in shift from leaving the base to returning to it; between two jobs there is the drive plus the margin
 * (travel.ts); a driver drives one vehicle all day (their usual one, else one of the spare vehicles).
 * Objective, in order: cover as many jobs as possible, then the least deadhead (empty km: base to the first pickup,
 * between jobs, back to base), then the fewest changes to existing assignments, then even work between drivers.
 *
 * Method: jobs are placed in pickup order where they add the least deadhead (each driver's day is ordered by time,
 * so a job has one place in it); then local search: an unplaced job may take the place of a movable one that can go
 * elsewhere, and a movable job moves to the driver where it costs least, until nothing improves.
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
const shiftOf = (d: PlanDriver, j: Leg) => d.shifts.find((s) => s.starts <= j.pickupAt && j.pickupAt < s.ends);

/** Deadhead km of a driver's day: per shift, out from the base, between jobs, back to the base. */
function routeKm(r: Route): number {
  let km = 0;
  for (const s of r.driver.shifts) {
    const legs = r.jobs.filter((j) => s.starts <= j.pickupAt && j.pickupAt < s.ends);
    if (!legs.length) continue;
    km += travelKm(r.driver.base, legs[0].pickup) + travelKm(legs[legs.length - 1].dropoff, r.driver.base);
    for (let i = 1; i < legs.length; i++) km += travelKm(legs[i - 1].dropoff, legs[i].pickup);
  }
  return km;
}

/** Whether `j` may join the route (the rules that involve it: vehicle, neighbours, its shift's day). */
function canJoin(r: Route, j: PlanJob, busyVehicles: Map<string, Leg[]>): boolean {
  const v = r.driver.vehicle;
  if (!v || vehicleFits(v, j) !== 'ok') return false;
  const shift = shiftOf(r.driver, j);
  if (!shift) return false;
  const others = [...r.jobs, ...(busyVehicles.get(v.vehicleId) ?? [])];
  if (others.some((o) => overlap(o, j))) return false;
  const before = others
    .filter((o) => o.pickupAt <= j.pickupAt)
    .sort(byPickup)
    .at(-1);
  const after = others.filter((o) => o.pickupAt > j.pickupAt).sort(byPickup)[0];
  if ((before && minutesShort(before, j) > 0) || (after && minutesShort(j, after) > 0)) return false;
  const sameShift = r.jobs.filter((o) => shift.starts <= o.pickupAt && o.pickupAt < shift.ends);
  return insideShift(dayOf([...sameShift, j], r.driver.base), shift);
}

function insertionCost(r: Route, j: PlanJob): number {
  const before = routeKm(r);
  return routeKm({ ...r, jobs: [...r.jobs, j].sort(byPickup) }) - before;
}

export function planDay(jobs: readonly PlanJob[], drivers: readonly PlanDriver[]): DayPlan {
  const routes = new Map(drivers.map((d) => [d.driverId, { driver: d, jobs: [] as PlanJob[] }]));
  const where = new Map<string, string>();
  const busyVehicles = new Map<string, Leg[]>();
  const place = (r: Route, j: PlanJob) => {
    r.jobs = [...r.jobs, j].sort(byPickup);
    where.set(j.jobId, r.driver.driverId);
  };
  const remove = (j: PlanJob) => {
    const r = routes.get(where.get(j.jobId)!)!;
    r.jobs = r.jobs.filter((o) => o.jobId !== j.jobId);
    where.delete(j.jobId);
  };
  // Kept as they are: fixed jobs, with their own driver (and vehicle: another driver's paired vehicle is then busy).
  for (const j of jobs.filter((x) => x.fixed && x.current)) {
    const r = routes.get(j.current!.driverId);
    if (r) {
      r.jobs = [...r.jobs, j].sort(byPickup);
      where.set(j.jobId, r.driver.driverId);
    }
    if (!r || r.driver.vehicle?.vehicleId !== j.current!.vehicleId)
      busyVehicles.set(j.current!.vehicleId, [...(busyVehicles.get(j.current!.vehicleId) ?? []), j]);
  }
  const movable = jobs.filter((j) => !(j.fixed && j.current)).sort(byPickup);
  const all = [...routes.values()];
  const load = (r: Route) => r.jobs.reduce((m, j) => m + (j.dropoffAt.getTime() - j.pickupAt.getTime()), 0);
  const best = (j: PlanJob, except?: string) => {
    let pick: { r: Route; cost: number } | undefined;
    for (const r of all) {
      if (r.driver.driverId === except || !canJoin(r, j, busyVehicles)) continue;
      const cost = insertionCost(r, j);
      if (!pick || cost < pick.cost - 1e-9 || (Math.abs(cost - pick.cost) < 1e-9 && load(r) < load(pick.r))) pick = { r, cost };
    }
    return pick;
  };
  // A movable job starts with its current driver when it still fits there (fewest changes), else where it costs least.
  for (const j of movable) {
    const own = j.current ? routes.get(j.current.driverId) : undefined;
    const r = own && canJoin(own, j, busyVehicles) ? own : best(j)?.r;
    if (r) place(r, j);
  }
  for (let round = 0; round < 20; round++) {
    let improved = false;
    // Cover more: an unplaced job takes a placed movable job's driver when that job can go elsewhere.
    for (const u of movable.filter((j) => !where.has(j.jobId))) {
      const direct = best(u);
      if (direct) {
        place(direct.r, u);
        improved = true;
        continue;
      }
      for (const v of movable.filter((j) => where.has(j.jobId) && overlapsOrNear(j, u))) {
        const r = routes.get(where.get(v.jobId)!)!;
        remove(v);
        const to = canJoin(r, u, busyVehicles) ? best(v, r.driver.driverId) : undefined;
        if (to) {
          place(r, u);
          place(to.r, v);
          improved = true;
          break;
        }
        place(r, v);
      }
    }
    // Less deadhead: move a job to the driver where it costs least.
    for (const j of movable.filter((x) => where.has(x.jobId))) {
      const from = routes.get(where.get(j.jobId)!)!;
      const saved = routeKm(from) - routeKm({ ...from, jobs: from.jobs.filter((o) => o.jobId !== j.jobId) });
      const to = best(j, from.driver.driverId);
      if (to && to.cost < saved - 0.5) {
        remove(j);
        place(to.r, j);
        improved = true;
      }
    }
    if (!improved) break;
  }
  return describe(jobs, drivers, routes, where);
}

const overlapsOrNear = (a: Leg, b: Leg) => Math.abs(a.pickupAt.getTime() - b.pickupAt.getTime()) < 12 * 3600_000;

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
