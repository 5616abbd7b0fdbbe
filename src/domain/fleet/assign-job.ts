import type { Tx } from '../../data/database';
import type * as jobs from '../../data/repositories/jobs-repository';
import * as assignments from '../../data/repositories/job-assignments-repository';
import * as fleet from '../../data/repositories/fleet-repository';
import type { DriverSnapshot } from '../../data/repositories/bookings-repository';
import { AppError, notFound } from '../../shared/errors';
import { moveBooking } from '../bookings/advance-booking';
import { formatLocal } from '../kernel/sri-lanka-time';
import { notify, type NoticeBody } from '../marketplace/notices';
import { storedFleetCode, vehicleOf, type FleetVehicle } from '../kernel/fleet';
import { missingSeats, type SeatCounts } from '../kernel/seats';
import { jobView, type JobView } from './job-view';
import { assertOpen, conflict, requireJob } from './jobs';
import { assertCrewHasTime } from './crew-time';

/**
 * Assigns (or, until pickup, reassigns) a driver and a vehicle. The database refuses a driver or vehicle already on
 * an overlapping job (exclusion constraints), whoever assigns and on whichever instance; the rest is checked here:
 *
 * 1. The job is open and its pickup time not passed; the driver and the vehicle exist and are in service.
 * 2. The vehicle carries the party and the seats the job needs, and a vehicle of another class than the job holds
 *    finds room in its own class.
 * 3. The driver and the vehicle (their rows locked until the end, so that assignments of either take turns) have
 *    time for it: the drive from the job before and to the job after, and, when the driver has hours, a day inside
 *    the shift (crew-time.ts).
 * 4. The assignment is written (or refused, naming the overlapping job), and whoever the job is for hears of it: a
 *    partner's booking shows the driver (with its webhook event), a marketplace order is sent the driver's details.
 */
export async function assignJob(
  tx: Tx,
  jobId: string,
  input: { driver_id: string; vehicle_id: string },
  now: Date,
  noticeBody: NoticeBody,
  by: jobs.AssignedBy = 'operator',
): Promise<JobView> {
  const job = await requireJob(tx, jobId, true);
  assertOpen(job);
  if (now.getTime() >= new Date(job.pickupAt).getTime()) {
    throw conflict('pickup_passed', `Job ${jobId}'s pickup time has passed; it can no longer be (re)assigned.`);
  }
  const { driver, vehicle } = await crewInService(tx, input);

  const capacity = vehicleOf(storedFleetCode(vehicle.fleetCode));
  if (job.adults + job.children > capacity.max_passengers || job.luggage > capacity.max_luggage) throw tooSmall(job, vehicle, capacity);
  const lacking = missingSeats(job.seats, vehicle.equipment);
  if (Object.keys(lacking).length) throw lacksEquipment(vehicle, lacking);
  // A vehicle of another class takes that class's capacity for the window: there must be room for it.
  if (vehicle.fleetCode !== job.heldCode && !(await fleet.hasRoom(tx, vehicle.fleetCode, new Date(job.pickupAt), new Date(job.endsAt)))) {
    throw new AppError('assignment_conflict', `Every ${capacity.name} is already held at that time: ${vehicle.plate} cannot take this job.`, {
      reason: 'class_full',
      resource: 'vehicle_class',
      fleet_code: vehicle.fleetCode,
    });
  }
  await assertCrewHasTime(tx, job, driver, vehicle);

  const outcome = await assignments.assignJob(tx, jobId, driver.driverId, vehicle.vehicleId, vehicle.fleetCode, now, by);
  if (!outcome.ok) throw overlapping(outcome, driver, vehicle);
  const assigned = await requireJob(tx, jobId);
  if (job.source === 'partner_booking') await moveBooking(tx, job.sourceRef, 'driver_assigned', { driver: snapshot(driver, vehicle) }, now);
  else await sendDriverInfo(tx, assigned, driver, vehicle, now, noticeBody);
  return jobView(assigned, now);
}

/**
 * The driver and the vehicle asked for, their rows locked until the transaction ends: not_found if either is unknown,
 * job_conflict if either is out of service.
 */
