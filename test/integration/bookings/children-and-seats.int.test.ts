import { ManualClock } from '../../../src/shared/clock';
import { quote, quoteAndBook } from '../../support/bookings';
import { backend } from '../../support/test-app';
import { useTestApp } from '../../support/use-test-app';

const NOW = '2026-11-21T08:00:00Z';

/**
 * Children and their seats: children take seats of the vehicle, seats are priced into every offer, a booking must
 * bring the children its seats are for, a vehicle without the seats is not assigned, and production offers a class
 * for a journey with seats only while a fitted vehicle of it is free.
 */
describe(`Children and child seats (${backend})`, () => {
  const clock = new ManualClock(NOW);
  const svc = useTestApp({ clock, partner: 'Family Travel', resetClock: true });

  it('when a family of two adults and two children quotes, then a 3-seat car is not offered, and every offer prices the seats in', async () => {
    const plain = await quote(svc.call, svc.partner.testKey, { passengers: { adults: 2, luggage: 2 } });
    const r = await quote(svc.call, svc.partner.testKey, {
      passengers: { adults: 2, children: 2, luggage: 2 },
      extras: [
        { code: 'booster_seat', quantity: 1 },
        { code: 'infant_seat', quantity: 1 },
      ],
    });
    const codes = r.body.offers.map((o: { vehicle_code: string }) => o.vehicle_code);
    expect(codes).not.toContain('standard_car');
    expect(codes).toContain('suv');
    const suv = r.body.offers.find((o: { vehicle_code: string }) => o.vehicle_code === 'suv');
    const plainSuv = plain.body.offers.find((o: { vehicle_code: string }) => o.vehicle_code === 'suv');
    // Seats in a fixed order, each priced for its quantity: an infant seat USD 6.00, a booster USD 4.00.
    expect(suv.extras).toEqual([
      { code: 'infant_seat', quantity: 1, price: 6 },
      { code: 'booster_seat', quantity: 1, price: 4 },
    ]);
    expect(suv.price).toBeCloseTo(plainSuv.price + 10, 10);
  });

  it('when seats are priced for an LKR partner, then they are converted at the day rate', async () => {
    const p = await svc.ops.partnerWithKeys('Rupee Travel', 'LKR');
    const r = await quote(svc.call, p.testKey, { passengers: { adults: 1, children: 1, luggage: 1 }, extras: [{ code: 'child_seat', quantity: 1 }] });
    expect(r.body.currency).toBe('LKR');
    const seat = r.body.offers[0].extras[0];
    expect(seat.code).toBe('child_seat');
    expect(seat.price).toBeGreaterThan(1000);
  });

  it('when more seats than children are asked for, or a kind twice, then 400 naming the field', async () => {
    const tooMany = await svc.call('POST', '/transfers/v1/quotes', {
      key: svc.partner.testKey,
      body: {
        pickup: { iata: 'CMB' },
        dropoff: { name: 'Kandy' },
        pickup_datetime: '2026-12-01T09:30:00+05:30',
        passengers: { adults: 2, children: 1 },
        extras: [{ code: 'child_seat', quantity: 2 }],
      },
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.details.fields[0].field).toBe('passengers.children');
    const twice = await svc.call('POST', '/transfers/v1/quotes', {
      key: svc.partner.testKey,
      body: {
        pickup: { iata: 'CMB' },
        dropoff: { name: 'Kandy' },
        pickup_datetime: '2026-12-01T09:30:00+05:30',
        passengers: { adults: 2, children: 2 },
        extras: [
          { code: 'child_seat', quantity: 1 },
          { code: 'child_seat', quantity: 1 },
        ],
      },
    });
    expect(twice.status).toBe(400);
    expect(twice.body.error.details.fields[0].field).toBe('extras');
  });

  it('when a booking leaves out the children its seats are for, then 400; with them, the booking keeps the seats and its meeting instructions say so', async () => {
    const q = await quote(svc.call, svc.partner.testKey, { passengers: { adults: 2, children: 1, luggage: 2 }, extras: [{ code: 'child_seat', quantity: 1 }] });
    const offer = q.body.offers.find((o: { vehicle_code: string }) => o.vehicle_code === 'suv');
    const body = {
      quote_id: q.body.quote_id,
      offer_id: offer.offer_id,
      partner_reference: 'FAMILY-1',
      passenger: { first_name: 'Ayesha', last_name: 'Perera' },
      passengers: { adults: 2, luggage: 2 },
      flight_number: 'UL504',
    };
    const without = await svc.call('POST', '/transfers/v1/bookings', { key: svc.partner.testKey, body });
    expect(without.status).toBe(400);
    expect(without.body.error.details.fields[0].field).toBe('passengers.children');
    const tooBig = await svc.call('POST', '/transfers/v1/bookings', {
      key: svc.partner.testKey,
      body: { ...body, passengers: { adults: 3, children: 2, luggage: 2 } },
    });
    expect(tooBig.status).toBe(409);
    expect(tooBig.body.error.details).toMatchObject({ reason: 'party_exceeds_vehicle', adults: 3, children: 2 });
    const booked = await svc.call('POST', '/transfers/v1/bookings', {
      key: svc.partner.testKey,
      body: { ...body, passengers: { adults: 2, children: 1, luggage: 2 } },
    });
    expect(booked.status).toBe(201);
    expect(booked.body).toMatchObject({
      price: offer.price,
      passengers: { adults: 2, children: 1, luggage: 2 },
      extras: [{ code: 'child_seat', quantity: 1, price: 6 }],
    });
    expect(booked.body.meeting_instructions).toContain('The car has a child seat fitted.');
  });

  describe('in production', () => {
    it('when a vehicle without the seats is assigned, then 409 vehicle_lacks_equipment naming what is missing; a fitted one is assigned', async () => {
      const fitted = await svc.ops.vehicle('suv', { equipment: { child_seat: 2 } });
      expect(fitted).toMatchObject({ equipment: { infant_seat: 0, child_seat: 2, booster_seat: 0 } });
      const bare = await svc.ops.vehicle('suv');
      const driver = await svc.ops.driver('Ruwan Silva', '+94773334445');
      const { booking } = await quoteAndBook(svc.call, svc.partner.liveKey, {
        pickupDatetime: '2026-12-04T09:30:00+05:30',
        passengers: { adults: 2, children: 2, luggage: 2 },
        extras: [{ code: 'child_seat', quantity: 2 }],
        vehicle: 'suv',
      });
      const [job] = await svc.ops.jobs({ booking_ref: booking.booking_ref });
      expect(job).toMatchObject({ passengers: { adults: 2, children: 2, luggage: 2 }, extras: [{ code: 'child_seat', quantity: 2 }] });
      const refused = await svc.ops.call('POST', `/jobs/${job.job_id}/assign`, { body: { driver_id: driver.driver_id, vehicle_id: bare.vehicle_id } });
      expect(refused.status).toBe(409);
      expect(refused.body.error).toMatchObject({ code: 'vehicle_lacks_equipment', details: { vehicle_id: bare.vehicle_id, missing: { child_seat: 2 } } });
      const one = await svc.ops.call('PUT', `/vehicles/${bare.vehicle_id}/equipment`, { body: { child_seat: 1, booster_seat: 1 } });
      expect(one.body.equipment).toEqual({ infant_seat: 0, child_seat: 1, booster_seat: 1 });
      const still = await svc.ops.call('POST', `/jobs/${job.job_id}/assign`, { body: { driver_id: driver.driver_id, vehicle_id: bare.vehicle_id } });
      expect(still.body.error.details.missing).toEqual({ child_seat: 1 });
      const assigned = await svc.ops.call('POST', `/jobs/${job.job_id}/assign`, { body: { driver_id: driver.driver_id, vehicle_id: fitted.vehicle_id } });
      expect(assigned.status).toBe(200);
    });

    it('when no free vehicle of a class carries the seats, then production does not offer the class; a fitted one makes it offered', async () => {
      const ask = () =>
        quote(svc.call, svc.partner.liveKey, {
          pickupDatetime: '2026-12-06T09:30:00+05:30',
          passengers: { adults: 2, children: 1, luggage: 2 },
          extras: [{ code: 'infant_seat', quantity: 1 }],
        });
      const van = await svc.ops.vehicle('standard_van');
      const before = await ask();
      expect(before.body.offers.map((o: { vehicle_code: string }) => o.vehicle_code)).not.toContain('standard_van');
      await svc.ops.call('PUT', `/vehicles/${van.vehicle_id}/equipment`, { body: { infant_seat: 1 } });
      const after = await ask();
      expect(after.body.offers.map((o: { vehicle_code: string }) => o.vehicle_code)).toContain('standard_van');
      // Booked, the fitted van is held for that window: the next family at the same time is not offered a van.
      const { booking } = await quoteAndBook(svc.call, svc.partner.liveKey, {
        pickupDatetime: '2026-12-06T09:30:00+05:30',
        passengers: { adults: 2, children: 1, luggage: 2 },
        extras: [{ code: 'infant_seat', quantity: 1 }],
        vehicle: 'standard_van',
      });
      expect(booking.vehicle_code).toBe('standard_van');
      await svc.ops.vehicle('standard_van');
      const next = await ask();
      expect(next.body.offers.map((o: { vehicle_code: string }) => o.vehicle_code)).not.toContain('standard_van');
    });
  });
});
