import placesData from '../../../src/domain/geo/data/places.json';
import { FLEET, MIN_FARE_USD_MINOR, fleetOrder, getVehicle, type FleetVehicle } from '../../../src/domain/kernel/fleet';
import type { PlaceInput } from '../../../src/domain/geo/types';
import { formatMinor, type Currency } from '../../../src/domain/kernel/money';
import { fareUsdMinor, priceJourney, quoteJourney, type QuoteRequest, type QuoteResult } from '../../../src/domain/pricing/price-journey';

const fx = { EUR: '0.92', LKR: '300.50' };
const base = { adults: 2, luggage: 2, currency: 'USD' as Currency, fx };

function quoted(req: Partial<QuoteRequest> & Pick<QuoteRequest, 'pickup' | 'dropoff'>): Extract<QuoteResult, { ok: true }> {
  const r = quoteJourney({ ...base, ...req });
  if (!r.ok) throw new Error(`expected offers, got ${r.reason}: ${r.message}`);
  return r;
}

function declined(req: Partial<QuoteRequest> & Pick<QuoteRequest, 'pickup' | 'dropoff'>): Extract<QuoteResult, { ok: false }> {
  const r = quoteJourney({ ...base, ...req });
  if (r.ok) throw new Error(`expected a decline, got ${r.offers.length} offers`);
  return r;
}

const vehicle = (code: string): FleetVehicle => {
  const v = getVehicle(code);
  if (!v) throw new Error(code);
  return v;
};
const priceOf = (r: Extract<QuoteResult, { ok: true }>, code: string) => r.offers.find((o) => o.vehicle.code === code)?.amount_minor;

const CMB: PlaceInput = { iata: 'CMB' };
const KANDY: PlaceInput = { name: 'Kandy' };
const GALLE: PlaceInput = { name: 'Galle' };

describe('quoteJourney prices against published fares', () => {
  it.each([
    ['CMB → Kandy', CMB, KANDY, 5500, 7000],
    ['CMB → Galle', CMB, GALLE, 7000, 8000],
    ['Colombo → Ella', { name: 'Colombo' }, { name: 'Ella' }, 10000, 11500],
  ])('when a standard car goes %s, then the USD price is in the published range', (_label, pickup, dropoff, low, high) => {
    const price = priceOf(quoted({ pickup, dropoff }), 'standard_car');
    expect(price).toBeGreaterThanOrEqual(low);
    expect(price).toBeLessThanOrEqual(high);
  });

  it('when the standard car goes CMB → Kandy, then it costs exactly $63.80 (2200 + 38 × 110 km)', () => {
    expect(priceOf(quoted({ pickup: CMB, dropoff: KANDY }), 'standard_car')).toBe(6380);
  });

  it('when vans go 40 km or more, then they cost 1.1–1.35× the standard car, and the bus more than any van', () => {
    const car = vehicle('standard_car');
    for (let km = 40; km <= 500; km += 3.3) {
      const carFare = fareUsdMinor(car, km);
      for (const code of ['standard_van', 'premium_van', 'large_van']) {
        const ratio = fareUsdMinor(vehicle(code), km) / carFare;
        expect([code, km, ratio >= 1.1 && ratio <= 1.35]).toEqual([code, km, true]);
      }
      expect(fareUsdMinor(vehicle('standard_bus'), km)).toBeGreaterThan(fareUsdMinor(vehicle('premium_van'), km));
    }
  });

  it('when a journey is longer, then every vehicle costs more in every currency', () => {
    for (const currency of ['USD', 'EUR', 'LKR'] as const) {
      const short = quoted({ pickup: CMB, dropoff: KANDY, currency });
      const long = quoted({ pickup: CMB, dropoff: { name: 'Ella' }, currency });
      expect(long.distance_km).toBeGreaterThan(short.distance_km);
      for (const v of FLEET) expect(priceOf(long, v.code) ?? 0).toBeGreaterThan(priceOf(short, v.code) ?? Infinity);
    }
  });

  it('when priced for any distance, then the fare never decreases with distance and never goes below the vehicle minimum', () => {
    for (const v of FLEET) {
      let previous = 0;
      for (let km = 0; km <= 400; km += 0.1) {
        const fare = fareUsdMinor(v, km);
        expect(fare).toBeGreaterThanOrEqual(Math.max(previous, v.rate.min_fare_usd_minor));
        previous = fare;
      }
    }
  });
});

