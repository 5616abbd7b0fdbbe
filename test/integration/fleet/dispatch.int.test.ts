import { startTestApp } from '../../support/test-app';
import { type Call } from '../../support/http';
import { operator } from '../../support/fixtures';
import { ManualClock } from '../../../src/shared/clock';
import { useTestApp } from '../../support/use-test-app';

const NOW = '2026-11-21T08:00:00Z';
const HOTEL = 'Cinnamon Grand, 77 Galle Road, Colombo 03';
let seq = 0;

/**
 * Dispatch of partner bookings: operators assign drivers and vehicles to production jobs, the database refuses a
 * driver or vehicle on two overlapping jobs (whoever assigns, on whichever instance), and the partner reads the
 * driver and every state of the booking.
 */
describe('Dispatch', () => {
  const clock = new ManualClock(NOW);
  const svc = useTestApp({ clock, partner: 'Dispatch Travel', resetClock: true });
  beforeAll(async () => {
    // Enough of a fleet that quoting offers what these tests book (capacity has its own tests).
    for (let i = 0; i < 24; i++) await svc.ops.vehicle('standard_car');
    await svc.ops.vehicle('standard_van');
  });

  /** A production booking (live key) and its job. Pickups are on separate days unless `day` repeats. */
  async function booked(opts: { day?: number; time?: string; adults?: number; luggage?: number; pickup?: object; dropoff?: object; vehicle?: string } = {}) {
    const day = String(opts.day ?? 2).padStart(2, '0');
    const pickupDatetime = `2026-12-${day}T${opts.time ?? '09:30'}:00+05:30`;
    const passengers = { adults: opts.adults ?? 2, luggage: opts.luggage ?? 2 };
    const q = await svc.call('POST', '/transfers/v1/quotes', {
      key: svc.partner.liveKey,
      body: { pickup: opts.pickup ?? { iata: 'CMB' }, dropoff: opts.dropoff ?? { name: HOTEL }, pickup_datetime: pickupDatetime, passengers },
    });
    expect(q.status).toBe(200);
    const offer = q.body.offers.find((o: any) => o.vehicle_code === (opts.vehicle ?? 'standard_car'));
    expect(offer).toBeDefined();
    seq += 1;
    const b = await svc.call('POST', '/transfers/v1/bookings', {
      key: svc.partner.liveKey,
      body: {
        quote_id: q.body.quote_id,
        offer_id: offer.offer_id,
        partner_reference: `DSP-${seq}`,
        passenger: { first_name: 'Ayesha', last_name: 'Perera', phone: '+94771234567' },
        passengers,
        flight_number: 'UL504',
      },
    });
    expect(b.status).toBe(201);
    const [job] = await svc.ops.jobs({ booking_ref: b.body.booking_ref });
    return { booking: b.body, job };
  }

  const assign = (jobId: string, driverId: string, vehicleId: string, base: Call = svc.ops.call) =>
    base('POST', `/jobs/${jobId}/assign`, { body: { driver_id: driverId, vehicle_id: vehicleId } });
  const readBooking = async (ref: string) => (await svc.call('GET', `/transfers/v1/bookings/${ref}`, { key: svc.partner.liveKey })).body;

  describe('jobs', () => {
    it('when a production booking is made, then it is a confirmed job holding a window, with the hotel text at both ends of the story', async () => {
      const { booking, job } = await booked({ day: 3 });
      expect(booking.dropoff).toMatchObject({ name: HOTEL, resolved_name: 'Colombo' });
      expect(booking.driver).toBeNull();
      expect(booking.meeting_instructions).toContain(HOTEL);
      expect(job).toMatchObject({
        source: 'partner',
        booking_ref: booking.booking_ref,
        order_id: null,
        fleet_code: 'standard_car',
        status: 'confirmed',
        pickup_at: '2026-12-03T04:00:00.000Z',
        pickup: { iata: 'CMB' },
        dropoff: { name: HOTEL, resolved_name: 'Colombo' },
        passengers: { adults: 2, luggage: 2 },
        passenger: { name: 'Ayesha Perera', phone: '+94771234567' },
        flight_number: 'UL504',
        driver: null,
        vehicle: null,
      });
      expect(job.meeting_instructions).toContain(HOTEL);
      // Pickup, the hour's wait after landing, the drive and the way back: hours, not minutes, and not a day.
      const windowMin = (Date.parse(job.ends_at) - Date.parse(job.pickup_at)) / 60_000;
      expect(windowMin).toBeGreaterThan(60 + 30);
      expect(windowMin).toBeLessThan(6 * 60);
      expect(await svc.ops.jobs({ date: '2026-12-03' })).toEqual([job]);
      expect(await svc.ops.jobs({ date: '2026-12-04' })).toEqual([]);
      expect((await svc.ops.call('GET', `/jobs/${job.job_id}`)).body).toEqual(job);
    });

    it("when a poller sends the list's ETag back, then an unchanged list is 304 without a body, and any change (a position) is a new 200", async () => {
      const { job } = await booked({ day: 18 });
      const first = await svc.ops.call('GET', '/jobs?date=2026-12-18');
      const etag = first.headers.get('etag')!;
      expect(first.status).toBe(200);
      expect(etag).toMatch(/^W\/"[A-Za-z0-9_-]{27}"$/);
      const same = await svc.ops.call('GET', '/jobs?date=2026-12-18', { headers: { 'If-None-Match': etag } });
      expect({ status: same.status, text: same.text, etag: same.headers.get('etag') }).toEqual({ status: 304, text: '', etag });
      // Another day's list has another ETag.
      expect((await svc.ops.call('GET', '/jobs?date=2026-12-19', { headers: { 'If-None-Match': etag } })).status).toBe(200);
      expect((await svc.ops.call('POST', `/jobs/${job.job_id}/location`, { body: { lat: 7.1801, lon: 79.8843 } })).status).toBe(202);
      const changed = await svc.ops.call('GET', '/jobs?date=2026-12-18', { headers: { 'If-None-Match': etag } });
      expect(changed.status).toBe(200);
      expect(changed.headers.get('etag')).not.toBe(etag);
      expect(changed.body.data[0].last_location).toMatchObject({ lat: 7.1801, lon: 79.8843 });
      // The 304 is audited like any answer, with no body.
      const [row] = await svc.ops.audit({ request_id: same.headers.get('x-request-id')! });
      expect(row).toMatchObject({ status: 304, response_body: null });
    });

    it('when a sandbox booking is made, then no job appears among the production jobs', async () => {
      const q = await svc.call('POST', '/transfers/v1/quotes', {
        key: svc.partner.testKey,
        body: { pickup: { iata: 'CMB' }, dropoff: { name: 'Kandy' }, pickup_datetime: '2026-12-20T09:30:00+05:30', passengers: { adults: 1 } },
      });
      const b = await svc.call('POST', '/transfers/v1/bookings', {
        key: svc.partner.testKey,
        body: {
          quote_id: q.body.quote_id,
          offer_id: q.body.offers[0].offer_id,
          partner_reference: 'SANDBOX-NOJOB',
          passenger: { first_name: 'A', last_name: 'B' },
          passengers: { adults: 1 },
          flight_number: 'UL504',
        },
      });
      expect(b.status).toBe(201);
      expect(await svc.ops.jobs({ booking_ref: b.body.booking_ref })).toEqual([]);
      expect(await svc.ops.jobs({ date: '2026-12-20' })).toEqual([]);
    });

    it('when a job id is unknown or malformed, then 404 or 400 and nothing else', async () => {
      expect((await svc.ops.call('GET', '/jobs/999999')).status).toBe(404);
      expect((await svc.ops.call('POST', '/jobs/999999/assign', { body: { driver_id: 'drv_x', vehicle_id: 'veh_x' } })).status).toBe(404);
      expect((await svc.ops.call('GET', '/jobs/abc')).status).toBe(400);
      expect((await svc.ops.call('GET', '/jobs?date=2026-02-30')).status).toBe(400);
    });
  });

  describe('assignment', () => {
    it('when a driver and vehicle are assigned, then the job and the partner booking show them; reassignment until pickup replaces them', async () => {
      const { booking, job } = await booked({ day: 5 });
      const sunil = await svc.ops.driver('Sunil Fernando', '+94 77 123 4567');
      const axio = await svc.ops.vehicle('standard_car', { brand: 'Toyota', model: 'Axio', colour: 'White', plate: 'CAB-4821' });
      const r = await assign(job.job_id, sunil.driver_id, axio.vehicle_id);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({
        status: 'driver_assigned',
        driver: { driver_id: sunil.driver_id, name: 'Sunil Fernando', phone: '+94 77 123 4567' },
        vehicle: { vehicle_id: axio.vehicle_id, plate: 'CAB-4821', brand: 'Toyota', model: 'Axio', colour: 'White', fleet_code: 'standard_car' },
      });
      expect(await readBooking(booking.booking_ref)).toMatchObject({
        status: 'driver_assigned',
        driver: { name: 'Sunil Fernando', phone: '+94 77 123 4567', vehicle: 'Toyota Axio (White)', plate: 'CAB-4821' },
      });

      const nimal = await svc.ops.driver('Nimal Silva', '+94 71 555 0101');
      const corolla = await svc.ops.vehicle('standard_car', { model: 'Corolla', colour: 'Silver' });
      const other = await booked({ day: 5, time: '10:00' });
      clock.set('2026-12-05T03:30:00Z'); // half an hour before pickup
      const again = await assign(job.job_id, nimal.driver_id, corolla.vehicle_id);
      expect(again.status).toBe(200);
      expect(again.body.driver.name).toBe('Nimal Silva');
      expect((await readBooking(booking.booking_ref)).driver).toEqual({
        name: 'Nimal Silva',
        phone: '+94 71 555 0101',
        vehicle: 'Toyota Corolla (Silver)',
        plate: corolla.plate,
        location: null,
      });
      // Sunil is free again for that window.
      expect((await assign(other.job.job_id, sunil.driver_id, axio.vehicle_id)).status).toBe(200);

      clock.set('2026-12-05T04:00:00Z'); // pickup
      const late = await assign(job.job_id, sunil.driver_id, axio.vehicle_id);
      expect(late.status).toBe(409);
      expect(late.body.error).toMatchObject({ code: 'job_conflict', details: { reason: 'pickup_passed' } });
      expect((await readBooking(booking.booking_ref)).driver.name).toBe('Nimal Silva');
    });

    it('when the driver or the vehicle holds an overlapping job, then 409 assignment_conflict naming it; a later job is fine', async () => {
      const first = await booked({ day: 6, time: '09:30' });
      const overlapping = await booked({ day: 6, time: '10:30' });
      const later = await booked({ day: 6, time: '18:00' });
      const driver = await svc.ops.driver('Kamal Perera');
      const other = await svc.ops.driver('Ruwan Jayasinghe');
      const car = await svc.ops.vehicle('standard_car');
      const car2 = await svc.ops.vehicle('standard_car');
      expect((await assign(first.job.job_id, driver.driver_id, car.vehicle_id)).status).toBe(200);

      const sameDriver = await assign(overlapping.job.job_id, driver.driver_id, car2.vehicle_id);
      expect(sameDriver.status).toBe(409);
      expect(sameDriver.body.error).toMatchObject({ code: 'assignment_conflict', details: { resource: 'driver', conflicting_job_id: first.job.job_id } });
      expect(sameDriver.body.error.message).toMatch(/^Driver Kamal Perera is already on job \d+ from 09:30 to \d\d:\d\d \(Sri Lanka time\)/);
      const sameVehicle = await assign(overlapping.job.job_id, other.driver_id, car.vehicle_id);
      expect(sameVehicle.status).toBe(409);
      expect(sameVehicle.body.error.details).toMatchObject({ resource: 'vehicle', conflicting_job_id: first.job.job_id });
      expect((await svc.ops.call('GET', `/jobs/${overlapping.job.job_id}`)).body).toMatchObject({ status: 'confirmed', driver: null, vehicle: null });
      expect((await readBooking(overlapping.booking.booking_ref)).status).toBe('confirmed');

      expect((await assign(later.job.job_id, driver.driver_id, car.vehicle_id)).status).toBe(200);
      expect((await assign(overlapping.job.job_id, other.driver_id, car2.vehicle_id)).status).toBe(200);
    });

    it('when the vehicle cannot carry the party, then 409 vehicle_too_small with its limits', async () => {
      const { job } = await booked({ day: 7, adults: 5, luggage: 5, vehicle: 'standard_van' });
      const small = await svc.ops.vehicle('small_car');
      const r = await assign(job.job_id, (await svc.ops.driver('Asanka')).driver_id, small.vehicle_id);
      expect(r.status).toBe(409);
      expect(r.body.error).toMatchObject({ code: 'vehicle_too_small', details: { vehicle_id: small.vehicle_id, adults: 5, luggage: 5 } });
      expect((await svc.ops.call('GET', `/jobs/${job.job_id}`)).body.status).toBe('confirmed');
    });

    it('when the job is cancelled, or the driver or vehicle is off the roster, then 409; an unknown driver is 404', async () => {
      const { booking, job } = await booked({ day: 8 });
      const driver = await svc.ops.driver('Chaminda');
      const car = await svc.ops.vehicle('standard_car');
      expect((await assign(job.job_id, 'drv_nosuch', car.vehicle_id)).status).toBe(404);
      const retired = await svc.ops.vehicle('standard_car');
      expect((await svc.ops.call('POST', `/vehicles/${retired.vehicle_id}/deactivate`)).body.active).toBe(false);
      expect((await assign(job.job_id, driver.driver_id, retired.vehicle_id)).body.error.details.reason).toBe('vehicle_inactive');

      expect((await svc.call('POST', `/transfers/v1/bookings/${booking.booking_ref}/cancel`, { key: svc.partner.liveKey })).status).toBe(200);
      const r = await assign(job.job_id, driver.driver_id, car.vehicle_id);
      expect(r.status).toBe(409);
      expect(r.body.error).toMatchObject({ code: 'job_conflict', details: { reason: 'job_closed', status: 'cancelled' } });
    });

    it('when a booking with a driver is cancelled, then its driver and vehicle are free for an overlapping job', async () => {
      const a = await booked({ day: 9, time: '09:30' });
      const b = await booked({ day: 9, time: '10:00' });
      const driver = await svc.ops.driver('Pradeep');
      const car = await svc.ops.vehicle('standard_car');
      expect((await assign(a.job.job_id, driver.driver_id, car.vehicle_id)).status).toBe(200);
      expect((await assign(b.job.job_id, driver.driver_id, car.vehicle_id)).status).toBe(409);
      const cancelled = await svc.call('POST', `/transfers/v1/bookings/${a.booking.booking_ref}/cancel`, { key: svc.partner.liveKey });
      expect(cancelled.body.status).toBe('cancelled');
      expect((await svc.ops.call('GET', `/jobs/${a.job.job_id}`)).body.status).toBe('cancelled');
      expect((await assign(b.job.job_id, driver.driver_id, car.vehicle_id)).status).toBe(200);
    });
  });

  describe('under real concurrency', () => {
    it('when 12 operators assign one driver to 12 overlapping jobs at once, then exactly one succeeds and the rest are 409', async () => {
      const cars: Array<{ vehicle_id: string }> = [];
      for (let i = 0; i < 12; i++) cars.push(await svc.ops.vehicle('standard_car'));
      const jobs: Array<Record<string, any>> = [];
      for (let i = 0; i < 12; i++) jobs.push((await booked({ day: 11, time: `09:${String(10 + i).padStart(2, '0')}` })).job);
      const driver = await svc.ops.driver('Dinesh');
      const replies = await Promise.all(jobs.map((j, i) => assign(j.job_id, driver.driver_id, cars[i].vehicle_id)));
      expect(replies.map((r) => r.status).sort()).toEqual([200, ...Array(11).fill(409)]);
      for (const r of replies.filter((x) => x.status === 409)) expect(r.body.error.code).toBe('assignment_conflict');
      const assigned = (await svc.ops.jobs({ date: '2026-12-11' })).filter((j) => j.driver?.driver_id === driver.driver_id);
      expect(assigned).toHaveLength(1);
    });

    it('when two service instances on one database assign one vehicle to overlapping jobs at once, then exactly one succeeds', async () => {
      const second = await startTestApp({ clock, db: { db: svc.app.db, env: svc.app.dbEnv, drop: async () => undefined } });
      try {
        const opsTwo = operator(second.url);
        const jobs: Array<Record<string, any>> = [];
        for (let i = 0; i < 10; i++) jobs.push((await booked({ day: 12, time: `10:${String(10 + i).padStart(2, '0')}` })).job);
        const van = await svc.ops.vehicle('standard_car');
        const drivers: Array<{ driver_id: string }> = [];
        for (let i = 0; i < 10; i++) drivers.push(await svc.ops.driver(`Driver ${i}`));
        const replies = await Promise.all(jobs.map((j, i) => assign(j.job_id, drivers[i].driver_id, van.vehicle_id, i % 2 ? opsTwo.call : svc.ops.call)));
        expect(replies.filter((r) => r.status === 200)).toHaveLength(1);
        expect(replies.filter((r) => r.status === 409 && r.body.error.code === 'assignment_conflict')).toHaveLength(9);
        expect((await svc.ops.jobs({ date: '2026-12-12' })).filter((j) => j.vehicle?.vehicle_id === van.vehicle_id)).toHaveLength(1);
      } finally {
        await second.close();
      }
    });
  });

  describe('the end of a job', () => {
    it('when a job is completed at or after pickup, then the partner reads completed; before pickup it is 409', async () => {
      const { booking, job } = await booked({ day: 14 });
      const driver = await svc.ops.driver('Lasith');
      await assign(job.job_id, driver.driver_id, (await svc.ops.vehicle('standard_car')).vehicle_id);
      const early = await svc.ops.call('POST', `/jobs/${job.job_id}/complete`);
      expect(early.status).toBe(409);
      expect(early.body.error.details.reason).toBe('before_pickup');
      clock.set('2026-12-14T06:00:00Z');
      const done = await svc.ops.call('POST', `/jobs/${job.job_id}/complete`);
      expect(done.status).toBe(200);
      expect(done.body.status).toBe('completed');
      expect((await svc.ops.call('POST', `/jobs/${job.job_id}/complete`)).body).toEqual(done.body);
      const read = await readBooking(booking.booking_ref);
      expect(read).toMatchObject({ status: 'completed', driver: { name: 'Lasith' } });
      const cancel = await svc.call('POST', `/transfers/v1/bookings/${booking.booking_ref}/cancel`, { key: svc.partner.liveKey });
      expect(cancel.status).toBe(409);
      expect(cancel.body.error.details.reason).toBe('finished');
    });

    it('when a no-show is reported, then only after pickup and within 24 hours of it; the partner reads no_show', async () => {
      const { booking, job } = await booked({ day: 15 });
      const noShow = (note = 'Waited 70 minutes at arrivals with a name board.') => svc.ops.call('POST', `/jobs/${job.job_id}/no-show`, { body: { note } });
      clock.set('2026-12-15T03:59:00Z'); // a minute before pickup
      const early = await noShow();
      expect(early.status).toBe(409);
      expect(early.body.error).toMatchObject({ code: 'job_conflict', details: { reason: 'too_early', pickup_at: '2026-12-15T04:00:00.000Z' } });
      clock.set('2026-12-16T04:01:00Z'); // 24 hours and a minute after
      const late = await noShow();
      expect(late.status).toBe(409);
      expect(late.body.error.details.reason).toBe('too_late');
      expect((await readBooking(booking.booking_ref)).status).toBe('confirmed');

      clock.set('2026-12-15T05:10:00Z');
      const ok = await noShow();
      expect(ok.status).toBe(200);
      expect(ok.body.status).toBe('no_show');
      expect((await readBooking(booking.booking_ref)).status).toBe('no_show');
      expect((await noShow()).body.error.details).toMatchObject({ reason: 'job_closed', status: 'no_show' });
      const job2 = await svc.app.db('jobs').where({ jobId: job.job_id }).first();
      expect(job2.noShowNote).toBe('Waited 70 minutes at arrivals with a name board.');
    });
  });

  describe('positions of partner jobs', () => {
    it('when a driver reports positions, then 202 and the job keeps the newest; nothing goes to the marketplace', async () => {
      const { job } = await booked({ day: 16 });
      clock.set('2026-12-16T03:30:00Z');
      const r = await svc.ops.call('POST', `/jobs/${job.job_id}/location`, { body: { lat: 7.1801, lon: 79.8843 } });
      expect(r.status).toBe(202);
      expect(r.body).toEqual({ job_id: job.job_id, at: '2026-12-16T03:30:00.000Z', forwarded: false });
      await svc.ops.call('POST', `/jobs/${job.job_id}/location`, { body: { lat: 7.0, lon: 79.9, at: '2026-12-16T03:20:00Z' } }); // older, arrives late
      expect((await svc.ops.call('GET', `/jobs/${job.job_id}`)).body.last_location).toEqual({ lat: 7.1801, lon: 79.8843, at: '2026-12-16T03:30:00.000Z' });
      expect(await svc.app.db('outbox').where({ kind: 'driver_location' })).toHaveLength(0);
      const bad = await svc.ops.call('POST', `/jobs/${job.job_id}/location`, { body: { lat: 91, lon: 79.9 } });
      expect(bad.status).toBe(400);
    });
  });
});
