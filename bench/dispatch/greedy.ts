/**
 * The baseline a dispatcher with a whiteboard would reach: the jobs in pickup order, each to the driver free
 * soonest (since their last drop-off, or since their shift began) among those who may take it under the hard rules.
 * No look-ahead and no second thoughts.
 */
import { vehicleFits, type PlanDriver, type PlanJob } from '../../src/domain/dispatch/planner';
import { dayOf, insideShift, minutesShort, overlap } from '../../src/domain/fleet/travel';

/** Job id → driver id. */
export function greedyPlan(jobs: readonly PlanJob[], drivers: readonly PlanDriver[]): Map<string, string> {
  const driverOf = new Map<string, string>();
  const days = new Map(drivers.map((d) => [d.driverId, [] as PlanJob[]]));
  for (const j of [...jobs].sort((a, b) => a.pickupAt.getTime() - b.pickupAt.getTime())) {
    let best: { d: PlanDriver; freeAt: number } | undefined;
    for (const d of drivers) {
      const shift = d.shifts.find((s) => s.starts <= j.pickupAt && j.pickupAt < s.ends);
      if (!shift || !d.vehicle || vehicleFits(d.vehicle, j) !== 'ok') continue;
      const mine = days.get(d.driverId)!;
      const last = mine.at(-1);
      if (last && (overlap(last, j) || minutesShort(last, j) > 0)) continue;
      const inShift = mine.filter((o) => shift.starts <= o.pickupAt && o.pickupAt < shift.ends);
      if (!insideShift(dayOf([...inShift, j], d.base), shift)) continue;
      const freeAt = (inShift.at(-1)?.dropoffAt ?? shift.starts).getTime();
      if (!best || freeAt < best.freeAt) best = { d, freeAt };
    }
    if (best) {
      days.get(best.d.driverId)!.push(j);
      driverOf.set(j.jobId, best.d.driverId);
    }
  }
  return driverOf;
}
