import { sql, type Sql } from '../database';
import { isUniqueViolation } from '../errors';

/** Children's seats by kind (`{"child_seat": 2}`): what a vehicle carries, what a job needs. */
export type Seats = Partial<Record<'infant_seat' | 'child_seat' | 'booster_seat', number>>;

export interface VehicleRecord {
  vehicleId: string;
  fleetCode: string;
  plate: string;
  brand: string;
  model: string;
  colour: string;
  /** The seats it carries. */
  equipment: Seats;
  active: boolean;
  createdAt: Date;
}

/** A driver's base: a located place, as a job's places are. */
export interface BaseRecord {
  name: string;
  resolved_name: string;
  lat: number;
  lon: number;
}

/** A driver's working hours as stored (Sri Lanka time; see domain/drivers/shifts). */
export interface ShiftsRecord {
  weekly: Array<{ weekday: number; starts: string; ends: string }>;
  exceptions: Array<{ date: string; off: true } | { date: string; starts: string; ends: string }>;
}

export interface DriverRecord {
  driverId: string;
  name: string;
  phone: string;
  languages: string[];
  active: boolean;
  createdAt: Date;
  base: BaseRecord | null;
  usualVehicleId: string | null;
  /** Null: no hours set (assignments are not checked against any). */
  shifts: ShiftsRecord | null;
  shiftsUpdatedAt: Date | null;
}

const VEHICLE = `vehicle_id as "vehicleId", fleet_code as "fleetCode", plate, brand, model, colour, equipment, active, created_at as "createdAt"`;
const DRIVER = `driver_id as "driverId", name, phone, languages, active, created_at as "createdAt", base, usual_vehicle_id as "usualVehicleId",
  shifts, shifts_updated_at as "shiftsUpdatedAt"`;

const insertVehicleStmt = sql(`
  insert into vehicles (vehicle_id, fleet_code, plate, brand, model, colour, equipment, created_at) values ($1, $2, $3, $4, $5, $6, $7::jsonb, $8)
  returning ${VEHICLE}`);

/** Registers a vehicle; 'plate_taken' when another vehicle has the same plate (spaces, dashes and case aside). */
export async function insertVehicle(db: Sql, v: Omit<VehicleRecord, 'active'>): Promise<VehicleRecord | 'plate_taken'> {
  try {
    return (
      await db.query<VehicleRecord>(insertVehicleStmt, [
        v.vehicleId,
        v.fleetCode,
        v.plate,
        v.brand,
        v.model,
        v.colour,
        JSON.stringify(v.equipment),
        v.createdAt,
      ])
    )[0];
  } catch (e) {
    if (isUniqueViolation(e, 'vehicles_plate_unique')) return 'plate_taken';
    throw e;
  }
}

export async function listVehicles(db: Sql, q: { fleetCode?: string; active?: boolean }): Promise<VehicleRecord[]> {
  const query = db
    .knex('vehicles')
    .select(db.knex.raw(VEHICLE))
    .orderBy([{ column: 'fleet_code' }, { column: 'plate' }]);
  if (q.fleetCode) query.where('fleet_code', q.fleetCode);
  if (q.active !== undefined) query.where('active', q.active);
  return query;
}

const findVehicleStmt = sql(`select ${VEHICLE} from vehicles where vehicle_id = $1`);
const findVehicleLocked = sql(`select ${VEHICLE} from vehicles where vehicle_id = $1 for update`);
/** `lock`: held until the transaction ends, so that assignments of one vehicle take turns. */
export async function findVehicle(db: Sql, vehicleId: string, lock = false): Promise<VehicleRecord | undefined> {
  return (await db.query<VehicleRecord>(lock ? findVehicleLocked : findVehicleStmt, [vehicleId]))[0];
}

const deactivateVehicleStmt = sql(
  `update vehicles set active = false, deactivated_at = coalesce(deactivated_at, $2) where vehicle_id = $1 returning ${VEHICLE}`,
);
export async function deactivateVehicle(db: Sql, vehicleId: string, at: Date): Promise<VehicleRecord | undefined> {
  return (await db.query<VehicleRecord>(deactivateVehicleStmt, [vehicleId, at]))[0];
}

const equipStmt = sql(`update vehicles set equipment = $2::jsonb where vehicle_id = $1 returning ${VEHICLE}`);
export async function setVehicleEquipment(db: Sql, vehicleId: string, equipment: VehicleRecord['equipment']): Promise<VehicleRecord | undefined> {
  return (await db.query<VehicleRecord>(equipStmt, [vehicleId, JSON.stringify(equipment)]))[0];
}

