import { ManualClock } from '../../../src/shared/clock';
import { useTestApp } from '../../support/use-test-app';
import { productionJob } from '../../support/bookings';

const NOW = '2026-11-21T08:00:00Z';

/** Places some 6 km (a quarter of an hour's drive) from each town: drop-offs of short runs above the minimum fare. */
const NEAR = {
  Kandy: { name: 'Katugastota' },
  Galle: { name: 'Unawatuna' },
  Jaffna: { lat: 9.71, lon: 80.04 },
  Trincomalee: { lat: 8.64, lon: 81.21 },
  Colombo: { lat: 6.8649, lon: 79.8997, name: 'Nugegoda' },
};

/**
 * Drivers get a base and working hours, and a job holds its driver and vehicle from pickup to drop-off: between two
 * jobs they need the drive from one to the other (the road model that prices quotes) and a 15-minute margin.
 */
describe('Drivers: bases, shifts and real travel between jobs', () => {
  const clock = new ManualClock(NOW);
  const svc = useTestApp({ clock, partner: 'Travel Time Tours', resetClock: true });
  beforeAll(async () => {
    for (let i = 0; i < 16; i++) await svc.ops.vehicle('standard_car');
  });

  const job = (date: string, time: string, pickup: object, dropoff: object, o: Parameters<typeof productionJob>[5] = {}) =>
    productionJob(svc, date, time, pickup, dropoff, o);

  const assign = (jobId: string, driverId: string, vehicleId: string) =>
    svc.ops.call('POST', `/jobs/${jobId}/assign`, { body: { driver_id: driverId, vehicle_id: vehicleId } });
  const minutes = (from: string, to: string) => (Date.parse(to) - Date.parse(from)) / 60_000;

  describe('a base and a usual vehicle', () => {
    it('when a base is set by name or by coordinates, then the driver shows it located, with the usual vehicle; null clears; the change is audited', async () => {
      const d = await svc.ops.driver('Sunil Fernando', '+94 77 123 4567');
      const car = await svc.ops.vehicle('standard_car');
      const r = await svc.ops.call('PATCH', `/drivers/${d.driver_id}`, { body: { base: { name: 'Negombo' }, usual_vehicle_id: car.vehicle_id } });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ driver_id: d.driver_id, base: { name: 'Negombo', resolved_name: 'Negombo' }, usual_vehicle_id: car.vehicle_id });
      expect(r.body.base.lat).toBeCloseTo(7.21, 1);
      expect(r.body.base.lon).toBeCloseTo(79.84, 1);
      const [audited] = await svc.ops.audit({ request_id: r.headers.get('x-request-id')! });
      expect(audited).toMatchObject({ method: 'PATCH', status: 200 });

      const byPoint = await svc.ops.call('PATCH', `/drivers/${d.driver_id}`, { body: { base: { lat: 7.2906, lon: 80.6337 } } });
      expect(byPoint.status).toBe(200);
      expect(byPoint.body).toMatchObject({ base: { lat: 7.2906, lon: 80.6337 }, usual_vehicle_id: car.vehicle_id });
      const listed = (await svc.ops.call('GET', '/drivers')).body.data.find((x: any) => x.driver_id === d.driver_id);
      expect(listed).toEqual(byPoint.body);

      const cleared = await svc.ops.call('PATCH', `/drivers/${d.driver_id}`, { body: { base: null, usual_vehicle_id: null } });
      expect(cleared.body).toMatchObject({ base: null, usual_vehicle_id: null });
    });

    it('when the place cannot be located, the vehicle or the driver is unknown, or nothing is sent, then 400 or 404 and nothing changes', async () => {
      const d = await svc.ops.driver('Mohamed Rizwan', '+94 71 234 5678');
      await svc.ops.call('PATCH', `/drivers/${d.driver_id}`, { body: { base: { name: 'Galle' } } });
      const nowhere = await svc.ops.call('PATCH', `/drivers/${d.driver_id}`, { body: { base: { lat: 51.5, lon: -0.12 } } });
      expect(nowhere.status).toBe(400);
      expect(nowhere.body.error).toMatchObject({
        code: 'invalid_request',
        details: { fields: [{ field: 'base', message: expect.stringContaining('outside Sri Lanka') }] },
      });
      const noVehicle = await svc.ops.call('PATCH', `/drivers/${d.driver_id}`, { body: { base: { name: 'Kandy' }, usual_vehicle_id: 'veh_nope' } });
      expect(noVehicle.status).toBe(404);
      expect((await svc.ops.call('PATCH', '/drivers/drv_nope', { body: { base: { name: 'Kandy' } } })).status).toBe(404);
      expect((await svc.ops.call('PATCH', `/drivers/${d.driver_id}`, { body: {} })).status).toBe(400);
      const listed = (await svc.ops.call('GET', '/drivers')).body.data.find((x: any) => x.driver_id === d.driver_id);
      expect(listed.base).toMatchObject({ name: 'Galle' });
    });
  });

  describe('working hours', () => {
    it('when hours are set, then they read back in order, a night shift as given; before any, the lists are empty', async () => {
      const d = await svc.ops.driver('Chaminda Perera');
      expect((await svc.ops.call('GET', `/drivers/${d.driver_id}/shifts`)).body).toEqual({
        driver_id: d.driver_id,
        weekly: [],
        exceptions: [],
        updated_at: null,
      });
      const body = {
        weekly: [
          { weekday: 5, starts: '20:00', ends: '06:00' },
          { weekday: 1, starts: '06:00', ends: '14:00' },
        ],
        exceptions: [
          { date: '2026-12-26', starts: '10:00', ends: '16:00' },
          { date: '2026-12-25', off: true },
        ],
      };
      const put = await svc.ops.call('PUT', `/drivers/${d.driver_id}/shifts`, { body });
      expect(put.status).toBe(200);
      const expected = {
        driver_id: d.driver_id,
        weekly: [body.weekly[1], body.weekly[0]],
        exceptions: [body.exceptions[1], body.exceptions[0]],
        updated_at: '2026-11-21T08:00:00.000Z',
      };
      expect(put.body).toEqual(expected);
      expect((await svc.ops.call('GET', `/drivers/${d.driver_id}/shifts`)).body).toEqual(expected);
    });

    it('when two shifts overlap (a night into the next morning too), a shift has no length, or a day is both off and worked, then 400 naming each, and the hours stay', async () => {
      const d = await svc.ops.driver('Arun Kumar');
      const good = { weekly: [{ weekday: 2, starts: '08:00', ends: '16:00' }] };
      await svc.ops.call('PUT', `/drivers/${d.driver_id}/shifts`, { body: good });
      const bad = await svc.ops.call('PUT', `/drivers/${d.driver_id}/shifts`, {
        body: {
          weekly: [
            { weekday: 1, starts: '22:00', ends: '07:00' },
            { weekday: 2, starts: '06:00', ends: '12:00' },
            { weekday: 3, starts: '09:00', ends: '09:00' },
          ],
          exceptions: [
            { date: '2026-12-25', off: true },
            { date: '2026-12-25', starts: '10:00', ends: '12:00' },
          ],
        },
      });
      expect(bad.status).toBe(400);
      expect(bad.body.error.details.fields.map((f: any) => f.message)).toEqual([
        expect.stringContaining('no length'),
        expect.stringContaining('weekday 1 22:00–07:00 and weekday 2 06:00–12:00'),
        expect.stringContaining('2026-12-25'),
      ]);
      expect((await svc.ops.call('PUT', `/drivers/${d.driver_id}/shifts`, { body: { weekly: [{ weekday: 8, starts: '25:00', ends: '06:00' }] } })).status).toBe(
        400,
      );
      expect((await svc.ops.call('PUT', '/drivers/drv_nope/shifts', { body: good })).status).toBe(404);
      expect((await svc.ops.call('GET', `/drivers/${d.driver_id}/shifts`)).body.weekly).toEqual(good.weekly);
    });
  });

  describe('travel between jobs', () => {
    it('when a short hotel run is followed 40 minutes after its drop-off by a pickup next door, then one driver takes both', async () => {
      const a = await job('2026-12-02', '10:00', { name: 'Cinnamon Grand, 77 Galle Road, Colombo 03' }, NEAR.Colombo);
      const b = await job('2026-12-02', '11:15', NEAR.Colombo, { name: 'Mount Lavinia' });
      // Not an airport pickup: held from pickup to drop-off (the drive; no wait for a flight), about 40 minutes
      // before the next pickup. The old fixed window (the drive plus a way back) ran past it.
      expect(minutes(a.pickup_at, a.dropoff_at)).toBeLessThan(40);
      expect(minutes(a.dropoff_at, b.pickup_at)).toBeGreaterThanOrEqual(35);
      expect(Date.parse(a.ends_at)).toBeGreaterThan(Date.parse(b.pickup_at));
      const d = await svc.ops.driver('Nuwan Jayasinghe');
      const car = await svc.ops.vehicle('standard_car');
      expect((await assign(a.job_id, d.driver_id, car.vehicle_id)).status).toBe(200);
      expect((await assign(b.job_id, d.driver_id, car.vehicle_id)).status).toBe(200);
    });

    it('when a Kandy run is followed an hour later by an airport pickup, then 409 travel_time naming the job and the minutes short, for the driver and for the vehicle', async () => {
      const kandy = await job('2026-12-03', '08:00', { name: 'Kandy' }, NEAR.Kandy);
      const airport = await job('2026-12-03', '09:15', { iata: 'CMB' }, { name: 'Negombo' });
      // An airport pickup: landing to kerb (45 minutes) before the drive.
      expect(minutes(airport.pickup_at, airport.dropoff_at)).toBeGreaterThanOrEqual(45 + 15);
      const d = await svc.ops.driver('Dilshan Silva');
      const other = await svc.ops.driver('Priya Rajapaksa');
      const car = await svc.ops.vehicle('standard_car');
      const car2 = await svc.ops.vehicle('standard_car');
      expect((await assign(kandy.job_id, d.driver_id, car.vehicle_id)).status).toBe(200);

      const driverShort = await assign(airport.job_id, d.driver_id, car2.vehicle_id);
      expect(driverShort.status).toBe(409);
      expect(driverShort.body.error).toMatchObject({
        code: 'assignment_conflict',
        details: { reason: 'travel_time', resource: 'driver', conflicting_job_id: kandy.job_id, minutes_short: expect.any(Number) },
      });
      // Kandy to the airport is some three hours; the hour between leaves about two short.
      expect(driverShort.body.error.details.minutes_short).toBeGreaterThan(60);
      expect(driverShort.body.error.message).toMatch(/^Driver Dilshan Silva cannot make it: job \d+ leaves \d+ minutes too few/);
      const vehicleShort = await assign(airport.job_id, other.driver_id, car.vehicle_id);
      expect(vehicleShort.body.error.details).toMatchObject({ reason: 'travel_time', resource: 'vehicle', conflicting_job_id: kandy.job_id });
      expect((await svc.ops.call('GET', `/jobs/${airport.job_id}`)).body).toMatchObject({ status: 'confirmed', driver: null });

      // The same check looking forward: the later job first, then the one before it.
      const galle = await job('2026-12-04', '12:00', { name: 'Galle' }, NEAR.Galle);
      const colombo = await job('2026-12-04', '10:30', { name: 'Cinnamon Grand, 77 Galle Road, Colombo 03' }, NEAR.Colombo);
      expect((await assign(galle.job_id, other.driver_id, car2.vehicle_id)).status).toBe(200);
      const forward = await assign(colombo.job_id, other.driver_id, car2.vehicle_id);
      expect(forward.body.error.details).toMatchObject({ reason: 'travel_time', conflicting_job_id: galle.job_id });
      // With time enough (a later pickup), the same driver takes it.
      expect((await assign(airport.job_id, other.driver_id, car2.vehicle_id)).status).toBe(200);
    });

    it('when one driver is assigned at once to four jobs in four towns, each too far from the others, then exactly one assignment wins', async () => {
      const towns = ['Kandy', 'Galle', 'Jaffna', 'Trincomalee'] as const;
      const jobs = [];
      for (const [i, town] of towns.entries()) jobs.push(await job('2026-12-05', `${String(8 + i).padStart(2, '0')}:00`, { name: town }, NEAR[town]));
      const d = await svc.ops.driver('Kasun Bandara');
      const cars: Array<{ vehicle_id: string }> = [];
      for (let i = 0; i < towns.length; i++) cars.push(await svc.ops.vehicle('standard_car'));
      const answers = await Promise.all(jobs.map((j, i) => assign(j.job_id, d.driver_id, cars[i].vehicle_id)));
      expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409]);
      for (const a of answers.filter((x) => x.status === 409)) expect(a.body.error.details.reason).toBe('travel_time');
      const held = (await svc.ops.jobs({ date: '2026-12-05' })).filter((j) => j.driver?.driver_id === d.driver_id);
      expect(held).toHaveLength(1);
    });
  });

  describe('assignment inside the shift', () => {
    it('when the driver has hours, then a job outside any shift, or whose day from and back to the base runs past it, is 409 outside_shift; one that fits is assigned', async () => {
      const d = await svc.ops.driver('Ruwan Jayasinghe');
      const car = await svc.ops.vehicle('standard_car');
      await svc.ops.call('PATCH', `/drivers/${d.driver_id}`, { body: { base: { name: 'Negombo' } } });
      // 2026-12-07 is a Monday; 12-08 a Tuesday (off, by exception).
      await svc.ops.call('PUT', `/drivers/${d.driver_id}/shifts`, {
        body: { weekly: [1, 2].map((weekday) => ({ weekday, starts: '06:00', ends: '14:00' })), exceptions: [{ date: '2026-12-08', off: true }] },
      });
      const evening = await job('2026-12-07', '15:00', { iata: 'CMB' }, { name: 'Negombo' });
      const noShift = await assign(evening.job_id, d.driver_id, car.vehicle_id);
      expect(noShift.status).toBe(409);
      expect(noShift.body.error.details).toEqual({
        reason: 'outside_shift',
        resource: 'driver',
        shift: null,
        leaves_at: expect.stringMatching(/^2026-12-07T1\d:\d\d:00\+05:30$/),
        returns_at: expect.stringMatching(/^2026-12-07T/),
      });
      // Airport to Kandy at 12:30 (landing, a three-hour drive) and back to Negombo: far past 14:00.
      const long = await job('2026-12-07', '12:30', { iata: 'CMB' }, { name: 'Kandy' });
      const pastEnd = await assign(long.job_id, d.driver_id, car.vehicle_id);
      expect(pastEnd.body.error.details).toMatchObject({
        reason: 'outside_shift',
        shift: { starts: '2026-12-07T06:00:00+05:30', ends: '2026-12-07T14:00:00+05:30' },
      });
      expect(Date.parse(pastEnd.body.error.details.returns_at)).toBeGreaterThan(Date.parse('2026-12-07T14:00:00+05:30'));
      const dayOff = await job('2026-12-08', '09:00', { iata: 'CMB' }, { name: 'Negombo' });
      expect((await assign(dayOff.job_id, d.driver_id, car.vehicle_id)).body.error.details).toMatchObject({ reason: 'outside_shift', shift: null });

      const morning = await job('2026-12-07', '08:00', { iata: 'CMB' }, { name: 'Negombo' });
      expect((await assign(morning.job_id, d.driver_id, car.vehicle_id)).status).toBe(200);
    });

    it('when a night shift runs past midnight, then a 02:00 airport pickup in it is assigned; a driver with no hours is not held to any', async () => {
      const d = await svc.ops.driver('Lasantha Wijesinghe');
      const car = await svc.ops.vehicle('standard_car');
      await svc.ops.call('PATCH', `/drivers/${d.driver_id}`, { body: { base: { name: 'Negombo' } } });
      // Wednesday 2026-12-09 20:00 to Thursday 06:00.
      await svc.ops.call('PUT', `/drivers/${d.driver_id}/shifts`, { body: { weekly: [{ weekday: 3, starts: '20:00', ends: '06:00' }] } });
      const night = await job('2026-12-10', '02:00', { iata: 'CMB' }, { name: 'Negombo' });
      expect((await assign(night.job_id, d.driver_id, car.vehicle_id)).status).toBe(200);

      const free = await svc.ops.driver('Roshan Fonseka');
      const car2 = await svc.ops.vehicle('standard_car');
      const sunday = await job('2026-12-13', '23:30', { iata: 'CMB' }, { name: 'Kandy' });
      expect((await assign(sunday.job_id, free.driver_id, car2.vehicle_id)).status).toBe(200);
    });
  });
});
