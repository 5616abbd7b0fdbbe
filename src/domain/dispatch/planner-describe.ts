import { dayOf, travelKm, travelMin } from '../fleet/travel';
import { inShift, shiftOf, vehicleFits, type DayPlan, type PlanDriver, type PlanJob, type Proposal, type Route, type UnassignedReason } from './planner-types';

/**
 * The plan as the operator sees it (the planner's last step): per job its driver and vehicle, the empty km and
 * minutes before it and after it, the wait, whether the assignment is kept as it was; the jobs left out, each with
 * the first rule no driver could meet; and the day's totals. Worked out again from the routes with the road model,
 * not from the search's tables, so that what is shown is what the travel rules say. Kept jobs `outside` the plan's
 * shifts (planner-board.ts) are kept assignments and covered, with no deadhead or wait: the plan knows no base or
 * shift of theirs to count from.
 */
export function describe(
  jobs: readonly PlanJob[],
  drivers: readonly PlanDriver[],
  routes: Map<string, Route>,
  where: Map<string, string>,
  outside: readonly PlanJob[],
): DayPlan {
  const assignments: Proposal[] = outside.map((j) => ({
    jobId: j.jobId,
    driverId: j.current!.driverId,
    vehicleId: j.current!.vehicleId,
    deadheadKmBefore: 0,
    deadheadMinBefore: 0,
    deadheadKmAfter: 0,
    idleMin: 0,
    kept: true,
  }));
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

/** The first rule no driver could meet, in the order an operator would look. */
function whyNot(j: PlanJob, drivers: readonly PlanDriver[]): UnassignedReason {
  const inShift = drivers.filter((d) => shiftOf(d, j));
  if (!inShift.length) return 'no_driver_in_shift';
  const fits = inShift.map((d) => (d.vehicle ? vehicleFits(d.vehicle, j) : 'no_vehicle_fits'));
  if (fits.includes('ok')) return 'travel_time';
  return fits.includes('equipment_missing') ? 'equipment_missing' : 'no_vehicle_fits';
}

const round1 = (n: number) => Math.round(n * 10) / 10;
