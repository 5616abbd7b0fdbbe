import { startTestApp } from '../../support/test-app';
import { client } from '../../support/http';
import { operator, OPS_HEADERS } from '../../support/fixtures';
import { marketplaceClient, MARKETPLACE_ENV } from '../../support/marketplace';
import { useTestApp } from '../../support/use-test-app';

/**
 * The hot paths in as few round trips as correctness allows, counted at the database handle. A key used before is
 * known to the instance; what the request writes commits with its audit row, and with the assertion that the key
 * is still valid, in one statement.
 */
describe('Round trips to the database per request', () => {
  let statements: string[] = [];

  const svc = useTestApp({ env: MARKETPLACE_ENV, outboxWorker: false, partner: 'Round Trip Travel' });
  beforeAll(() => {
    svc.app.deps.db.observer = (text) => statements.push(text.replace(/\s+/g, ' ').slice(0, 120));
  });

  async function counted<T>(run: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
    statements = [];
    const result = await run();
    return { result, statements: [...statements] };
  }

  const quoteBody = {
    pickup: { iata: 'CMB' },
    dropoff: { name: 'Kandy' },
    pickup_datetime: '2026-12-01T09:30:00+05:30',
    passengers: { adults: 2, luggage: 2 },
  };

  it('when a known key pings, quotes, books the offer it was quoted, replays and reads, then 1, 1, 1, 1 and 2 statements', async () => {
    await svc.call('GET', '/transfers/v1/ping', { key: svc.partner.liveKey }); // the instance meets the key
    await svc.call('POST', '/transfers/v1/quotes', { key: svc.partner.liveKey, body: quoteBody }); // and learns no vehicle is registered (kept 5 s)
    const ping = await counted(() => svc.call('GET', '/transfers/v1/ping', { key: svc.partner.liveKey }));
    expect(ping.result.status).toBe(200);
    expect(ping.statements).toHaveLength(1);

    const quote = await counted(() => svc.call('POST', '/transfers/v1/quotes', { key: svc.partner.liveKey, body: quoteBody }));
    expect(quote.result.body.offers).toHaveLength(8);
    expect(quote.statements).toHaveLength(1);

    const offer = quote.result.body.offers[0];
    const body = {
      quote_id: quote.result.body.quote_id,
      offer_id: offer.offer_id,
      partner_reference: 'RT-1',
      passenger: { first_name: 'A', last_name: 'B' },
      passengers: { adults: 2, luggage: 2 },
      flight_number: 'UL504',
    };
    const booking = await counted(() => svc.call('POST', '/transfers/v1/bookings', { key: svc.partner.liveKey, body, headers: { 'Idempotency-Key': 'rt-1' } }));
    expect(booking.result.status).toBe(201);
    expect(booking.statements).toHaveLength(1);

    const replay = await counted(() => svc.call('POST', '/transfers/v1/bookings', { key: svc.partner.liveKey, body, headers: { 'Idempotency-Key': 'rt-1' } }));
    expect(replay.result.status).toBe(200);
    expect(replay.result.text).toBe(booking.result.text);
    expect(replay.statements).toHaveLength(1);

    const read = await counted(() => svc.call('GET', `/transfers/v1/bookings/${booking.result.body.booking_ref}`, { key: svc.partner.liveKey }));
    expect(read.result.status).toBe(200);
    expect(read.statements).toHaveLength(2);
  });

  it('when the partner has a rate limit, then the quote still makes one statement: its token is taken in it', async () => {
    const limited = await operator(svc.app.url).partnerWithKeys('Round Trip Limited');
    await operator(svc.app.url).call('PUT', `/partners/${limited.partner_id}/rate-limit`, { body: { env: 'production', requests_per_second: 50, burst: 100 } });
    await svc.call('GET', '/transfers/v1/ping', { key: limited.liveKey }); // the instance meets the key and its limit
    await svc.call('POST', '/transfers/v1/quotes', { key: limited.liveKey, body: quoteBody });
    const quote = await counted(() => svc.call('POST', '/transfers/v1/quotes', { key: limited.liveKey, body: quoteBody }));
    expect(quote.result.status).toBe(200);
    expect(quote.statements).toHaveLength(1);
    // … and it took its token: ping, two quotes.
    const [bucket] = await svc.app.db('rate_buckets').where({ scope: `partner:${limited.partner_id}:production` });
    expect(bucket.tokens).toBeCloseTo(97, 0);
  });

  it('when the offer was quoted by another instance, then the booking reads its facts first: 2 statements, and its replay 2', async () => {
    const other = await startTestApp({
      db: { db: svc.app.db, env: svc.app.dbEnv, drop: async () => undefined },
      env: MARKETPLACE_ENV,
      outboxWorker: false,
    });
    try {
      const quote = await client(other.url)('POST', '/transfers/v1/quotes', { key: svc.partner.liveKey, body: quoteBody });
      const offer = quote.body.offers[0];
      const body = {
        quote_id: quote.body.quote_id,
        offer_id: offer.offer_id,
        partner_reference: 'RT-2',
        passenger: { first_name: 'A', last_name: 'B' },
        passengers: { adults: 2, luggage: 2 },
        flight_number: 'UL504',
      };
      const booking = await counted(() =>
        svc.call('POST', '/transfers/v1/bookings', { key: svc.partner.liveKey, body, headers: { 'Idempotency-Key': 'rt-2' } }),
      );
      expect(booking.result.status).toBe(201);
      expect(booking.statements).toHaveLength(2);
      const replayElsewhere = await client(other.url)('POST', '/transfers/v1/bookings', {
        key: svc.partner.liveKey,
        body,
        headers: { 'Idempotency-Key': 'rt-2' },
      });
      expect(replayElsewhere.status).toBe(200);
      expect(replayElsewhere.text).toBe(booking.result.text);
    } finally {
      await other.close();
    }
  });

  it('when the marketplace searches, then one statement stores its price marks and its audit row', async () => {
    // The instance's knowledge that no vehicle is registered is kept 5 s: the other instance may have outlived it.
    await svc.call('POST', '/transfers/v1/quotes', { key: svc.partner.liveKey, body: quoteBody });
    const search = await counted(() =>
      marketplaceClient(svc.app.url).signed('POST', '/search/', { from: { iata: 'CMB' }, to: { name: 'Kandy' }, date: '2026-12-01 09:30:00', adults: 2 }),
    );
    expect(search.result.body.vehicles.length).toBeGreaterThan(0);
    expect(search.statements).toHaveLength(1);
  });

  it('when a key is new to the instance, then one more statement reads it', async () => {
    const fresh = await operator(svc.app.url).key((await operator(svc.app.url).partner('Newcomer')).partner_id, 'sandbox');
    const ping = await counted(() => svc.call('GET', '/transfers/v1/ping', { key: fresh.key }));
    expect(ping.result.status).toBe(200);
    expect(ping.statements).toHaveLength(2);
  });

  it('when production has a registered fleet, then a quote reads its availability first: 2 statements', async () => {
    const vehicle = await svc.call('POST', '/ops/v1/vehicles', {
      headers: OPS_HEADERS,
      body: { fleet_code: 'standard_car', plate: 'CAR-0001', brand: 'Toyota', model: 'Axio', colour: 'White' },
    });
    expect(vehicle.status).toBe(201);
    await svc.call('POST', '/transfers/v1/quotes', { key: svc.partner.liveKey, body: quoteBody }); // the instance learns a fleet is registered
    const quote = await counted(() => svc.call('POST', '/transfers/v1/quotes', { key: svc.partner.liveKey, body: quoteBody }));
    expect(quote.result.body.offers.map((o: { vehicle_code: string }) => o.vehicle_code)).toEqual(['standard_car']);
    expect(quote.statements).toHaveLength(2);
    expect(quote.statements[0]).toMatch(/fleet_free_classes/);
  });
});
