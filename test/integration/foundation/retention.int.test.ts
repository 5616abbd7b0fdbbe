import { client } from '../../support/http';
import { operator } from '../../support/fixtures';
import { marketplaceClient, MARKETPLACE_ENV } from '../../support/marketplace';
import { ManualClock } from '../../../src/shared/clock';
import { runRetention } from '../../../src/retention';
import { useTestApp } from '../../support/use-test-app';

describe('The retention pass', () => {
  const clock = new ManualClock('2026-11-21T08:00:00Z');
  const svc = useTestApp({ clock, env: MARKETPLACE_ENV, outboxWorker: false });

  it('when data is past its documented retention, then it is purged; booked quotes and live keys stay', async () => {
    const call = client(svc.app.url);
    const { testKey } = await operator(svc.app.url).partnerWithKeys('Retention Travel');
    const quote = (pickup_datetime: string) =>
      call('POST', '/transfers/v1/quotes', {
        key: testKey,
        body: { pickup: { name: 'Kandy' }, dropoff: { name: 'Galle' }, pickup_datetime, passengers: { adults: 1 } },
      });
    const booked = await quote('2026-12-01T09:30:00+05:30');
    const unbooked = await quote('2026-12-01T09:30:00+05:30');
    const booking = await call('POST', '/transfers/v1/bookings', {
      key: testKey,
      headers: { 'Idempotency-Key': 'keep-me' },
      body: {
        quote_id: booked.body.quote_id,
        offer_id: booked.body.offers[0].offer_id,
        partner_reference: 'R-1',
        passenger: { first_name: 'A', last_name: 'B' },
        passengers: { adults: 1 },
      },
    });
    expect(booking.status).toBe(201);
    const search = await marketplaceClient(svc.app.url).signed('POST', '/search/', {
      from: { iata: 'CMB' },
      to: { name: 'Kandy' },
      date: '2026-12-01 09:30:00',
      adults: 1,
    });
    expect(search.body.vehicles.length).toBeGreaterThan(0);

    // Six days on: nothing is old enough yet.
    clock.set('2026-11-27T08:00:00Z');
    expect(await runRetention(svc.app.deps)).toMatchObject({
      quotes: 0,
      idempotencyKeys: 0,
      priceMarks: 0,
      auditPartitionsMade: 0,
      auditPartitionsDropped: [],
    });

    // Nine days on: expired quotes and marks are past 7 days; the key is kept until pickup + 24 h.
    clock.set('2026-11-30T08:00:00Z');
    const pass = await runRetention(svc.app.deps);
    expect(pass.quotes).toBeGreaterThanOrEqual(1);
    expect(pass.priceMarks).toBe(search.body.vehicles.length);
    expect(pass.idempotencyKeys).toBe(0);
    expect(await svc.app.db('quotes').where({ quoteId: unbooked.body.quote_id })).toHaveLength(0);
    expect(await svc.app.db('quotes').where({ quoteId: booked.body.quote_id })).toHaveLength(1);
    expect(await svc.app.db('offers').where({ quoteId: booked.body.quote_id })).not.toHaveLength(0);

    // A day after the pickup (2026-12-01 04:00 UTC) the key goes too; the booking stays readable.
    clock.set('2026-12-02T04:00:01Z');
    expect((await runRetention(svc.app.deps)).idempotencyKeys).toBe(1);
    expect((await call('GET', `/transfers/v1/bookings/${booking.body.booking_ref}`, { key: testKey })).status).toBe(200);
  });
});
