import { marketplaceClient, MARKETPLACE_ENV } from '../../support/marketplace';
import { ManualClock } from '../../../src/shared/clock';
import { useTestApp } from '../../support/use-test-app';

const NOW = '2026-11-21T08:00:00Z';
let seq = 0;

/**
 * Production quoting offers only what the fleet has free for the journey's window; a booking checks again in the
 * database, so an offer quoted before the fleet filled up is refused rather than confirmed unfulfillable. Sandbox is
 * never limited. The marketplace sees the same availability.
 */
describe('Capacity-aware quoting', () => {
  const clock = new ManualClock(NOW);
  const svc = useTestApp({ clock, env: MARKETPLACE_ENV, outboxWorker: false, partner: 'Capacity Travel' });

  const pickup = (day: number, time = '09:30') => `2026-12-${String(day).padStart(2, '0')}T${time}:00+05:30`;
  const quote = async (key: string, pickupDatetime: string, adults = 2) => {
    const r = await svc.call('POST', '/transfers/v1/quotes', {
      key,
      body: { pickup: { iata: 'CMB' }, dropoff: { name: 'Kandy' }, pickup_datetime: pickupDatetime, passengers: { adults, luggage: 2 } },
    });
    expect(r.status).toBe(200);
    return r.body;
  };
  const codes = (q: any) => q.offers.map((o: any) => o.vehicle_code).sort();
  const book = (key: string, q: any, code: string) => {
    seq += 1;
    return svc.call('POST', '/transfers/v1/bookings', {
      key,
      body: {
        quote_id: q.quote_id,
        offer_id: q.offers.find((o: any) => o.vehicle_code === code).offer_id,
        partner_reference: `CAP-${seq}`,
        passenger: { first_name: 'A', last_name: 'B' },
        passengers: { adults: 2, luggage: 2 },
        flight_number: 'UL504',
      },
    });
  };

  it('when no vehicle is registered (a fresh production database), then quoting and booking work on the fleet table alone', async () => {
    const q = await quote(svc.partner.liveKey, pickup(2));
    expect(codes(q)).toEqual(['large_van', 'premium_car', 'premium_van', 'small_car', 'standard_bus', 'standard_car', 'standard_van', 'suv']);
    expect((await book(svc.partner.liveKey, q, 'standard_car')).status).toBe(201);
  });

  it('when vehicles are registered, then production offers only the classes with one free for the window; cancelling frees it', async () => {
    const car = await svc.ops.vehicle('standard_car');
    await svc.ops.vehicle('standard_van');
    const first = await quote(svc.partner.liveKey, pickup(4));
    expect(codes(first)).toEqual(['standard_car', 'standard_van']);
    const booking = await book(svc.partner.liveKey, first, 'standard_car');
    expect(booking.status).toBe(201);

    // The car is held for the window, assigned or not: an overlapping pickup gets the van only.
    expect(codes(await quote(svc.partner.liveKey, pickup(4, '10:30')))).toEqual(['standard_van']);
    // Before the window and after it, the car is free.
    expect(codes(await quote(svc.partner.liveKey, pickup(4, '03:00')))).toEqual(['standard_car', 'standard_van']);
    expect(codes(await quote(svc.partner.liveKey, pickup(4, '16:00')))).toEqual(['standard_car', 'standard_van']);

    await svc.call('POST', `/transfers/v1/bookings/${booking.body.booking_ref}/cancel`, { key: svc.partner.liveKey });
    expect(codes(await quote(svc.partner.liveKey, pickup(4, '10:30')))).toEqual(['standard_car', 'standard_van']);

    await svc.ops.call('POST', `/vehicles/${car.vehicle_id}/deactivate`);
    expect(codes(await quote(svc.partner.liveKey, pickup(4, '10:30')))).toEqual(['standard_van']);
    await svc.ops.vehicle('standard_car'); // back to one car for the tests below
  });

  it('when everything that carries the party is taken, then the normal 200 no_vehicle decline', async () => {
    const q = await quote(svc.partner.liveKey, pickup(6));
    expect((await book(svc.partner.liveKey, q, 'standard_car')).status).toBe(201);
    expect((await book(svc.partner.liveKey, await quote(svc.partner.liveKey, pickup(6)), 'standard_van')).status).toBe(201);
    const full = await quote(svc.partner.liveKey, pickup(6, '10:00'));
    expect(full).toMatchObject({ offers: [], declined: { reason: 'no_vehicle' } });
    expect(full.declined.message).toMatch(/taken at that time/);
  });

  it('when the fleet fills between quote and booking, then the stale offer is 409 booking_conflict fleet_full, never a confirmation', async () => {
    const mine = await quote(svc.partner.liveKey, pickup(8));
    const other = await svc.ops.partnerWithKeys('Faster Travel');
    const theirs = await quote(other.liveKey, pickup(8));
    expect((await book(other.liveKey, theirs, 'standard_car')).status).toBe(201);
    const r = await book(svc.partner.liveKey, mine, 'standard_car');
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ code: 'booking_conflict', details: { reason: 'fleet_full', vehicle_code: 'standard_car' } });
    expect(r.body.error.message).toMatch(/^Every Standard Car of our fleet is taken/);
    expect(await svc.app.db('bookings').where({ quoteId: mine.quote_id })).toHaveLength(0);
    // The van offer of the same quote is still good.
    expect((await book(svc.partner.liveKey, mine, 'standard_van')).status).toBe(201);
  });

  it('when eight partners race to book the last car at once, then exactly one is confirmed and seven get fleet_full', async () => {
    const racers: Array<{ key: string; quote: any }> = [];
    for (let i = 0; i < 8; i++) {
      const p = await svc.ops.partnerWithKeys(`Racer ${i}`);
      racers.push({ key: p.liveKey, quote: await quote(p.liveKey, pickup(10)) });
    }
    const replies = await Promise.all(racers.map((r) => book(r.key, r.quote, 'standard_car')));
    expect(replies.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    for (const r of replies.filter((x) => x.status === 409)) expect(r.body.error.details.reason).toBe('fleet_full');
    expect((await svc.ops.jobs({ date: '2026-12-10' })).filter((j) => j.fleet_code === 'standard_car')).toHaveLength(1);
  });

  it('when the sandbox quotes and books, then the real fleet never limits it and never fills', async () => {
    expect(codes(await quote(svc.partner.testKey, pickup(6, '10:00')))).toHaveLength(8);
    for (let i = 0; i < 3; i++) expect((await book(svc.partner.testKey, await quote(svc.partner.testKey, pickup(12)), 'standard_car')).status).toBe(201);
    expect(codes(await quote(svc.partner.liveKey, pickup(12)))).toEqual(['standard_car', 'standard_van']);
    expect(await svc.ops.jobs({ date: '2026-12-12' })).toEqual([]);
  });

  it('when the marketplace searches or books, then it sees the same availability, and an order for a full class is declined', async () => {
    const mp = marketplaceClient(svc.app.url);
    const search = (date: string) => mp.signed('POST', '/search/', { from: { iata: 'CMB' }, to: { name: 'Kandy' }, date, adults: 2, luggage: 2 });
    // Day 6 09:30: the car and the van are both taken.
    const full = await search('2026-12-06 10:00:00');
    expect(full.status).toBe(200);
    expect(full.body.vehicles).toEqual([]);
    const open = await search('2026-12-14 09:30:00');
    expect(open.body.vehicles.map((v: any) => v.vehicle_id).sort()).toEqual(['standard_car', 'standard_van']);

    // The car fills after the search: the order is declined (no_vehicle), with no job.
    const car = open.body.vehicles.find((v: any) => v.vehicle_id === 'standard_car');
    expect((await book(svc.partner.liveKey, await quote(svc.partner.liveKey, pickup(14)), 'standard_car')).status).toBe(201);
    const order = {
      order_id: 'INT-CAP-1',
      price_mark: car.price_mark,
      vehicle_id: 'standard_car',
      price: car.price,
      currency: 'EUR',
      from: { iata: 'CMB' },
      to: { name: 'Kandy' },
      date: '2026-12-14 09:30:00',
      adults: 2,
      children: 0,
      luggage: 2,
      meeting_type: 'MG',
      customer: { name: 'Anna Schmidt' },
      flight_number: 'UL504',
    };
    const r = await mp.signed('POST', '/booking/', order);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'OK', order_id: 'INT-CAP-1', order_state: 'declined' });
    expect(await svc.ops.jobs({ order_id: 'INT-CAP-1' })).toEqual([]);
    expect((await svc.app.db('outbox').where({ orderId: 'INT-CAP-1' }).first()).payload).toMatchObject({ reason: 'no_vehicle' });
  });
});
