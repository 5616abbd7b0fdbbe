import type { Sql } from '../../data/database';
import * as fleet from '../../data/repositories/fleet-repository';
import { invalidRequest, notFound } from '../../shared/errors';
import { normalisedShifts, shiftProblems, type Shifts } from './shifts';

export interface ShiftsView extends Shifts {
  driver_id: string;
  /** When the hours were last set; null: never (the driver is then not held to any). */
  updated_at: string | null;
}

const view = (d: fleet.DriverRecord): ShiftsView => ({
  driver_id: d.driverId,
  ...(d.shifts ?? { weekly: [], exceptions: [] }),
  updated_at: d.shiftsUpdatedAt ? new Date(d.shiftsUpdatedAt).toISOString() : null,
});

/** A driver's hours (none set: empty lists and `updated_at` null). */
export async function getShifts(db: Sql, driverId: string): Promise<ShiftsView> {
  const d = await fleet.findDriver(db, driverId);
  if (!d) throw notFound(`No driver ${driverId}.`, { driver_id: driverId });
  return view(d);
}

/**
 * Replaces a driver's hours. Refused whole (invalid_request, each problem named) when a shift has no length or two
 * overlap. Jobs already assigned stay assigned: the hours hold the next assignments, and the plan.
 */
export async function setShifts(tx: Sql, driverId: string, input: Shifts, now: Date): Promise<ShiftsView> {
  const problems = shiftProblems(input);
  if (problems.length) {
    throw invalidRequest(
      `The hours are not valid: ${problems.join(' ')}`,
      problems.map((message) => ({ field: 'shifts', message })),
    );
  }
  const d = await fleet.setDriverShifts(tx, driverId, normalisedShifts(input), now);
  if (!d) throw notFound(`No driver ${driverId}.`, { driver_id: driverId });
  return view(d);
}
