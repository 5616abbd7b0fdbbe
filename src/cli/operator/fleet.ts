/** `vocab`, `vehicle` and `driver`: partners' vehicle codes, and the fleet's vehicles and drivers (./drivers.ts). */
import type { Command } from 'commander';
import { id, query, type Cli, type Schemas } from './api';
import { fields, table } from './output';
import { registerDrivers } from './drivers';

export function registerFleet(program: Command, cli: Cli): void {
  registerVocab(program, cli);
  registerVehicles(program, cli);
  registerDrivers(program, cli);
}

function registerVocab(program: Command, { api, print }: Cli): void {
  const vocab = program.command('vocab').description("a partner's vehicle codes, mapped to fleet vehicles");
  vocab
    .command('set <partner_id> <code> <fleet_code>')
    .description('map a partner vehicle code to a fleet code (e.g. SEDAN standard_car)')
    .action(async (p: string, code: string, vehicle: string) => {
      const body = { vehicle: vehicle as Schemas['FleetCode'] };
      print(await api('putVehicleCode', 'PUT', `/partners/${id(p)}/vehicle-codes/${id(code)}`, body));
    });
  vocab
    .command('list <partner_id>')
    .description("list a partner's vehicle codes")
    .action(async (p: string) => {
      const r = await api('listVehicleCodes', 'GET', `/partners/${id(p)}/vehicle-codes`);
      print(r, () => table(r.data, ['code', 'vehicle']));
    });
  vocab
    .command('remove <partner_id> <code>')
    .description('remove a mapping')
    .action(async (p: string, code: string) => {
      const r = await api('deleteVehicleCode', 'DELETE', `/partners/${id(p)}/vehicle-codes/${id(code)}`);
      print(r, () => `removed ${r.code} → ${r.vehicle} for ${r.partner_id}\n`);
    });
}

function registerVehicles(program: Command, { api, print }: Cli): void {
  const vehicle = program.command('vehicle').description("the fleet's vehicles");
  vehicle
    .command('add <fleet_code> <plate> <brand> <model> <colour>')
    .description('register a vehicle (e.g. standard_car CAB-4821 Toyota Axio white)')
    .action(async (fleetCode: string, plate: string, brand: string, model: string, colour: string) => {
      print(
        await api('createVehicle', 'POST', '/vehicles', {
          fleet_code: fleetCode as Schemas['FleetCode'],
          plate,
          brand: brand as Schemas['Brand'],
          model,
          colour,
        }),
      );
    });
  vehicle
    .command('list')
    .description('list vehicles, by class then plate')
    .option('--fleet-code <code>', 'one class')
    .option('--active', 'active ones only')
    .action(async (o: { fleetCode?: string; active?: boolean }) => {
      const r = await api('listVehicles', 'GET', `/vehicles${query({ fleet_code: o.fleetCode, active: o.active ? 'true' : undefined })}`);
      const rows = r.data.map((v) => ({ ...v, seats: seats(v.equipment) }));
      print(r, () => table(rows, ['vehicle_id', 'fleet_code', 'plate', 'brand', 'model', 'colour', 'seats', 'active']));
    });
  vehicle
    .command('equipment <vehicle_id>')
    .description('the seats a vehicle carries (kinds not given: none)')
    .option('--infant-seat <n>', 'infant seats', Number)
    .option('--child-seat <n>', 'child seats', Number)
    .option('--booster-seat <n>', 'booster seats', Number)
    .action(async (v: string, o: { infantSeat?: number; childSeat?: number; boosterSeat?: number }) => {
      const body = { infant_seat: o.infantSeat ?? 0, child_seat: o.childSeat ?? 0, booster_seat: o.boosterSeat ?? 0 };
      const r = await api('putVehicleEquipment', 'PUT', `/vehicles/${id(v)}/equipment`, body);
      print(r, () => fields({ vehicle_id: r.vehicle_id, plate: r.plate, seats: seats(r.equipment) }));
    });
  vehicle
    .command('deactivate <vehicle_id>')
    .description('take a vehicle out of service')
    .action(async (v: string) => print(await api('deactivateVehicle', 'POST', `/vehicles/${id(v)}/deactivate`)));
}

/** "2 child, 1 booster" (or "none"). */
const seats = (e: Schemas['EquipmentCounts']) =>
  Object.entries(e)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${n} ${k.replace('_seat', '')}`)
    .join(', ') || 'none';