const insertDriverStmt = sql(`insert into drivers (driver_id, name, phone, languages, created_at) values ($1, $2, $3, $4::text[], $5) returning ${DRIVER}`);
export async function insertDriver(db: Sql, d: Omit<DriverRecord, 'active' | 'base' | 'usualVehicleId' | 'shifts' | 'shiftsUpdatedAt'>): Promise<DriverRecord> {
  return (await db.query<DriverRecord>(insertDriverStmt, [d.driverId, d.name, d.phone, d.languages, d.createdAt]))[0];
}

export async function listDrivers(db: Sql, q: { active?: boolean }): Promise<DriverRecord[]> {
  const query = db.knex('drivers').select(db.knex.raw(DRIVER)).orderBy('name');
  if (q.active !== undefined) query.where('active', q.active);
  return query;
}

const findDriverStmt = sql(`select ${DRIVER} from drivers where driver_id = $1`);
const findDriverLocked = sql(`select ${DRIVER} from drivers where driver_id = $1 for update`);
/** `lock`: held until the transaction ends, so that assignments of one driver take turns (the travel-time check). */
export async function findDriver(db: Sql, driverId: string, lock = false): Promise<DriverRecord | undefined> {
  return (await db.query<DriverRecord>(lock ? findDriverLocked : findDriverStmt, [driverId]))[0];
}

const profileStmt = sql(`
  update drivers set base = case when $2::boolean then $3::jsonb else base end,
    usual_vehicle_id = case when $4::boolean then $5::text else usual_vehicle_id end
  where driver_id = $1 returning ${DRIVER}`);
/** Sets the base and/or the usual vehicle (a field left undefined keeps its value; null clears it). */
export async function setDriverProfile(
  db: Sql,
  driverId: string,
  p: { base?: BaseRecord | null; usualVehicleId?: string | null },
): Promise<DriverRecord | undefined> {
  const base = p.base === undefined ? null : p.base === null ? null : JSON.stringify(p.base);
  return (await db.query<DriverRecord>(profileStmt, [driverId, p.base !== undefined, base, p.usualVehicleId !== undefined, p.usualVehicleId ?? null]))[0];
}

const shiftsStmt = sql(`update drivers set shifts = $2::jsonb, shifts_updated_at = $3 where driver_id = $1 returning ${DRIVER}`);
export async function setDriverShifts(db: Sql, driverId: string, shifts: ShiftsRecord, at: Date): Promise<DriverRecord | undefined> {
  return (await db.query<DriverRecord>(shiftsStmt, [driverId, JSON.stringify(shifts), at]))[0];
}

const deactivateDriverStmt = sql(`update drivers set active = false, deactivated_at = coalesce(deactivated_at, $2) where driver_id = $1 returning ${DRIVER}`);
export async function deactivateDriver(db: Sql, driverId: string, at: Date): Promise<DriverRecord | undefined> {
  return (await db.query<DriverRecord>(deactivateDriverStmt, [driverId, at]))[0];
}

const anyActive = sql('select exists (select 1 from vehicles where active) as registered');
/** Whether any vehicle is registered and active (none: the fleet table alone decides what is offered). */
export async function fleetRegistered(db: Sql): Promise<boolean> {
  return (await db.query<{ registered: boolean }>(anyActive))[0].registered;
}

const freeStmt = sql('select fleet_free_classes($1, $2, $3::jsonb, $4::bigint) as "fleetCode"');

/**
 * The classes with room for one more job in [from, to) needing `seats` (`{"child_seat": 1}`), leaving out job
 * `exceptJob` (the job a change moves); classes with no active vehicle are absent.
 */
export async function freeClasses(db: Sql, from: Date, to: Date, seats: Record<string, number>, exceptJob: string | null): Promise<string[]> {
  return (await db.query<{ fleetCode: string }>(freeStmt, [from, to, JSON.stringify(seats), exceptJob])).map((r) => r.fleetCode);
}

const roomStmt = sql('select fleet_has_room($1, $2, $3, $4::jsonb, $5::bigint) as room');

/**
 * Whether one more job of the class fits [from, to), with the seats it needs (and leaving out `exceptJob`, the job
 * a change moves), under the class's lock until the transaction ends (so that of two bookings racing for the last
 * vehicle, the second sees the first).
 */
export async function hasRoom(
  tx: Sql,
  fleetCode: string,
  from: Date,
  to: Date,
  seats: Record<string, number> = {},
  exceptJob: string | null = null,
): Promise<boolean> {
  return (await tx.query<{ room: boolean }>(roomStmt, [fleetCode, from, to, JSON.stringify(seats), exceptJob]))[0].room;
}
