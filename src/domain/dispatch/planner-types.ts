import type { LatLon } from '../geo/types';
import type { ShiftInstance } from '../drivers/shifts';
import { missingSeats, type SeatCounts } from '../kernel/seats';
import { vehicleOf, type FleetCode } from '../kernel/fleet';
import type { Leg } from '../fleet/travel';

/**
 * The day planner's words (planner.ts plans with them): what it is given (jobs, drivers and their vehicles), what it
 * answers (a plan), and the one hard rule that is about a job and a vehicle alone, `vehicleFits`, which the benchmark
 * and the board's checks share. In a file of their own so that the planner's parts (planner-*.ts) and the entry
 * point import them without importing each other in a circle.
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

/** A driver's jobs as the plan ends with them (the entry point fills them from the search's duties). */
export interface Route {
  driver: PlanDriver;
  jobs: PlanJob[];
}

export const byPickup = (a: Leg, b: Leg) => a.pickupAt.getTime() - b.pickupAt.getTime();
export const inShift = (s: ShiftInstance, j: Leg) => s.starts <= j.pickupAt && j.pickupAt < s.ends;
export const shiftOf = (d: PlanDriver, j: Leg) => d.shifts.find((s) => inShift(s, j));
export const duration = (j: Leg) => j.dropoffAt.getTime() - j.pickupAt.getTime();
