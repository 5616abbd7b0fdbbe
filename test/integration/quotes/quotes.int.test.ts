import { ManualClock } from '../../../src/shared/clock';
import { runRetention } from '../../../src/retention';
import { useTestApp } from '../../support/use-test-app';

const NOW = '2026-11-21T08:00:00Z';
const PICKUP = '2026-12-01T09:30:00+05:30';
const journey = (over: Record<string, unknown> = {}) => ({
  pickup: { iata: 'CMB' },
  dropoff: { name: 'Kandy' },
  pickup_datetime: PICKUP,
  passengers: { adults: 2, luggage: 2 },
  ...over,
});

describe('Quoting over the API', () => {
  const clock = new ManualClock(NOW);
  const svc = useTestApp({ clock, partner: 'Quote Partner', resetClock: true });

  const quote = (body: unknown, key = svc.partner.testKey) => svc.call('POST', '/transfers/v1/quotes', { key, body });

  it('when an airport journey fits, then offers come cheapest first, locked 30 minutes, stored exactly as returned', async () => {
    const r = await quote(journey());
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      env: 'sandbox',
      quote_id: expect.stringMatching(/^[0-9a-f]{32}$/),
      created_at: '2026-11-21T08:00:00.000Z',
      expires_at: '2026-11-21T08:30:00.000Z',
      currency: 'USD',
      journey_type: 'arrival',
      pickup: { iata: 'CMB' },
      declined: null,
    });
    const offers = r.body.offers as Array<Record<string, any>>;
    expect(offers.map((o) => o.vehicle_code).sort()).toEqual([
      'large_van',
      'premium_car',
      'premium_van',
      'small_car',
      'standard_bus',
      'standard_car',
      'standard_van',
      'suv',
    ]);
    expect(offers[0].vehicle_code).toBe('small_car');
    const prices = offers.map((o) => o.price);
    expect([...prices].sort((a, b) => a - b)).toEqual(prices);
    for (const o of offers) {
      expect(o.vehicle).toMatch(/ or similar$/);
      expect(o.expires_at).toBe('2026-11-21T08:30:00.000Z');
      expect(o.offer_id).toMatch(/^[0-9a-f]{32}$/);
    }
    const standard = offers.find((o) => o.vehicle_code === 'standard_car')!;
    expect(standard.price).toBeGreaterThanOrEqual(55);
    expect(standard.price).toBeLessThanOrEqual(70);
    const stored = await svc.app.db('offers').where({ quoteId: r.body.quote_id }).orderBy('position');
    expect(stored.map((o: any) => Number(o.amountMinor) / 100)).toEqual(prices);
    expect(stored.every((o: any) => o.partnerId === svc.partner.partner_id && o.env === 'sandbox')).toBe(true);
  });

  it('when the party is large, then only vehicles that carry it are offered; too large declines no_vehicle', async () => {
    const five = await quote(journey({ passengers: { adults: 5, luggage: 5 } }));
    expect(five.body.offers.map((o: any) => o.vehicle_code).sort()).toEqual(['large_van', 'premium_van', 'standard_bus', 'standard_van']);
    for (const o of five.body.offers) expect(o.max_passengers).toBeGreaterThanOrEqual(5);
    const bags = await quote(journey({ passengers: { adults: 1, luggage: 3 } }));
    expect(bags.body.offers.map((o: any) => o.vehicle_code)).not.toContain('small_car');
    const crowd = await quote(journey({ passengers: { adults: 21, luggage: 0 } }));
    expect(crowd.body).toMatchObject({ offers: [], declined: { reason: 'no_vehicle' } });
    // One reason, and what to change.
    expect(crowd.body.declined.message).toBe(
      'No vehicle of ours carries 21 adults and 0 bags (the largest takes 20 passengers and 20 bags); split the party into several bookings.',
    );
  });

  it('when a journey is longer, then every vehicle costs more', async () => {
    const shortTrip = await quote(journey({ dropoff: { name: 'Negombo' } }));
    const longTrip = await quote(journey({ dropoff: { name: 'Ella' } }));
    const price = (r: typeof shortTrip, code: string) => r.body.offers.find((o: any) => o.vehicle_code === code).price;
    for (const o of shortTrip.body.offers) expect(price(longTrip, o.vehicle_code)).toBeGreaterThan(o.price);
  });

  it('when places are given by airport name, hotel address or lat/lon, then they resolve', async () => {
    const byName = await quote(
      journey({ pickup: { name: 'Bandaranaike International Airport' }, dropoff: { name: 'Cinnamon Grand, 77 Galle Road, Colombo 03' } }),
    );
    expect(byName.body.journey_type).toBe('arrival');
    expect(byName.body.pickup.iata).toBe('CMB');
    expect(byName.body.dropoff.name).toBe('Colombo');
    const departure = await quote(journey({ pickup: { name: 'Jetwing Lighthouse, Galle' }, dropoff: { iata: 'cmb' } }));
    expect(departure.body).toMatchObject({ journey_type: 'departure', pickup: { name: 'Galle' } });
    const p2p = await quote(journey({ pickup: { name: 'Kandy' }, dropoff: { name: 'Nuwara Eliya' } }));
    expect(p2p.body.journey_type).toBe('point_to_point');
    expect(p2p.body.route.distance_km).toBeGreaterThan(68);
    expect(p2p.body.route.distance_km).toBeLessThan(84);
  });

  it('when a place is unknown, then route_unknown names it, and sending lat/lon fixes it', async () => {
    const unknown = await quote(journey({ dropoff: { name: 'Villa Serendipity Hideaway' } }));
    expect(unknown.status).toBe(200);
    expect(unknown.body).toMatchObject({ offers: [], declined: { reason: 'route_unknown', hint: { dropoff: expect.any(Object) } }, journey_type: null });
    expect(unknown.body.declined.message).toMatch(/lat\/lon/);
    const fixed = await quote(journey({ dropoff: { name: 'Villa Serendipity Hideaway', lat: 6.0329, lon: 80.2168 } }));
    expect(fixed.body.declined).toBeNull();
    expect(fixed.body.offers.length).toBeGreaterThan(0);
    const abroad = await quote(journey({ dropoff: { lat: 13.0827, lon: 80.2707 } }));
    expect(abroad.body.declined.reason).toBe('route_unknown');
  });

  it('when pickup is under 24 hours ahead, then short_notice with the earliest acceptable pickup', async () => {
    const r = await quote(journey({ pickup_datetime: '2026-11-22T07:59:00Z' }));
    expect(r.body).toMatchObject({
      offers: [],
      declined: { reason: 'short_notice', hint: { earliest_pickup_datetime: '2026-11-22T08:00:00.000Z' } },
    });
    expect((await quote(journey({ pickup_datetime: '2026-11-22T08:00:00Z' }))).body.declined).toBeNull();
    clock.advance(60 * 60 * 1000);
    expect((await quote(journey({ pickup_datetime: '2026-11-22T08:00:00Z' }))).body.declined.reason).toBe('short_notice');
  });

  it('when a short-notice pickup is written with an offset, then the earliest acceptable pickup is given in that offset, the same instant', async () => {
    const colombo = await quote(journey({ pickup_datetime: '2026-11-22T13:29:00+05:30' }));
    expect(colombo.body.declined).toMatchObject({ reason: 'short_notice', hint: { earliest_pickup_datetime: '2026-11-22T13:30:00+05:30' } });
    expect(colombo.body.declined.message).toContain('the earliest pickup we can accept now is 2026-11-22T13:30:00+05:30.');
    expect(Date.parse(colombo.body.declined.hint.earliest_pickup_datetime)).toBe(Date.parse('2026-11-22T08:00:00Z'));
    // Any offset, written with or without its colon, is answered in RFC 3339's ±HH:MM.
    const west = await quote(journey({ pickup_datetime: '2026-11-21T12:00:00-0330' }));
    expect(west.body.declined.hint).toEqual({ earliest_pickup_datetime: '2026-11-22T04:30:00-03:30' });
    // Offered at the earliest pickup, as given, the journey is quoted.
    expect((await quote(journey({ pickup_datetime: colombo.body.declined.hint.earliest_pickup_datetime }))).body.declined).toBeNull();
  });

  it('when the journey is a few hundred metres, then below_min_rate, the minimum fare in the quote currency', async () => {
    const r = await quote(journey({ pickup: { lat: 6.9271, lon: 79.8612 }, dropoff: { lat: 6.9301, lon: 79.8622 } }));
    expect(r.body).toMatchObject({ offers: [], declined: { reason: 'below_min_rate', hint: { min_fare: 21, currency: 'USD' } } });
    const rupees = await svc.ops.partnerWithKeys('Rupee Partner', 'LKR');
    const inLkr = await quote(journey({ pickup: { lat: 6.9271, lon: 79.8612 }, dropoff: { lat: 6.9301, lon: 79.8622 } }), rupees.testKey);
    expect(inLkr.body).toMatchObject({ currency: 'LKR', offers: [], declined: { reason: 'below_min_rate' } });
    // $21.00 at the day's rate (FX_USD_LKR, 300 by default), as an LKR offer would be priced; no US cents.
    expect(inLkr.body.declined.hint).toEqual({ distance_km: expect.any(Number), journey_rate: expect.any(Number), min_fare: 6300, currency: 'LKR' });
    expect(inLkr.body.declined.hint.journey_rate).toBeLessThan(6300);
  });

  it('when the partner is paused, then partner_paused comes first, even before short_notice', async () => {
    await svc.ops.call('POST', `/partners/${svc.partner.partner_id}/pause`);
    try {
      const r = await quote(journey({ pickup_datetime: '2026-11-21T09:00:00Z' }));
      expect(r.body).toMatchObject({ offers: [], declined: { reason: 'partner_paused' } });
    } finally {
      await svc.ops.call('POST', `/partners/${svc.partner.partner_id}/resume`);
    }
    expect((await quote(journey())).body.declined).toBeNull();
  });

  it('when a sandbox key pauses its sandbox, then sandbox quotes decline partner_paused and production is untouched', async () => {
    const paused = await svc.call('POST', '/transfers/v1/test_helpers/account/pause', { key: svc.partner.testKey });
    expect(paused.body).toEqual({ env: 'sandbox', paused: true });
    try {
      expect((await quote(journey())).body.declined.reason).toBe('partner_paused');
      expect((await quote(journey(), svc.partner.liveKey)).body.declined).toBeNull();
      expect((await svc.call('POST', '/transfers/v1/test_helpers/account/pause', { key: svc.partner.liveKey })).status).toBe(404);
    } finally {
      const resumed = await svc.call('POST', '/transfers/v1/test_helpers/account/resume', { key: svc.partner.testKey });
      expect(resumed.body).toEqual({ env: 'sandbox', paused: false });
    }
    expect((await quote(journey())).body.declined).toBeNull();
    // The helper cannot lift an operator's pause.
    await svc.ops.call('POST', `/partners/${svc.partner.partner_id}/pause`);
    const stillPaused = await svc.call('POST', '/transfers/v1/test_helpers/account/resume', { key: svc.partner.testKey });
    expect(stillPaused.body.paused).toBe(true);
    await svc.ops.call('POST', `/partners/${svc.partner.partner_id}/resume`);
  });

  it('when vehicle codes are sent, then mapped codes filter and label offers, and unknown codes are ignored', async () => {
    const p = await svc.ops.partnerWithKeys('Vocab Travel');
    await svc.ops.call('PUT', `/partners/${p.partner_id}/vehicle-codes/SDN`, { body: { vehicle: 'standard_car' } });
    await svc.ops.call('PUT', `/partners/${p.partner_id}/vehicle-codes/MPV7`, { body: { vehicle: 'standard_van' } });
    const filtered = await quote(journey({ vehicle_codes: ['SDN', 'MPV7', 'HOVERCRAFT'] }), p.testKey);
    expect(filtered.body.offers.map((o: any) => o.vehicle_code)).toEqual(['SDN', 'MPV7']);
    const unknownOnly = await quote(journey({ vehicle_codes: ['HOVERCRAFT'] }), p.testKey);
    expect(unknownOnly.body.offers).toHaveLength(8);
    const labels = unknownOnly.body.offers.map((o: any) => o.vehicle_code);
    expect(labels).toContain('SDN');
    expect(labels).toContain('MPV7');
    expect(labels).toContain('small_car');
    const ownCodes = await quote(journey({ vehicle_codes: ['suv'] }), p.testKey);
    expect(ownCodes.body.offers.map((o: any) => o.vehicle_code)).toEqual(['suv']);
    // Nothing is dropped silently: what was not recognised is listed; codes match whatever their case.
    expect(filtered.body.ignored_vehicle_codes).toEqual(['HOVERCRAFT']);
    expect(unknownOnly.body.ignored_vehicle_codes).toEqual(['HOVERCRAFT']);
    expect(ownCodes.body.ignored_vehicle_codes).toEqual([]);
    const anyCase = await quote(journey({ vehicle_codes: ['sdn', 'SUV', 'Mpv7'] }), p.testKey);
    expect(anyCase.body.offers.map((o: any) => o.vehicle_code).sort()).toEqual(['MPV7', 'SDN', 'suv']);
    expect(anyCase.body.ignored_vehicle_codes).toEqual([]);
  });

  it('when the partner bills in EUR or LKR, then prices convert exactly, rounded once', async () => {
    const usd = await quote(journey());
    const eur = await svc.ops.partner('Euro Partner', 'EUR');
    const eurKey = (await svc.ops.key(eur.partner_id)).key;
    const inEur = await quote(journey(), eurKey);
    expect(inEur.body.currency).toBe('EUR');
    usd.body.offers.forEach((o: any, i: number) => {
      const cents = Math.round(o.price * 100);
      const expected = Math.floor((cents * 92 + 50) / 100); // USD→EUR 0.92, half-up, one rounding
      expect(Math.round(inEur.body.offers[i].price * 100)).toBe(expected);
      expect(inEur.body.offers[i].currency).toBe('EUR');
    });
  });

  it('when bad input is sent, then 400 names the field and nothing is stored', async () => {
    const before = Number((await svc.app.db('quotes').count({ n: '*' }).first())!.n);
    const cases: Array<[unknown, string]> = [
      [{ ...journey(), pickup: undefined }, 'pickup'],
      [journey({ passengers: { adults: 0 } }), 'passengers.adults'],
      [journey({ passengers: { adults: -1 } }), 'passengers.adults'],
      [journey({ passengers: { adults: 1, luggage: -1 } }), 'passengers.luggage'],
      [journey({ pickup_datetime: '2026-12-01T09:30:00' }), 'pickup_datetime'],
      [journey({ pickup: { lat: 91, lon: 80 } }), 'pickup.lat'],
      [journey({ pickup: { lat: 7.1 } }), 'pickup.lon'],
      [journey({ dropoff: {} }), 'dropoff'],
      [journey({ pickup_datetime: '2028-12-01T09:30:00Z' }), 'pickup_datetime'],
    ];
    for (const [body, field] of cases) {
      const r = await quote(body);
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('invalid_request');
      expect(r.body.error.details.fields.map((f: any) => f.field)).toContain(field);
    }
    // A local time without its offset is the common mistake: the message says exactly that.
    const noOffset = await quote(journey({ pickup_datetime: '2026-12-01T09:30:00' }));
    expect(noOffset.body.error.details.fields).toEqual([
      { field: 'pickup_datetime', message: 'is missing its UTC offset: add +05:30 for Sri Lankan time, or Z for UTC (e.g. 2026-12-01T09:30:00+05:30)' },
    ]);
    expect(noOffset.body.error.message).toMatch(/^The request is invalid: pickup_datetime is missing its UTC offset/);
    expect((await quote(journey({ pickup_datetime: 'tomorrow' }))).body.error.details.fields[0].message).toBe(
      'must be an RFC 3339 date-time with a UTC offset (e.g. 2026-12-01T09:30:00+05:30)',
    );
    expect(Number((await svc.app.db('quotes').count({ n: '*' }).first())!.n)).toBe(before);
  });

  it('when quotes are long expired and unbooked, then the retention job purges them and their offers', async () => {
    const r = await quote(journey());
    const later = new Date(Date.parse(NOW) + 8 * 24 * 3600 * 1000);
    const { quotes: purged } = await runRetention({ ...svc.app.deps, clock: new ManualClock(later) });
    expect(purged).toBeGreaterThan(0);
    expect(await svc.app.db('quotes').where({ quoteId: r.body.quote_id })).toHaveLength(0);
    expect(await svc.app.db('offers').where({ quoteId: r.body.quote_id })).toHaveLength(0);
  });
});
