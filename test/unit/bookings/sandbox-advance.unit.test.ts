import fc from 'fast-check';
import type { BookingStatus } from '../../../src/data/repositories/bookings-repository';
import { mayAdvance, SANDBOX_DRIVER } from '../../../src/domain/bookings/advance-booking';
import type { DispatchState } from '../../../src/domain/kernel/booking-states';
import { sandboxOnly } from '../../../src/domain/quotes/sandbox';
import { AppError } from '../../../src/shared/errors';

const FROM: BookingStatus[] = ['confirmed', 'driver_assigned', 'driver_en_route', 'driver_arrived', 'passenger_on_board', 'completed', 'no_show', 'cancelled'];
const TO: DispatchState[] = ['driver_assigned', 'driver_en_route', 'driver_arrived', 'passenger_on_board', 'completed', 'no_show'];

/**
 * The sandbox test helper, as the partner guide describes it: a booking moves to any later state of the ride
 * (skipping steps if asked), or to a no-show until the passenger is on board; a finished or cancelled booking stays.
 */
const MAY: Record<BookingStatus, DispatchState[]> = {
  confirmed: ['driver_assigned', 'driver_en_route', 'driver_arrived', 'passenger_on_board', 'completed', 'no_show'],
  driver_assigned: ['driver_en_route', 'driver_arrived', 'passenger_on_board', 'completed', 'no_show'],
  driver_en_route: ['driver_arrived', 'passenger_on_board', 'completed', 'no_show'],
  driver_arrived: ['passenger_on_board', 'completed', 'no_show'],
  passenger_on_board: ['completed'],
  completed: [],
  no_show: [],
  cancelled: [],
};
/** The ride's order, for the properties. */
const RIDE: BookingStatus[] = ['confirmed', 'driver_assigned', 'driver_en_route', 'driver_arrived', 'passenger_on_board', 'completed'];

describe('the sandbox helper: which states a booking may be advanced to', () => {
  it.each(FROM.flatMap((f) => TO.map((t) => [f, t] as const)))('%s → %s as the guide says', (from, to) => {
    expect(mayAdvance(from, to)).toBe(MAY[from].includes(to));
  });

  it('a booking never goes back, nor to the state it is in (the helper answers that one unchanged before asking)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...RIDE), fc.constantFrom(...TO), (from, to) => {
        if (to !== 'no_show' && RIDE.indexOf(to) <= RIDE.indexOf(from)) expect(mayAdvance(from, to)).toBe(false);
      }),
    );
    for (const s of TO) expect(mayAdvance(s, s)).toBe(false);
  });

  it('from any state of the ride the next one is always allowed, and steps may be skipped up to completed', () => {
    for (let i = 0; i + 1 < RIDE.length; i += 1) {
      expect(mayAdvance(RIDE[i], RIDE[i + 1] as DispatchState)).toBe(true);
      expect(mayAdvance(RIDE[i], 'completed')).toBe(true);
    }
  });

  it('a no-show is allowed until the passenger is on board, never after', () => {
    expect(FROM.filter((f) => mayAdvance(f, 'no_show'))).toEqual(['confirmed', 'driver_assigned', 'driver_en_route', 'driver_arrived']);
  });

  it('a finished or cancelled booking moves nowhere', () => {
    fc.assert(
      fc.property(fc.constantFrom<BookingStatus>('completed', 'no_show', 'cancelled'), fc.constantFrom(...TO), (from, to) => {
        expect(mayAdvance(from, to)).toBe(false);
      }),
    );
  });
});

describe('the sandbox helpers exist only in sandbox', () => {
  it('with a live key they are not_found, like anything unknown; in sandbox they run', () => {
    expect(() => sandboxOnly('sandbox')).not.toThrow();
    let thrown: unknown;
    try {
      sandboxOnly('production');
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect((thrown as AppError).code).toBe('not_found');
  });

  it('the driver a sandbox booking gets says it is fictitious', () => {
    expect(SANDBOX_DRIVER.name).toMatch(/fictitious/i);
    expect(SANDBOX_DRIVER.plate).toMatch(/^SANDBOX/);
  });
});
