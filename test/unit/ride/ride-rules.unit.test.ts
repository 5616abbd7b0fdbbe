import fc from 'fast-check';
import {
  BOOKING_STATE_OF,
  completionFrom,
  effectivePickup,
  freeWaitingMinutes,
  judgeStep,
  nextSteps,
  noShowFrom,
  type RideFacts,
  type RideState,
  type RideStep,
} from '../../../src/domain/kernel/ride-rules';
import { minutesAfter, minutesBefore, PICKUP_AT } from '../../support/booking-rows';

const STATES: RideState[] = ['driver_assigned', 'en_route', 'arrived', 'on_board', 'completed', 'no_show'];
const STEPS: RideStep[] = ['en_route', 'arrived', 'on_board', 'completed', 'no_show'];
/** The ride as the driver app documents it: each state, and the steps that may follow it (in the app's order). */
const ALLOWED: Record<RideState, RideStep[]> = {
  driver_assigned: ['en_route'],
  en_route: ['arrived'],
  arrived: ['on_board', 'no_show'],
  on_board: ['completed'],
  completed: [],
  no_show: [],
};

const AIRPORT = { iata: 'CMB' };
const HOTEL = {};
const ride = (over: Partial<RideFacts> = {}): RideFacts => ({
  state: 'driver_assigned',
  pickupAt: PICKUP_AT,
  pickupEstimatedAt: null,
  pickup: AIRPORT,
  arrivedAt: null,
  onBoardAt: null,
  driveMin: null,
  ...over,
});
/** Long after pickup, with the driver there since the pickup: no time rule stands in the way of any step. */
const LATE = minutesAfter(PICKUP_AT, 24 * 60);

const state = fc.constantFrom(...STATES);
const step = fc.constantFrom(...STEPS);
/** Instants from two days before the pickup to two days after it, to the millisecond. */
const around = fc.integer({ min: -2 * 24 * 3600_000, max: 2 * 24 * 3600_000 }).map((ms) => new Date(PICKUP_AT.getTime() + ms));

describe('the ride: which step may follow which', () => {
  it.each(STATES.flatMap((s) => STEPS.map((t) => [s, t] as const)))('%s → %s is allowed exactly when the ride documents it', (from, to) => {
    const refusal = judgeStep(ride({ state: from, arrivedAt: PICKUP_AT }), to, LATE);
    if (ALLOWED[from].includes(to)) expect(refusal).toBeUndefined();
    else expect(refusal).toEqual({ reason: 'invalid_transition', allowed: ALLOWED[from] });
  });

  it('for any state, step and moment, time never makes an undocumented step possible, and a documented one is refused only for time', () => {
    fc.assert(
      fc.property(state, step, around, fc.option(around, { nil: null }), fc.option(around, { nil: null }), (from, to, now, arrivedAt, estimated) => {
        const refusal = judgeStep(
          ride({ state: from, arrivedAt: arrivedAt ?? (from === 'arrived' ? PICKUP_AT : null), pickupEstimatedAt: estimated }),
          to,
          now,
        );
        if (!ALLOWED[from].includes(to)) expect(refusal).toEqual({ reason: 'invalid_transition', allowed: ALLOWED[from] });
        else if (refusal) expect(refusal.reason).toBe({ en_route: 'too_early', no_show: 'waiting_time', completed: 'too_soon' }[to as string]);
      }),
      { numRuns: 500 },
    );
  });

  it("the app's buttons are the documented steps that time allows now; a completed ride or a no-show has none", () => {
    fc.assert(
      fc.property(state, around, (from, now) => {
        const r = ride({ state: from, arrivedAt: from === 'arrived' ? minutesBefore(PICKUP_AT, 10) : null });
        expect(nextSteps(r, now)).toEqual(ALLOWED[from].filter((t) => judgeStep(r, t, now) === undefined));
        for (const t of nextSteps(r, now)) expect(ALLOWED[from]).toContain(t);
      }),
    );
    expect(nextSteps(ride({ state: 'completed' }), LATE)).toEqual([]);
    expect(nextSteps(ride({ state: 'no_show' }), LATE)).toEqual([]);
    expect(nextSteps(ride({ state: 'arrived', arrivedAt: PICKUP_AT }), minutesAfter(PICKUP_AT, 59))).toEqual(['on_board']);
    expect(nextSteps(ride({ state: 'arrived', arrivedAt: PICKUP_AT }), minutesAfter(PICKUP_AT, 60))).toEqual(['on_board', 'no_show']);
  });

  it('each step has its name in the partner’s booking states', () => {
    expect(BOOKING_STATE_OF).toEqual({
      en_route: 'driver_en_route',
      arrived: 'driver_arrived',
      on_board: 'passenger_on_board',
      completed: 'completed',
      no_show: 'no_show',
    });
  });
});

describe('the ride: setting off', () => {
  it('en_route is accepted from exactly 3 hours before the pickup; a millisecond earlier it is too early, saying from when', () => {
    const from = minutesBefore(PICKUP_AT, 180);
    expect(judgeStep(ride(), 'en_route', from)).toBeUndefined();
    expect(judgeStep(ride(), 'en_route', new Date(from.getTime() - 1))).toEqual({ reason: 'too_early', from });
  });

  it('when a late flight moved the pickup, then the 3 hours count from the estimated pickup', () => {
    const estimated = minutesAfter(PICKUP_AT, 95);
    const moved = ride({ pickupEstimatedAt: estimated });
    expect(effectivePickup(moved)).toEqual(estimated);
    expect(judgeStep(moved, 'en_route', minutesBefore(PICKUP_AT, 180))).toEqual({ reason: 'too_early', from: minutesBefore(estimated, 180) });
    expect(judgeStep(moved, 'en_route', minutesBefore(estimated, 180))).toBeUndefined();
  });

  it('for any pickup, estimate and moment, en_route is allowed exactly from 3 hours before the pickup in force', () => {
    fc.assert(
      fc.property(fc.option(around, { nil: null }), around, (estimated, now) => {
        const r = ride({ pickupEstimatedAt: estimated });
        const from = (estimated ?? PICKUP_AT).getTime() - 3 * 3600_000;
        expect(judgeStep(r, 'en_route', now) === undefined).toBe(now.getTime() >= from);
      }),
      { numRuns: 300 },
    );
  });
});

