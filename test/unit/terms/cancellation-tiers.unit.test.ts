import fc from 'fast-check';
import type { BookingStatus } from '../../../src/data/repositories/bookings-repository';
import { cannotCancel } from '../../../src/domain/bookings/cancel-booking';
import { cancellationFeeAt, cancellationPolicy, percentOf } from '../../../src/domain/terms/cancellation-policy';
import { DEFAULT_TERMS, type FeeTier } from '../../../src/domain/terms/terms';
import { bookingRow, PICKUP_AT } from '../../support/booking-rows';

const HOUR_MS = 3600_000;
const hoursBefore = (h: number) => new Date(PICKUP_AT.getTime() - h * HOUR_MS);

/** Coherent tiers (as checkedTerms accepts them): distinct hours, and percents that never fall as pickup nears. */
const coherentTiers = fc
  .uniqueArray(fc.record({ hours_before: fc.integer({ min: 1, max: 720 }), percent: fc.integer({ min: 0, max: 100 }) }), {
    selector: (t) => t.hours_before,
    minLength: 1,
    maxLength: 8,
  })
  .map((ts): FeeTier[] => {
    const byHours = [...ts].sort((a, b) => b.hours_before - a.hours_before);
    const percents = byHours.map((t) => t.percent).sort((a, b) => a - b);
    // Given in any order: the rule must not depend on it.
    return byHours.map((t, i) => ({ hours_before: t.hours_before, percent: percents[i] })).reverse();
  });
const amount = fc.integer({ min: 1, max: 10_000_000 });

describe('cancellation fee tiers', () => {
  it.each([
    ['a day before pickup, before free_until', 0, 24 * HOUR_MS],
    ['a millisecond before the 50 % tier', 0, 12 * HOUR_MS + 1],
    ['exactly at free_until (the 50 % tier starts)', 1765, 12 * HOUR_MS],
    ['11 hours before pickup', 1765, 11 * HOUR_MS],
    ['a millisecond before the 100 % tier', 1765, 2 * HOUR_MS + 1],
    ['exactly 2 hours before (the 100 % tier starts)', 3530, 2 * HOUR_MS],
    ['an hour before pickup', 3530, HOUR_MS],
    ['at the pickup time', 3530, 0],
  ])('under the default terms, a 35.30 USD booking cancelled %s costs %i minor units', (_when, feeMinor, msBefore) => {
    expect(cancellationFeeAt(DEFAULT_TERMS, PICKUP_AT, 3530, new Date(PICKUP_AT.getTime() - msBefore))).toBe(feeMinor);
  });

  it('for any coherent tiers, each tier starts at its exact instant: its fee from then, the tier before it (or nothing) a millisecond earlier', () => {
    fc.assert(
      fc.property(coherentTiers, amount, (tiers, price) => {
        const terms = { cancellation_fees: tiers };
        const ordered = [...tiers].sort((a, b) => b.hours_before - a.hours_before);
        const policy = cancellationPolicy({ ...terms, no_show_percent: 100 }, PICKUP_AT, price, 'USD');
        expect(policy.free_until).toBe(hoursBefore(ordered[0].hours_before).toISOString());
        ordered.forEach((tier, i) => {
          const starts = hoursBefore(tier.hours_before);
          expect(policy.fees[i].from).toBe(starts.toISOString());
          expect(cancellationFeeAt(terms, PICKUP_AT, price, starts)).toBe(percentOf(price, tier.percent));
          const before = i === 0 ? 0 : percentOf(price, ordered[i - 1].percent);
          expect(cancellationFeeAt(terms, PICKUP_AT, price, new Date(starts.getTime() - 1))).toBe(before);
        });
      }),
      { numRuns: 300 },
    );
  });

  it('for any coherent tiers, cancelling later never costs less, tier edges included, and never more than the price', () => {
    // Instants anywhere in the month before pickup, and at every tier edge and a millisecond either side of it.
    const instants = (tiers: FeeTier[]) =>
      fc.array(
        fc.oneof(
          fc.integer({ min: -31 * 24 * HOUR_MS, max: HOUR_MS }).map((ms) => new Date(PICKUP_AT.getTime() + ms)),
          fc.tuple(fc.constantFrom(...tiers), fc.constantFrom(-1, 0, 1)).map(([t, d]) => new Date(hoursBefore(t.hours_before).getTime() + d)),
        ),
        { minLength: 2, maxLength: 12 },
      );
    fc.assert(
      fc.property(
        coherentTiers.chain((tiers) => fc.tuple(fc.constant(tiers), instants(tiers))),
        amount,
        ([tiers, times], price) => {
          const sorted = [...times].sort((a, b) => a.getTime() - b.getTime());
          const fees = sorted.map((t) => cancellationFeeAt({ cancellation_fees: tiers }, PICKUP_AT, price, t));
          for (let i = 1; i < fees.length; i += 1) expect(fees[i]).toBeGreaterThanOrEqual(fees[i - 1]);
          for (const f of fees) expect(f).toBeLessThanOrEqual(price);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('for any tiers, a cancellation before free_until is free', () => {
    fc.assert(
      fc.property(coherentTiers, amount, fc.integer({ min: 1, max: 30 * 24 * HOUR_MS }), (tiers, price, earlierMs) => {
        const freeUntil = new Date(cancellationPolicy({ cancellation_fees: tiers, no_show_percent: 0 }, PICKUP_AT, price, 'USD').free_until);
        expect(cancellationFeeAt({ cancellation_fees: tiers }, PICKUP_AT, price, new Date(freeUntil.getTime() - earlierMs))).toBe(0);
      }),
    );
  });
});

describe('whether a booking can still be cancelled', () => {
  it('until a millisecond before pickup it can; at the pickup time it is pickup_passed', () => {
    const row = bookingRow();
    expect(cannotCancel(row, new Date(PICKUP_AT.getTime() - 1))).toBeUndefined();
    const passed = cannotCancel(row, PICKUP_AT);
    expect(passed).toMatchObject({
      code: 'booking_conflict',
      details: { reason: 'pickup_passed', booking_ref: 'LK7Q2M9X', pickup_datetime: '2026-12-01T09:30:00+05:30' },
    });
  });

  it.each<BookingStatus>(['completed', 'no_show'])('a %s booking is finished, whenever it is asked', (status) => {
    expect(cannotCancel(bookingRow({ status }), hoursBefore(48))).toMatchObject({
      code: 'booking_conflict',
      details: { reason: 'finished', booking_ref: 'LK7Q2M9X', status },
    });
    expect(cannotCancel(bookingRow({ status }), hoursBefore(-1))?.details.reason).toBe('finished');
  });

  it('for any state of the ride and moment, it can be cancelled exactly while unfinished and before pickup', () => {
    const statuses: BookingStatus[] = ['confirmed', 'driver_assigned', 'driver_en_route', 'driver_arrived', 'passenger_on_board', 'completed', 'no_show'];
    fc.assert(
      fc.property(fc.constantFrom(...statuses), fc.integer({ min: -48 * HOUR_MS, max: 48 * HOUR_MS }), (status, ms) => {
        const now = new Date(PICKUP_AT.getTime() + ms);
        const why = cannotCancel(bookingRow({ status }), now)?.details.reason;
        if (status === 'completed' || status === 'no_show') expect(why).toBe('finished');
        else expect(why).toBe(ms >= 0 ? 'pickup_passed' : undefined);
      }),
      { numRuns: 300 },
    );
  });
});
