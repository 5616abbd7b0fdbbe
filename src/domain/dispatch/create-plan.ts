import type { Sql } from '../../data/database';
import * as fleet from '../../data/repositories/fleet-repository';
import * as jobs from '../../data/repositories/jobs-repository';
import * as plans from '../../data/repositories/dispatch-repository';
import { prefixedId } from '../../shared/ids';
import { sriLankaDay } from '../kernel/sri-lanka-time';
import { storedFleetCode, vehicleOf } from '../kernel/fleet';
import { shiftsBetween } from '../drivers/shifts';
import { legOf } from '../fleet/crew-time';
import { planDay, type PlanDriver, type PlanJob, type PlanVehicle } from './planner';
import { planView, type NotPlannedReason, type PlanView } from './plan-view';

export type PlanMode = 'fill' | 'replan';

/**
 * Plans a day (Sri Lanka date) and keeps the plan; nothing is assigned until it is applied.
 *
 * 1. The day's open jobs (confirmed, or assigned and not under way), with their pickup still ahead. `fill` keeps
 *    every assignment; `replan` may move one that was not made by hand and whose pickup is more than
 *    `lockHours` away.
 * 2. The drivers who can be planned: active, with a base and a shift that day; each drives one vehicle all day
 *    (their usual one when it is free, else a spare one, the roomiest first). The others are listed with why.
 * 3. The planner proposes (planner.ts); the plan is stored with each job's version, for `apply`.
 */
export async function createPlan(tx: Sql, input: { date: string; mode: PlanMode }, operatorId: string | null, now: Date, lockHours: number): Promise<PlanView> {
  const day = sriLankaDay(input.date);
  const rows = (await jobs.listJobs(tx, { from: day.from, to: day.to, limit: 5000 })).filter(
    (j) => (j.status === 'confirmed' || (j.status === 'driver_assigned' && !j.ride)) && new Date(j.pickupAt) > now,
  );
  const lockedUntil = now.getTime() + lockHours * 3600_000;
  const planJobs: PlanJob[] = rows.map((j) => {
    const current = j.driver && j.vehicle ? { driverId: j.driver.driverId, vehicleId: j.vehicle.vehicleId } : null;
    const byHand = j.assignedBy !== 'plan' || new Date(j.pickupAt).getTime() < lockedUntil;
    return {
      ...legOf(j),
      fleetCode: storedFleetCode(j.fleetCode),
      party: j.adults + j.children,
      luggage: j.luggage,
      seats: j.seats,
      current,
      fixed: !!current && (input.mode === 'fill' || byHand),
    };
  });

  const vehicles = await fleet.listVehicles(tx, { active: true });
  const drivers = await fleet.listDrivers(tx, { active: true });
  const notPlanned: Array<{ driverId: string; reason: NotPlannedReason }> = [];
  const spare = new Map(vehicles.map((v) => [v.vehicleId, v]));
  const planned: Array<Omit<PlanDriver, 'vehicle'> & { usual: string | null }> = [];
  for (const d of drivers) {
    const shifts = d.shifts ? shiftsBetween(d.shifts, day.from, day.to) : [];
    if (!d.base) notPlanned.push({ driverId: d.driverId, reason: 'no_base' });
    else if (!shifts.length) notPlanned.push({ driverId: d.driverId, reason: 'no_shift' });
    else planned.push({ driverId: d.driverId, base: d.base, shifts, usual: d.usualVehicleId });
  }
  const vehicleOfDriver = new Map<string, PlanVehicle>();
  for (const d of planned) {
    const usual = d.usual ? spare.get(d.usual) : undefined;
    if (usual) {
      vehicleOfDriver.set(d.driverId, asPlanVehicle(usual));
      spare.delete(usual.vehicleId);
    }
  }
  const roomiest = [...spare.values()].sort((a, b) => room(b) - room(a) || a.vehicleId.localeCompare(b.vehicleId));
  const planDrivers: PlanDriver[] = [];
  for (const d of planned) {
    const vehicle = vehicleOfDriver.get(d.driverId) ?? (roomiest.length ? asPlanVehicle(roomiest.shift()!) : null);
    if (!vehicle) notPlanned.push({ driverId: d.driverId, reason: 'no_vehicle' });
    else planDrivers.push({ driverId: d.driverId, base: d.base, shifts: d.shifts, vehicle });
  }

  const result = planDay(planJobs, planDrivers);
  const record = await plans.insertPlan(tx, {
    planId: prefixedId('plan'),
    day: input.date,
    mode: input.mode,
    createdAt: now,
    createdBy: operatorId,
    result: { ...result, driversNotPlanned: notPlanned, current: Object.fromEntries(planJobs.map((j) => [j.jobId, j.current])) },
    jobVersions: Object.fromEntries(rows.map((j) => [j.jobId, j.version])),
  });
  return planView(record);
}

const asPlanVehicle = (v: fleet.VehicleRecord): PlanVehicle => ({ vehicleId: v.vehicleId, fleetCode: storedFleetCode(v.fleetCode), equipment: v.equipment });
const room = (v: fleet.VehicleRecord) => vehicleOf(storedFleetCode(v.fleetCode)).max_passengers;
