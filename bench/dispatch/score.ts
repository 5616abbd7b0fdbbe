/**
 * One yardstick for every plan the benchmark compares (the planner's, the greedy baseline's, the optimum's): it
 * checks the hard rules itself and counts the deadhead itself, so no method is judged by its own arithmetic.
 */
import { vehicleFits, type PlanDriver, type PlanJob } from '../../src/domain/dispatch/planner';
import { dayOf, insideShift, minutesShort, overlap, travelKm } from '../../src/domain/fleet/travel';

export interface Score {
  covered: number;
  /** Empty km, per driver and shift: out from the base, between jobs, back to the base. */
  deadheadKm: number;
}

/** Scores `driverOf` (job id → driver id); throws when it breaks a hard rule, naming the job. */
export function score(jobs: readonly PlanJob[], drivers: readonly PlanDriver[], driverOf: ReadonlyMap<string, string>): Score {
  let covered = 0;
  let deadheadKm = 0;
  for (const d of drivers) {
    const mine = jobs.filter((j) => driverOf.get(j.jobId) === d.driverId).sort((a, b) => a.pickupAt.getTime() - b.pickupAt.getTime());
    covered += mine.length;
    for (const j of mine) if (!d.vehicle || vehicleFits(d.vehicle, j) !== 'ok') throw new Error(`${j.jobId}: ${d.driverId}'s vehicle does not fit`);
    for (let i = 1; i < mine.length; i++) {
      if (overlap(mine[i - 1], mine[i]) || minutesShort(mine[i - 1], mine[i]) > 0) throw new Error(`${mine[i].jobId}: no time after ${mine[i - 1].jobId}`);
    }
    const inShifts = d.shifts.map((s) => mine.filter((j) => s.starts <= j.pickupAt && j.pickupAt < s.ends));
    if (inShifts.reduce((n, legs) => n + legs.length, 0) !== mine.length) throw new Error(`${d.driverId}: a job outside every shift`);
    d.shifts.forEach((s, k) => {
      const legs = inShifts[k];
      if (!legs.length) return;
      if (!insideShift(dayOf(legs, d.base), s)) throw new Error(`${d.driverId}: the day does not fit the shift starting ${s.starts.toISOString()}`);
      deadheadKm += travelKm(d.base, legs[0].pickup) + travelKm(legs[legs.length - 1].dropoff, d.base);
      for (let i = 1; i < legs.length; i++) deadheadKm += travelKm(legs[i - 1].dropoff, legs[i].pickup);
    });
  }
  return { covered, deadheadKm: Math.round(deadheadKm * 10) / 10 };
}
