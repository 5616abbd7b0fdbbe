import { FLEET, MIN_FARE_USD_MINOR, getVehicle, vehiclesThatFit } from '../../../src/domain/kernel/fleet';
import { fareUsdMinor } from '../../../src/domain/pricing/price-journey';

const codes = (vs: ReadonlyArray<{ code: string }>) => vs.map((v) => v.code);

describe('fleet table', () => {
  it('when loaded, then it holds the eight spec vehicles in table order with their class and capacities', () => {
    expect(FLEET.map((v) => [v.code, v.name, v.class, v.max_passengers, v.max_luggage])).toEqual([
      ['small_car', 'Small Car', 'Economy', 3, 2],
      ['standard_car', 'Standard Car', 'Standard', 3, 3],
      ['premium_car', 'Premium Car', 'Business', 3, 3],
      ['suv', 'SUV', 'Standard', 4, 4],
      ['standard_van', 'Standard Van', 'Standard', 7, 7],
      ['premium_van', 'Premium Van', 'Business', 7, 7],
      ['large_van', 'Large Van', 'Standard', 9, 9],
      ['standard_bus', 'Standard Bus', 'Standard', 20, 20],
    ]);
  });

  it('when loaded, then every rate card is in whole USD cents and the global minimum fare is positive', () => {
    for (const v of FLEET) for (const n of Object.values(v.rate)) expect(Number.isSafeInteger(n) && n > 0).toBe(true);
    expect(Number.isSafeInteger(MIN_FARE_USD_MINOR) && MIN_FARE_USD_MINOR > 0).toBe(true);
  });

  it('when a code is looked up, then known codes return the vehicle and unknown codes nothing', () => {
    expect(getVehicle('suv')?.name).toBe('SUV');
    expect(getVehicle('sedan')).toBeUndefined();
  });
});

describe('vehiclesThatFit', () => {
  it('when 2 adults travel with 2 bags, then every vehicle fits, cheapest first', () => {
    expect(codes(vehiclesThatFit(2, 2))).toEqual([
      'small_car',
      'standard_car',
      'suv',
      'standard_van',
      'premium_car',
      'large_van',
      'premium_van',
      'standard_bus',
    ]);
  });

  it('when 3 adults bring 3 bags, then the small car (2 bags) is left out', () => {
    expect(codes(vehiclesThatFit(3, 3))).not.toContain('small_car');
    expect(codes(vehiclesThatFit(3, 3))[0]).toBe('standard_car');
  });

  it('when 5 adults travel, then no car or SUV is offered', () => {
    expect(codes(vehiclesThatFit(5, 0))).toEqual(['standard_van', 'large_van', 'premium_van', 'standard_bus']);
  });

  it('when 8 adults or 8 bags, then only the large van and the bus fit', () => {
    expect(codes(vehiclesThatFit(8, 2))).toEqual(['large_van', 'standard_bus']);
    expect(codes(vehiclesThatFit(2, 8))).toEqual(['large_van', 'standard_bus']);
  });

  it('when 20 adults travel, then only the bus fits; 21 adults fit nothing', () => {
    expect(codes(vehiclesThatFit(20, 20))).toEqual(['standard_bus']);
    expect(vehiclesThatFit(21, 0)).toEqual([]);
    expect(vehiclesThatFit(1, 21)).toEqual([]);
  });

  it('when a filter is given, then only listed fleet codes are kept; unknown codes are ignored', () => {
    expect(codes(vehiclesThatFit(2, 1, ['premium_car', 'suv']))).toEqual(['suv', 'premium_car']);
    expect(codes(vehiclesThatFit(2, 1, ['premium_car', 'sedan']))).toEqual(['premium_car']);
    expect(vehiclesThatFit(2, 1, ['sedan'])).toHaveLength(8);
    expect(vehiclesThatFit(2, 1, [])).toHaveLength(8);
    expect(vehiclesThatFit(5, 1, ['standard_car'])).toEqual([]);
  });

  it('when the party is not a positive whole number of adults, then it is a programming error', () => {
    expect(() => vehiclesThatFit(0, 0)).toThrow(RangeError);
    expect(() => vehiclesThatFit(2.5, 0)).toThrow(RangeError);
    expect(() => vehiclesThatFit(2, -1)).toThrow(RangeError);
  });

  it('when priced at any distance, then the fit order is the price order (cheapest first)', () => {
    const order = vehiclesThatFit(1, 0);
    for (let km = 0; km <= 600; km += 0.7) {
      const prices = order.map((v) => fareUsdMinor(v, km));
      expect(prices).toEqual([...prices].sort((a, b) => a - b));
    }
  });
});
