/** `job`: the schedule (production bookings and marketplace orders) and what drivers report on it. */
import type { Command } from 'commander';
import { id, query, type Cli, type Schemas } from './api';
import { fields, table } from './output';

/** A job as one row: what it is for, where from and to, who drives it in what. */
const jobColumns = (j: Schemas['Job']) => ({
  job_id: j.job_id,
  pickup_at: j.pickup_at,
  ends_at: j.ends_at,
  status: j.status,
  fleet_code: j.fleet_code,
  for: j.booking_ref ?? j.order_id,
  from: j.pickup.name,
  to: j.dropoff.name,
  driver: j.driver?.name ?? null,
  vehicle: j.vehicle?.plate ?? null,
});

export function registerJobs(program: Command, { api, print }: Cli): void {
  const job = program.command('job').description('the schedule: production bookings and marketplace orders');
  job
    .command('list')
    .description('jobs by pickup time (default: from 24 hours ago)')
    .option('--date <YYYY-MM-DD>', 'a day, Sri Lanka time')
    .option('--status <status>', 'confirmed, driver_assigned, completed, no_show or cancelled')
    .option('--booking <booking_ref>', "a partner booking's job")
    .option('--order <order_id>', "a marketplace order's job")
    .action(async (o: { date?: string; status?: string; booking?: string; order?: string }) => {
      const r = await api('listJobs', 'GET', `/jobs${query({ date: o.date, status: o.status, booking_ref: o.booking, order_id: o.order })}`);
      print(r, () => table(r.data.map(jobColumns), ['job_id', 'pickup_at', 'status', 'fleet_code', 'for', 'from', 'to', 'driver', 'vehicle']));
    });
  job
    .command('show <job_id>')
    .description('one job')
    .action(async (j: string) => print(await api('getJob', 'GET', `/jobs/${id(j)}`)));
  job
    .command('assign <job_id> <driver_id> <vehicle_id>')
    .description('assign (or reassign, until pickup) a driver and a vehicle')
    .action(async (j: string, driverId: string, vehicleId: string) => {
      const r = await api('assignJob', 'POST', `/jobs/${id(j)}/assign`, { driver_id: driverId, vehicle_id: vehicleId });
      print(r, () => fields(jobColumns(r)));
    });
  job
    .command('locate <job_id> <lat> <lon>')
    .description("record the driver's position")
    .option('--at <time>', 'when it was taken (ISO 8601; default now)')
    .action(async (j: string, lat: string, lon: string, o: { at?: string }) => {
      print(await api('reportJobLocation', 'POST', `/jobs/${id(j)}/location`, { lat: Number(lat), lon: Number(lon), ...(o.at ? { at: o.at } : {}) }));
    });
  job
    .command('complete <job_id>')
    .description('the transfer is done')
    .action(async (j: string) => print(await api('completeJob', 'POST', `/jobs/${id(j)}/complete`)));
  job
    .command('no-show <job_id> <note>')
    .description('the passenger did not show (after pickup, within 24 hours)')
    .action(async (j: string, note: string) => print(await api('reportNoShow', 'POST', `/jobs/${id(j)}/no-show`, { note })));
}