describe('quoteJourney offers and journey type', () => {
  it('when the pickup is an airport, then the journey is an arrival with all fitting offers cheapest first', () => {
    const r = quoted({ pickup: CMB, dropoff: { name: 'Cinnamon Grand, 77 Galle Road, Colombo 03' } });
    expect(r.journey_type).toBe('arrival');
    expect(r.pickup.iata).toBe('CMB');
    expect(r.dropoff.place_id).toBe('place:colombo');
    expect(r.offers).toHaveLength(8);
    expect(r.offers[0].vehicle.code).toBe('small_car');
    for (let i = 1; i < r.offers.length; i++) {
      const [a, b] = [r.offers[i - 1], r.offers[i]];
      expect(a.amount_minor < b.amount_minor || (a.amount_minor === b.amount_minor && fleetOrder(a.vehicle) < fleetOrder(b.vehicle))).toBe(true);
    }
  });

  it('when only the dropoff is an airport, then it is a departure; both airports is an arrival; neither is point to point', () => {
    expect(quoted({ pickup: { name: 'Jetwing Lighthouse, Galle' }, dropoff: { name: 'Bandaranaike International Airport' } }).journey_type).toBe('departure');
    expect(quoted({ pickup: CMB, dropoff: { iata: 'HRI' } }).journey_type).toBe('arrival');
    expect(quoted({ pickup: KANDY, dropoff: GALLE }).journey_type).toBe('point_to_point');
  });

  it('when 5 adults travel, then no car or SUV is offered', () => {
    const r = quoted({ pickup: CMB, dropoff: KANDY, adults: 5, luggage: 5 });
    expect(r.offers.map((o) => o.vehicle.code)).toEqual(['standard_van', 'large_van', 'premium_van', 'standard_bus']);
    for (const o of r.offers) expect(o.vehicle.max_passengers).toBeGreaterThanOrEqual(5);
  });

  it('when a vehicle filter names fleet codes, then only those are offered; unknown codes are ignored', () => {
    expect(quoted({ pickup: CMB, dropoff: KANDY, vehicleFilter: ['suv', 'sedan'] }).offers.map((o) => o.vehicle.code)).toEqual(['suv']);
    expect(quoted({ pickup: CMB, dropoff: KANDY, vehicleFilter: ['sedan'] }).offers).toHaveLength(8);
    expect(quoted({ pickup: CMB, dropoff: KANDY, vehicleFilter: [] }).offers).toHaveLength(8);
  });

  it('when the currency is EUR or LKR, then each offer is its USD fare converted once at the given rate', () => {
    const usd = quoted({ pickup: CMB, dropoff: KANDY });
    for (const [currency, rate] of [
      ['EUR', 92n],
      ['LKR', 30050n],
    ] as const) {
      const r = quoted({ pickup: CMB, dropoff: KANDY, currency });
      for (const o of r.offers) {
        const usdMinor = BigInt(priceOf(usd, o.vehicle.code) ?? 0);
        expect(o.currency).toBe(currency);
        expect(BigInt(o.amount_minor)).toBe((usdMinor * rate * 2n + 100n) / 200n);
      }
    }
    expect(priceOf(quoted({ pickup: CMB, dropoff: KANDY, currency: 'EUR' }), 'standard_car')).toBe(5870);
  });
});

describe('quoteJourney declines, in order', () => {
  it('when the pickup does not resolve, then route_unknown names the pickup and says lat/lon fixes it', () => {
    const r = declined({ pickup: { name: 'Hotel California' }, dropoff: KANDY });
    expect(r.reason).toBe('route_unknown');
    expect(r.message).toMatch(/pickup/);
    expect(r.message).not.toMatch(/dropoff/);
    expect(r.message).toMatch(/lat\/lon/);
    expect(r.hint).toMatchObject({ pickup: { reason: 'unknown' } });
  });

  it('when the dropoff is ambiguous or outside Sri Lanka, then route_unknown names the dropoff', () => {
    const ambiguous = declined({ pickup: CMB, dropoff: { name: 'Kandy or Galle' } });
    expect(ambiguous.reason).toBe('route_unknown');
    expect(ambiguous.message).toMatch(/dropoff/);
    expect(ambiguous.hint).toMatchObject({ dropoff: { reason: 'ambiguous', candidates: ['Kandy', 'Galle'] } });
    expect(declined({ pickup: CMB, dropoff: { lat: 13.0827, lon: 80.2707 } }).hint).toMatchObject({ dropoff: { reason: 'outside_sri_lanka' } });
  });

  it('when an end does not resolve and the party fits nothing, then route_unknown comes first', () => {
    expect(declined({ pickup: { name: 'Paris' }, dropoff: KANDY, adults: 21 }).reason).toBe('route_unknown');
  });

  it('when 21 adults travel, then no_vehicle', () => {
    expect(declined({ pickup: CMB, dropoff: KANDY, adults: 21, luggage: 0 }).reason).toBe('no_vehicle');
  });

  it('when the filter excludes every vehicle that fits, then no_vehicle', () => {
    const r = declined({ pickup: CMB, dropoff: KANDY, adults: 5, vehicleFilter: ['standard_car', 'suv'] });
    expect(r.reason).toBe('no_vehicle');
    expect(r.message).toMatch(/vehicle_codes/);
  });

  it('when no vehicle fits a journey that is also too short, then no_vehicle comes before below_min_rate', () => {
    expect(declined({ pickup: { lat: 6.9355, lon: 79.8487 }, dropoff: { lat: 6.9445, lon: 79.8487 }, adults: 21 }).reason).toBe('no_vehicle');
  });

  it('when two points 1 km apart in Colombo are quoted, then below_min_rate for any party', () => {
    for (const adults of [1, 4, 9, 20]) {
      const r = declined({ pickup: { lat: 6.9355, lon: 79.8487 }, dropoff: { lat: 6.9445, lon: 79.8487 }, adults, luggage: 0 });
      expect(r.reason).toBe('below_min_rate');
      expect(r.hint).toMatchObject({ min_fare: MIN_FARE_USD_MINOR / 100, currency: 'USD' });
    }
  });

  it('when a journey declines below_min_rate for an LKR or EUR quote, then the hint gives the minimum fare in that currency, converted as offers are', () => {
    const short = { pickup: { lat: 6.9355, lon: 79.8487 }, dropoff: { lat: 6.9445, lon: 79.8487 } };
    // $21.00 at 300.50 LKR and 0.92 EUR to the dollar.
    expect(declined({ ...short, currency: 'LKR' }).hint).toMatchObject({ min_fare: (MIN_FARE_USD_MINOR * 300.5) / 100, currency: 'LKR' });
    expect(declined({ ...short, currency: 'EUR' }).hint).toMatchObject({ min_fare: 19.32, currency: 'EUR' });
    const lkr = declined({ ...short, currency: 'LKR' }).hint!;
    expect(lkr).not.toHaveProperty('min_fare_usd_minor');
    expect(lkr.journey_rate as number).toBeLessThan(lkr.min_fare as number);
  });

  it('when pickup and dropoff are the same place, then below_min_rate', () => {
    expect(declined({ pickup: KANDY, dropoff: { name: 'Mahanuwara' } }).reason).toBe('below_min_rate');
  });

  it('when the airport transfer to Negombo (7–12 km) is quoted, then it is not below the minimum fare', () => {
    for (const dropoff of [{ name: 'Negombo' }, { name: 'Jetwing Beach, Ethukala, Negombo' }, { lat: 7.215, lon: 79.838 }, { lat: 7.24, lon: 79.842 }]) {
      const r = quoted({ pickup: CMB, dropoff });
      expect(r.distance_km).toBeGreaterThanOrEqual(7);
      expect(r.distance_km).toBeLessThanOrEqual(13);
      for (const o of r.offers) expect(o.amount_minor).toBeGreaterThanOrEqual(o.vehicle.rate.min_fare_usd_minor);
    }
  });

  it('when the currency has no rate, then it is a programming error, not a decline', () => {
    expect(() => quoteJourney({ ...base, pickup: CMB, dropoff: KANDY, currency: 'EUR', fx: {} })).toThrow(RangeError);
    expect(() => quoteJourney({ ...base, pickup: CMB, dropoff: KANDY, currency: 'GBP' as Currency })).toThrow(RangeError);
  });
});

