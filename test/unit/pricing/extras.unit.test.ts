import { checkedExtras, extrasTotal, priceExtras } from '../../../src/domain/pricing/extras';
import { missingSeats } from '../../../src/domain/kernel/seats';
import { AppError } from '../../../src/shared/errors';

describe("children's seats", () => {
  it("when seats are asked for, then they come in a fixed order and are priced per seat in the sale's currency", () => {
    const asked = checkedExtras(
      [
        { code: 'booster_seat', quantity: 2 },
        { code: 'infant_seat', quantity: 1 },
      ],
      3,
    );
    expect(asked).toEqual([
      { code: 'infant_seat', quantity: 1 },
      { code: 'booster_seat', quantity: 2 },
    ]);
    const usd = priceExtras(asked, 'USD', {});
    expect(usd).toEqual([
      { code: 'infant_seat', quantity: 1, amount_minor: 600 },
      { code: 'booster_seat', quantity: 2, amount_minor: 800 },
    ]);
    expect(extrasTotal(usd)).toBe(1400);
    // A seat is converted once, then multiplied: 2 boosters at 300.50 LKR a dollar are twice 1,202.00.
    expect(priceExtras([{ code: 'booster_seat', quantity: 2 }], 'LKR', { LKR: '300.50' })).toEqual([
      { code: 'booster_seat', quantity: 2, amount_minor: 240400 },
    ]);
  });

  it('when more seats than children, or a kind twice, then invalid_request naming the field', () => {
    const fieldOf = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return e instanceof AppError ? (e.details.fields as Array<{ field: string }>)[0].field : String(e);
      }
      return undefined;
    };
    expect(fieldOf(() => checkedExtras([{ code: 'child_seat', quantity: 2 }], 1))).toBe('passengers.children');
    expect(
      fieldOf(() =>
        checkedExtras(
          [
            { code: 'child_seat', quantity: 1 },
            { code: 'child_seat', quantity: 1 },
          ],
          4,
        ),
      ),
    ).toBe('extras');
    expect(checkedExtras(undefined, 0)).toEqual([]);
  });

  it('what a vehicle lacks for a job is the difference, kind by kind', () => {
    expect(missingSeats({ child_seat: 2, booster_seat: 1 }, { child_seat: 1, booster_seat: 3 })).toEqual({ child_seat: 1 });
    expect(missingSeats({ infant_seat: 1 }, {})).toEqual({ infant_seat: 1 });
    expect(missingSeats({}, { infant_seat: 1 })).toEqual({});
  });
});
