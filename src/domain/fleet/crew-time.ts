import type { Tx } from '../../data/database';
import type * as jobs from '../../data/repositories/jobs-repository';
import { nearbyAssigned } from '../../data/repositories/job-assignments-repository';
import type { DriverRecord, VehicleRecord } from '../../data/repositories/fleet-repository';
import { AppError } from '../../shared/errors';
import { formatLocal, formatLocalWithOffset } from '../kernel/sri-lanka-time';
import { shiftAt } from '../drivers/shifts';
import { dayOf, insideShift, travelConflict, type Leg } from './travel';

export const legOf = (j: { jobId: string; pickupAt: Date; dropoffAt: Date; pickup: jobs.JobPlace; dropoff: jobs.JobPlace }): Leg => ({
  jobId: j.jobId,
  pickupAt: new Date(j.pickupAt),
  dropoffAt: new Date(j.dropoffAt),
  pickup: j.pickup,
  dropoff: j.dropoff,
});

/**
 * Whether `driver` in `vehicle` can take `job` beside what they already hold, read under their row locks (taken by
 * the caller), so that two assignments racing for one driver or one vehicle take turns and the second sees the
 * first. Refused with `assignment_conflict`:
 *
 * - `travel_time`: the job just before (or after), for the driver or for the vehicle, leaves too little time to
 *   drive from its drop-off to this pickup (or from this drop-off to its pickup) with the 15-minute margin;
 * - `outside_shift`: the driver has hours, and either no shift is under way at the pickup, or the day within that
 *   shift (out from the base to the first pickup, back after the last drop-off) would not fit in it.
 *
 * Overlapping jobs are left to the database's exclusion constraints, which name them.
 */
export async function assertCrewHasTime(tx: Tx, job: jobs.JobRow, driver: DriverRecord, vehicle: VehicleRecord): Promise<void> {
  const leg = legOf(job);
  const nearby = await nearbyAssigned(tx, job.jobId, driver.driverId, vehicle.vehicleId, leg.pickupAt);
  const driverLegs = nearby.filter((n) => n.driverId === driver.driverId).map(legOf);
  const vehicleLegs = nearby.filter((n) => n.vehicleId === vehicle.vehicleId).map(legOf);
  for (const [resource, legs] of [
    ['driver', driverLegs],
    ['vehicle', vehicleLegs],
  ] as const) {
    const c = travelConflict(leg, legs);
    if (c) {
      const who = resource === 'driver' ? `Driver ${driver.name}` : `Vehicle ${vehicle.plate}`;
      throw new AppError(
        'assignment_conflict',
        `${who} cannot make it: job ${c.jobId} leaves ${c.minutesShort} minutes too few to drive between the two (with a 15-minute margin).`,
        { reason: 'travel_time', resource, conflicting_job_id: c.jobId, minutes_short: c.minutesShort },
      );
    }
  }
  if (!driver.shifts) return;
  const shift = shiftAt(driver.shifts, leg.pickupAt);
  const sameShift = shift ? driverLegs.filter((l) => l.pickupAt >= shift.starts && l.pickupAt < shift.ends) : [];
  const day = dayOf([leg, ...sameShift], driver.base);
  if (!shift || !insideShift(day, shift)) {
    const hours = shift ? `the shift ${hm(shift.starts)}–${hm(shift.ends)}` : `no shift at ${hm(leg.pickupAt)}`;
    throw new AppError(
      'assignment_conflict',
      `Driver ${driver.name} has ${hours}; with this job the day runs ${hm(day.leaves)}–${hm(day.returns)}${driver.base ? ` from and back to ${driver.base.name}` : ''} (Sri Lanka time).`,
      {
        reason: 'outside_shift',
        resource: 'driver',
        shift: shift ? { starts: formatLocalWithOffset(shift.starts), ends: formatLocalWithOffset(shift.ends) } : null,
        leaves_at: formatLocalWithOffset(day.leaves),
        returns_at: formatLocalWithOffset(day.returns),
      },
    );
  }
}

const hm = (d: Date) => formatLocal(d).slice(11, 16);