async function crewInService(tx: Tx, input: { driver_id: string; vehicle_id: string }): Promise<{ driver: fleet.DriverRecord; vehicle: fleet.VehicleRecord }> {
  const driver = await fleet.findDriver(tx, input.driver_id, true);
  if (!driver) throw notFound(`No driver ${input.driver_id}.`, { driver_id: input.driver_id });
  const vehicle = await fleet.findVehicle(tx, input.vehicle_id, true);
  if (!vehicle) throw notFound(`No vehicle ${input.vehicle_id}.`, { vehicle_id: input.vehicle_id });
  if (!driver.active) throw conflict('driver_inactive', `Driver ${driver.name} is not on the roster.`, { driver_id: driver.driverId });
  if (!vehicle.active) throw conflict('vehicle_inactive', `Vehicle ${vehicle.plate} is out of service.`, { vehicle_id: vehicle.vehicleId });
  return { driver, vehicle };
}

/** A marketplace order is sent its driver and vehicle: one message per assignment (a reassignment sends the new driver). */
async function sendDriverInfo(
  tx: Tx,
  assigned: jobs.JobRow,
  driver: fleet.DriverRecord,
  vehicle: fleet.VehicleRecord,
  now: Date,
  noticeBody: NoticeBody,
): Promise<void> {
  const notice = {
    kind: 'driver_info',
    orderId: assigned.sourceRef,
    driver: { name: driver.name, phone: driver.phone },
    vehicle: { brand: vehicle.brand, model: vehicle.model, plate: vehicle.plate, colour: vehicle.colour },
  } as const;
  await notify(tx, noticeBody, notice, { dedupeKey: `driver:${assigned.sourceRef}:v${assigned.version}` }, now);
}

function snapshot(driver: fleet.DriverRecord, vehicle: fleet.VehicleRecord): DriverSnapshot {
  return {
    name: driver.name,
    phone: driver.phone,
    vehicle: `${vehicle.brand} ${vehicle.model} (${vehicle.colour})`,
    plate: vehicle.plate,
    colour: vehicle.colour,
  };
}

const tooSmall = (job: jobs.JobRow, vehicle: fleet.VehicleRecord, capacity: FleetVehicle) =>
  new AppError(
    'vehicle_too_small',
    `${vehicle.plate} (a ${capacity.name}, ${capacity.max_passengers} passengers and ${capacity.max_luggage} bags) cannot carry this party of ${job.adults + job.children} with ${job.luggage} bags.`,
    {
      vehicle_id: vehicle.vehicleId,
      adults: job.adults,
      children: job.children,
      luggage: job.luggage,
      max_passengers: capacity.max_passengers,
      max_luggage: capacity.max_luggage,
    },
  );

const lacksEquipment = (vehicle: fleet.VehicleRecord, missing: SeatCounts) =>
  new AppError(
    'vehicle_lacks_equipment',
    `${vehicle.plate} does not carry the seats this job needs (missing: ${Object.entries(missing)
      .map(([k, n]) => `${n} ${k.replace('_', ' ')}`)
      .join(', ')}); fit them first (PUT /vehicles/${vehicle.vehicleId}/equipment) or choose another vehicle.`,
    { vehicle_id: vehicle.vehicleId, missing },
  );

/** The database refused: the driver or the vehicle is on an overlapping job, named with its times in Sri Lanka. */
function overlapping(outcome: Extract<assignments.AssignOutcome, { ok: false }>, driver: fleet.DriverRecord, vehicle: fleet.VehicleRecord): AppError {
  const other = outcome.conflictingJob;
  const who = outcome.resource === 'driver' ? `Driver ${driver.name}` : `Vehicle ${vehicle.plate}`;
  const when = other ? ` job ${other.jobId} from ${at(new Date(other.pickupAt))} to ${at(new Date(other.dropoffAt))} (Sri Lanka time)` : ' another job';
  return new AppError('assignment_conflict', `${who} is already on${when}, which overlaps this one.`, {
    reason: 'overlap',
    resource: outcome.resource,
    conflicting_job_id: other?.jobId ?? null,
  });
}

const at = (d: Date) => `${formatLocal(d).slice(11, 16)}`;
