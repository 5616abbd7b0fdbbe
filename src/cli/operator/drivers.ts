/** `driver`: the drivers, their base and usual vehicle, their phones' tokens and their hours (./shifts.ts). */
import type { Command } from 'commander';
import { id, query, type Body, type Cli, type Schemas } from './api';
import { fields, table } from './output';
import { registerShifts } from './shifts';

/** "Negombo (7.20830, 79.83580)", "negombo town → Negombo (…)" when located under another name; a bare point as such. */
function baseOf(b: Schemas['Driver']['base']): string | null {
  if (!b) return null;
  const at = `${b.lat.toFixed(5)}, ${b.lon.toFixed(5)}`;
  const label = b.name === b.resolved_name ? b.name : `${b.name} → ${b.resolved_name}`;
  return label === at ? at : `${label} (${at})`;
}

/** A driver as `key: value` lines, the base in words. */
const driverFields = (d: Schemas['Driver']) => fields({ ...d, base: baseOf(d.base) });

export function registerDrivers(program: Command, cli: Cli): void {
  const { api, print } = cli;
  const driver = program.command('driver').description('the drivers');
  driver
    .command('add <name> <phone>')
    .description('register a driver')
    .option('--languages <codes>', 'comma-separated ISO 639-1 codes, e.g. si,en')
    .action(async (name: string, phone: string, o: { languages?: string }) => {
      const d = await api('createDriver', 'POST', '/drivers', {
        name,
        phone,
        ...(o.languages ? { languages: o.languages.split(',').map((l) => l.trim()) } : {}),
      });
      print(d, () => driverFields(d));
    });
  driver
    .command('list')
    .description('list drivers')
    .option('--active', 'active ones only')
    .action(async (o: { active?: boolean }) => {
      const r = await api('listDrivers', 'GET', `/drivers${query({ active: o.active ? 'true' : undefined })}`);
      const rows = r.data.map((d) => ({ ...d, base: d.base?.name ?? null }));
      print(r, () => table(rows, ['driver_id', 'name', 'phone', 'languages', 'base', 'active']));
    });
  driver
    .command('set <driver_id>')
    .description("set or clear a driver's base (where the day starts and ends) and usual vehicle (options not given stay as they are)")
    .option('--base <place>', 'the base by name: a town, an airport, a hotel address (as quotes take them)')
    .option('--lat <lat>', 'the base by coordinates, with --lon (with --base, the name labels the point)')
    .option('--lon <lon>', 'the base by coordinates, with --lat')
    .option('--clear-base', 'no base')
    .option('--vehicle <vehicle_id>', 'the vehicle the driver usually drives')
    .option('--clear-vehicle', 'no usual vehicle')
    .action((d: string, o: SetOptions, cmd: Command) => setDriver(cli, d, o, cmd));
  driver
    .command('deactivate <driver_id>')
    .description('take a driver off the roster')
    .action(async (d: string) => {
      const r = await api('deactivateDriver', 'POST', `/drivers/${id(d)}/deactivate`);
      print(r, () => driverFields(r));
    });
  driver
    .command('token <driver_id>')
    .description("issue a token for the driver's phone (the driver app at /driver/); shown this once")
    .action(async (d: string) => print(await api('createDriverToken', 'POST', `/drivers/${id(d)}/tokens`)));
  driver
    .command('revoke-token <token_id>')
    .description('revoke a driver token (a lost phone)')
    .action(async (t: string) => print(await api('revokeDriverToken', 'POST', `/driver-tokens/${id(t)}/revoke`)));
  registerShifts(driver, cli);
}

interface SetOptions {
  base?: string;
  lat?: string;
  lon?: string;
  clearBase?: boolean;
  vehicle?: string;
  clearVehicle?: boolean;
}

async function setDriver({ api, print }: Cli, d: string, o: SetOptions, cmd: Command): Promise<void> {
  const byPlace = o.base !== undefined || o.lat !== undefined || o.lon !== undefined;
  if (o.clearBase && byPlace) cmd.error('error: give --base <place> (or --lat and --lon), or --clear-base, not both');
  if (o.clearVehicle && o.vehicle !== undefined) cmd.error('error: give --vehicle <vehicle_id> or --clear-vehicle, not both');
  if ((o.lat === undefined) !== (o.lon === undefined)) cmd.error('error: give both --lat and --lon');
  if (!byPlace && !o.clearBase && o.vehicle === undefined && !o.clearVehicle) {
    cmd.error('error: give what to set: --base <place> (or --lat and --lon), --clear-base, --vehicle <vehicle_id> or --clear-vehicle');
  }
  // A word for a number would be sent as null: refused here instead. The range is the API's to check.
  const number = (flag: string, v: string) => {
    const n = Number(v);
    if (v.trim() === '' || !Number.isFinite(n)) cmd.error(`error: ${flag} must be a number, not "${v}"`);
    return n;
  };
  const body: Body<'updateDriver'> = {};
  if (o.clearBase) body.base = null;
  else if (byPlace) {
    body.base = {
      ...(o.base !== undefined ? { name: o.base } : {}),
      ...(o.lat !== undefined && o.lon !== undefined ? { lat: number('--lat', o.lat), lon: number('--lon', o.lon) } : {}),
    };
  }
  if (o.clearVehicle) body.usual_vehicle_id = null;
  else if (o.vehicle !== undefined) body.usual_vehicle_id = o.vehicle;
  const r = await api('updateDriver', 'PATCH', `/drivers/${id(d)}`, body);
  print(r, () => fields({ driver_id: r.driver_id, name: r.name, base: baseOf(r.base), usual_vehicle: r.usual_vehicle_id }));
}
