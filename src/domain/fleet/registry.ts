import type { Sql } from '../../data/database';
import * as fleet from '../../data/repositories/fleet-repository';
import { AppError, invalidRequest, notFound } from '../../shared/errors';
import { prefixedId } from '../../shared/ids';
import { storedFleetCode, type FleetCode } from '../kernel/fleet';
import { storedBrand, type Brand } from '../kernel/brands';
import { EXTRA_CODES, type SeatCounts } from '../kernel/seats';
import { resolvePlace, type PlaceInput } from '../geo/resolve-place';

export interface VehicleView {
  vehicle_id: string;
  fleet_code: FleetCode;
  plate: string;
  brand: Brand;
  model: string;
  colour: string;
  equipment: Record<'infant_seat' | 'child_seat' | 'booster_seat', number>;
  active: boolean;
  created_at: string;
}

export interface DriverView {
  driver_id: string;
  name: string;
  phone: string;
  languages: string[];
  active: boolean;
  created_at: string;
  base: fleet.BaseRecord | null;
  usual_vehicle_id: string | null;
}

const vehicleView = (v: fleet.VehicleRecord): VehicleView => ({
  vehicle_id: v.vehicleId,
  fleet_code: storedFleetCode(v.fleetCode),
  plate: v.plate,
  brand: storedBrand(v.brand),
  model: v.model,
  colour: v.colour,
  equipment: { infant_seat: v.equipment.infant_seat ?? 0, child_seat: v.equipment.child_seat ?? 0, booster_seat: v.equipment.booster_seat ?? 0 },
  active: v.active,
  created_at: new Date(v.createdAt).toISOString(),
});

const driverView = (d: fleet.DriverRecord): DriverView => ({
  driver_id: d.driverId,
  name: d.name,
  phone: d.phone,
  languages: d.languages,
  active: d.active,
  created_at: new Date(d.createdAt).toISOString(),
  base: d.base,
  usual_vehicle_id: d.usualVehicleId,
});

export async function registerVehicle(
  tx: Sql,
  input: { fleet_code: FleetCode; plate: string; brand: Brand; model: string; colour: string; equipment?: SeatCounts },
  now: Date,
): Promise<VehicleView> {
  const plate = input.plate.trim().toUpperCase().replace(/\s+/g, ' ');
  const v = await fleet.insertVehicle(tx, {
    vehicleId: prefixedId('veh'),
    fleetCode: input.fleet_code,
    plate,
    brand: input.brand,
    model: input.model.trim(),
    colour: input.colour.trim(),
    equipment: carried(input.equipment),
    createdAt: now,
  });
  if (v === 'plate_taken') throw new AppError('already_exists', `A vehicle with plate ${plate} is already registered.`, { plate });
  return vehicleView(v);
}

/** The seats a vehicle carries, kinds with none left out (as stored). */
const carried = (e: SeatCounts = {}): SeatCounts => Object.fromEntries(EXTRA_CODES.flatMap((k) => ((e[k] ?? 0) > 0 ? [[k, e[k]]] : [])));

/** What seats a vehicle carries (PUT /ops/v1/vehicles/{id}/equipment): the jobs it may take, and the capacity quoting sees. */
export async function setEquipment(tx: Sql, vehicleId: string, equipment: SeatCounts): Promise<VehicleView> {
  const v = await fleet.setVehicleEquipment(tx, vehicleId, carried(equipment));
  if (!v) throw notFound(`No vehicle ${vehicleId}.`, { vehicle_id: vehicleId });
  return vehicleView(v);
}

export async function listVehicles(db: Sql, q: { fleet_code?: FleetCode; active?: boolean }): Promise<VehicleView[]> {
  return (await fleet.listVehicles(db, { fleetCode: q.fleet_code, active: q.active })).map(vehicleView);
}

export async function deactivateVehicle(tx: Sql, vehicleId: string, now: Date): Promise<VehicleView> {
  const v = await fleet.deactivateVehicle(tx, vehicleId, now);
  if (!v) throw notFound(`No vehicle ${vehicleId}.`, { vehicle_id: vehicleId });
  return vehicleView(v);
}

export async function registerDriver(tx: Sql, input: { name: string; phone: string; languages?: string[] }, now: Date): Promise<DriverView> {
  const d = await fleet.insertDriver(tx, {
    driverId: prefixedId('drv'),
    name: input.name.trim(),
    phone: input.phone.trim(),
    languages: [...new Set(input.languages ?? [])],
    createdAt: now,
  });
  return driverView(d);
}

export async function listDrivers(db: Sql, q: { active?: boolean }): Promise<DriverView[]> {
  return (await fleet.listDrivers(db, q)).map(driverView);
}

export async function deactivateDriver(tx: Sql, driverId: string, now: Date): Promise<DriverView> {
  const d = await fleet.deactivateDriver(tx, driverId, now);
  if (!d) throw notFound(`No driver ${driverId}.`, { driver_id: driverId });
  return driverView(d);
}

/**
 * Sets where a driver's day starts and ends (`base`: a place, located as a quote's places are) and the vehicle they
 * usually drive; null clears either. An unknown driver or vehicle is not_found, a place we cannot locate
 * invalid_request with the reason.
 */
export async function updateDriver(tx: Sql, driverId: string, input: { base?: PlaceInput | null; usual_vehicle_id?: string | null }): Promise<DriverView> {
  const base = input.base ? locatedBase(input.base) : input.base;
  if (input.usual_vehicle_id && !(await fleet.findVehicle(tx, input.usual_vehicle_id))) {
    throw notFound(`No vehicle ${input.usual_vehicle_id}.`, { vehicle_id: input.usual_vehicle_id });
  }
  const d = await fleet.setDriverProfile(tx, driverId, { base, usualVehicleId: input.usual_vehicle_id });
  if (!d) throw notFound(`No driver ${driverId}.`, { driver_id: driverId });
  return driverView(d);
}

function locatedBase(input: PlaceInput): fleet.BaseRecord {
  const r = resolvePlace(input);
  if (!r.ok) throw invalidRequest(`The base could not be located (${r.reason}): ${r.message}`, [{ field: 'base', message: r.message }]);
  return { name: input.name?.trim() || r.place.name, resolved_name: r.place.name, lat: r.place.lat, lon: r.place.lon };
}
