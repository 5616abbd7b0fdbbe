import fc from 'fast-check';
import { adjustedFare, cancellationFeeAt, cancellationPolicy, noShowFee, percentOf } from '../../../src/domain/terms/cancellation-policy';
import { checkedTerms, DEFAULT_TERMS } from '../../../src/domain/terms/terms';
import { AppError } from '../../../src/shared/errors';

const PICKUP = new Date('2026-12-01T04:00:00Z');
const hoursBefore = (h: number) => new Date(PICKUP.getTime() - h * 3600_000);

describe('cancellation policy', () => {
  it('when the default terms price a 35.30 USD sale, then free until 12 hours before, 50 % then, 100 % from 2 hours, in UTC instants', () => {
    expect(cancellationPolicy(DEFAULT_TERMS, PICKUP, 3530, 'USD')).toEqual({
      free_until: '2026-11-30T16:00:00.000Z',
      fees: [
        { from: '2026-11-30T16:00:00.000Z', percent: 50, fee: 17.65 },
        { from: '2026-12-01T02:00:00.000Z', percent: 100, fee: 35.3 },
      ],
      no_show_fee: 35.3,
    });
  });

  it('when tiers come in any order, then the policy lists them earliest first', () => {
    const terms = {
      cancellation_fees: [
        { hours_before: 2, percent: 100 },
        { hours_before: 48, percent: 10 },
        { hours_before: 24, percent: 40 },
      ],
      no_show_percent: 0,
    };
    expect(cancellationPolicy(terms, PICKUP, 10000, 'EUR').fees.map((f) => f.percent)).toEqual([10, 40, 100]);
  });

  it('when there are no tiers, then cancelling is free until pickup', () => {
    const p = cancellationPolicy({ cancellation_fees: [], no_show_percent: 100 }, PICKUP, 1000, 'LKR');
    expect(p).toEqual({ free_until: PICKUP.toISOString(), fees: [], no_show_fee: 10 });
    expect(cancellationFeeAt({ cancellation_fees: [] }, PICKUP, 1000, hoursBefore(0.1))).toBe(0);
  });

  it('at each tier boundary, the fee is the tier that starts there (the instant counts)', () => {
    const fee = (at: Date) => cancellationFeeAt(DEFAULT_TERMS, PICKUP, 3530, at);
    expect(fee(new Date(hoursBefore(12).getTime() - 1))).toBe(0);
    expect(fee(hoursBefore(12))).toBe(1765);
    expect(fee(new Date(hoursBefore(2).getTime() - 1))).toBe(1765);
    expect(fee(hoursBefore(2))).toBe(3530);
  });

  it('a percent of an amount rounds once, half up; the contract rate applies hundredths of a percent', () => {
    expect(percentOf(3531, 50)).toBe(1766); // 1765.5
    expect(percentOf(3529, 50)).toBe(1765); // 1764.5
    expect(percentOf(0, 100)).toBe(0);
    expect(noShowFee({ no_show_percent: 80 }, 3530)).toBe(2824);
    expect(adjustedFare(3530, -10)).toBe(3177);
    expect(adjustedFare(3530, 5)).toBe(3707); // 3706.5
    expect(adjustedFare(10000, -7.5)).toBe(9250);
    expect(adjustedFare(3333, 2.25)).toBe(3408); // 3407.99
    expect(adjustedFare(3530, 0)).toBe(3530);
  });

  it("for any coherent terms, the fee never falls as time passes, never exceeds the price, and is one of the policy's fees (or 0)", () => {
    const tiers = fc
      .uniqueArray(fc.record({ hours_before: fc.integer({ min: 1, max: 720 }), percent: fc.integer({ min: 1, max: 100 }) }), {
        selector: (t) => t.hours_before,
        maxLength: 10,
      })
      .map((ts) => {
        // Coherent: percents rise as the hours before pickup fall.
        const byHours = [...ts].sort((a, b) => b.hours_before - a.hours_before);
        const percents = byHours.map((t) => t.percent).sort((a, b) => a - b);
        return byHours.map((t, i) => ({ hours_before: t.hours_before, percent: percents[i] }));
      });
    fc.assert(
      fc.property(
        tiers,
        fc.integer({ min: 1, max: 10_000_000 }),
        fc.array(fc.integer({ min: -800 * 60, max: 60 }), { minLength: 2, maxLength: 6 }),
        (fees, amount, minutes) => {
          const terms = { cancellation_fees: fees, no_show_percent: 100 };
          const policy = cancellationPolicy(terms, PICKUP, amount, 'USD');
          const allowed = new Set([0, ...policy.fees.map((f) => Math.round(f.fee * 100))]);
          const times = [...minutes].sort((a, b) => a - b).map((m) => new Date(PICKUP.getTime() + m * 60_000));
          const charged = times.map((t) => cancellationFeeAt(terms, PICKUP, amount, t));
          for (let i = 1; i < charged.length; i += 1) expect(charged[i]).toBeGreaterThanOrEqual(charged[i - 1]);
          for (const c of charged) {
            expect(c).toBeLessThanOrEqual(amount);
            expect(allowed.has(c)).toBe(true);
          }
          expect(checkedTerms({ cancellation_fees: fees, no_show_percent: 100, price_adjustment_percent: 0 })).toHaveLength(fees.length);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('when terms have two tiers at one hour, a fee falling as pickup nears, or an adjustment finer than hundredths, then they are refused naming the field', () => {
    const refusal = (t: Parameters<typeof checkedTerms>[0]) => {
      try {
        checkedTerms(t);
        return undefined;
      } catch (e) {
        return e instanceof AppError ? e.details : e;
      }
    };
    const base = { no_show_percent: 100, price_adjustment_percent: 0 };
    expect(
      refusal({
        ...base,
        cancellation_fees: [
          { hours_before: 6, percent: 50 },
          { hours_before: 6, percent: 60 },
        ],
      }),
    ).toEqual({
      fields: [{ field: 'cancellation_fees', message: 'has two tiers at hours_before 6' }],
    });
    expect(
      refusal({
        ...base,
        cancellation_fees: [
          { hours_before: 24, percent: 100 },
          { hours_before: 2, percent: 50 },
        ],
      }),
    ).toEqual({
      fields: [{ field: 'cancellation_fees', message: 'percent must not fall as hours_before falls' }],
    });
    expect(refusal({ ...base, cancellation_fees: [], price_adjustment_percent: 1.005 })).toEqual({
      fields: [{ field: 'price_adjustment_percent', message: 'must be in hundredths of a percent at most' }],
    });
    expect(refusal({ ...base, cancellation_fees: [], price_adjustment_percent: -7.25 })).toBeUndefined();
  });
});