describe('the ride: free waiting and no-shows', () => {
  it('free waiting is 60 minutes at an airport (an IATA code), 30 anywhere else', () => {
    expect(freeWaitingMinutes({ iata: 'CMB' })).toBe(60);
    expect(freeWaitingMinutes({})).toBe(30);
    expect(freeWaitingMinutes({ iata: '' })).toBe(30);
  });

  it.each([
    ['an airport, arrived before the pickup: from the pickup', AIRPORT, -20, null, 60],
    ['an airport, arrived after the pickup: from the arrival', AIRPORT, 25, null, 25 + 60],
    ['a hotel, arrived before the pickup: 30 minutes from the pickup', HOTEL, -5, null, 30],
    ['a hotel, arrived late: 30 minutes from the arrival', HOTEL, 12, null, 12 + 30],
    ['an airport whose flight landed 95 minutes late, arrived before it: from the landing', AIRPORT, 40, 95, 95 + 60],
    ['an airport whose flight came 20 minutes early, arrived after it: from the arrival', AIRPORT, -10, -20, -10 + 60],
  ])('no-show from: %s', (_case, pickup, arrivedMin, estimatedMin, fromMin) => {
    const r = ride({
      state: 'arrived',
      pickup,
      arrivedAt: minutesAfter(PICKUP_AT, arrivedMin),
      pickupEstimatedAt: estimatedMin === null ? null : minutesAfter(PICKUP_AT, estimatedMin),
    });
    const from = minutesAfter(PICKUP_AT, fromMin);
    expect(noShowFrom(r)).toEqual(from);
    expect(judgeStep(r, 'no_show', new Date(from.getTime() - 1))).toEqual({ reason: 'waiting_time', from });
    expect(judgeStep(r, 'no_show', from)).toBeUndefined();
  });

  it('before the driver has arrived there is no no-show time', () => {
    expect(noShowFrom(ride({ state: 'en_route' }))).toBeNull();
  });

  it('for any arrival, pickup and moment, a no-show is allowed exactly once the free wait has run from the later of arrival and pickup', () => {
    fc.assert(
      fc.property(fc.boolean(), around, fc.option(around, { nil: null }), around, (airport, arrivedAt, estimated, now) => {
        const r = ride({ state: 'arrived', pickup: airport ? AIRPORT : HOTEL, arrivedAt, pickupEstimatedAt: estimated });
        const free = (airport ? 60 : 30) * 60_000;
        const from = noShowFrom(r)!;
        expect(from.getTime()).toBeGreaterThanOrEqual(arrivedAt.getTime() + free);
        expect(from.getTime()).toBeGreaterThanOrEqual((estimated ?? PICKUP_AT).getTime() + free);
        expect([arrivedAt.getTime() + free, (estimated ?? PICKUP_AT).getTime() + free]).toContain(from.getTime());
        expect(judgeStep(r, 'no_show', now) === undefined).toBe(now.getTime() >= from.getTime());
        // Boarding never waits.
        expect(judgeStep(r, 'on_board', now)).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });
});

describe('Completing a ride', () => {
  it('is refused before the pickup, and before half the drive has passed since the passengers got in; allowed from then on', () => {
    const onBoard = minutesAfter(PICKUP_AT, 10);
    const long = ride({ state: 'on_board', onBoardAt: onBoard, driveMin: 180 });
    // The finding: "Ride completed" 8 seconds after "Passenger on board" on a three-hour ride.
    expect(judgeStep(long, 'completed', new Date(onBoard.getTime() + 8_000))).toEqual({ reason: 'too_soon', from: minutesAfter(PICKUP_AT, 100) });
    expect(judgeStep(long, 'completed', minutesAfter(PICKUP_AT, 100))).toBeUndefined();
    // Boarded before the pickup (an early passenger): still not before the pickup.
    const early = ride({ state: 'on_board', onBoardAt: minutesBefore(PICKUP_AT, 75), driveMin: 20 });
    expect(judgeStep(early, 'completed', minutesBefore(PICKUP_AT, 1))).toEqual({ reason: 'too_soon', from: minutesAfter(PICKUP_AT, 10) });
    expect(completionFrom({ pickupAt: PICKUP_AT, pickupEstimatedAt: null, onBoardAt: null, driveMin: null })).toEqual(PICKUP_AT);
  });

  it('for any drive and boarding time, completion is never allowed before the pickup nor within half the drive after boarding', () => {
    fc.assert(
      fc.property(fc.integer({ min: -120, max: 120 }), fc.integer({ min: 0, max: 600 }), fc.integer({ min: -300, max: 900 }), (boardMin, drive, nowMin) => {
        const r = ride({ state: 'on_board', onBoardAt: minutesAfter(PICKUP_AT, boardMin), driveMin: drive });
        const allowed = judgeStep(r, 'completed', minutesAfter(PICKUP_AT, nowMin)) === undefined;
        const plausible = nowMin >= 0 && nowMin >= Math.max(boardMin, 0) + Math.ceil(drive / 2);
        expect(allowed).toBe(plausible);
      }),
    );
  });
});