describe('quoteJourney exact money and determinism', () => {
  // Deterministic pseudo-random journeys over the gazetteer (mulberry32).
  function journeys(count: number, seed: number): Array<[PlaceInput, PlaceInput]> {
    let s = seed;
    const next = () => {
      s = (s + 0x6d2b79f5) | 0;
      let t = Math.imul(s ^ (s >>> 15), 1 | s);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const names = placesData.places.map((p) => p.name);
    return Array.from({ length: count }, () => [{ name: names[Math.floor(next() * names.length)] }, { name: names[Math.floor(next() * names.length)] }]);
  }

  /** Adds decimal strings digit by digit, independent of money.ts. */
  function addDecimalStrings(values: readonly string[]): string {
    let total = 0n;
    for (const v of values) {
      const [whole, fraction = ''] = v.split('.');
      total += BigInt(whole) * 100n + BigInt(fraction.padEnd(2, '0'));
    }
    return `${total / 100n}.${(total % 100n).toString().padStart(2, '0')}`;
  }

  it('when 10,000 EUR offers are summed in minor units, then the total equals the sum of their decimal strings', () => {
    const amounts: number[] = [];
    for (const [pickup, dropoff] of journeys(3000, 42)) {
      const r = quoteJourney({ ...base, pickup, dropoff, currency: 'EUR' });
      if (r.ok) for (const o of r.offers) amounts.push(o.amount_minor);
      if (amounts.length >= 10_000) break;
    }
    const offers = amounts.slice(0, 10_000);
    expect(offers).toHaveLength(10_000);
    const total = offers.reduce((a, b) => a + b, 0);
    expect(Number.isSafeInteger(total)).toBe(true);
    expect(formatMinor(total, 'EUR')).toBe(addDecimalStrings(offers.map((m) => formatMinor(m, 'EUR'))));
  });

  it('when a price is computed for a fractional distance, then it is a whole number of minor units', () => {
    for (let km = 0; km < 50; km += 0.1) {
      for (const currency of ['USD', 'EUR', 'LKR'] as const) {
        expect(Number.isSafeInteger(priceJourney({ distance_km: km, vehicle: vehicle('premium_van'), currency, fx }).amount_minor)).toBe(true);
      }
    }
  });

  it('when the same journeys are quoted twice, then the results are identical and the inputs untouched', () => {
    for (const [pickup, dropoff] of journeys(200, 7)) {
      const req = Object.freeze({ ...base, pickup: Object.freeze(pickup), dropoff: Object.freeze(dropoff), fx: Object.freeze({ ...fx }) });
      expect(quoteJourney(req)).toEqual(quoteJourney(req));
    }
  });
});
