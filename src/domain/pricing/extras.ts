import { invalidRequest } from '../../shared/errors';
import { toDecimal, type Currency } from '../kernel/money';
import { EXTRA_CODES, type ExtraCode, type ExtraRequest } from '../kernel/seats';
import { usdToCurrency, type FxRates } from './price-journey';

/** Per seat and transfer, whatever the vehicle (docs/partner-guide.md#children-and-child-seats). */
export const EXTRA_PRICE_USD_MINOR: Readonly<Record<ExtraCode, number>> = Object.freeze({ infant_seat: 600, child_seat: 600, booster_seat: 400 });

/** Seats as sold: `amount_minor` for all of them, in the sale's currency. */
export interface PricedExtra extends ExtraRequest {
  amount_minor: number;
}

/**
 * What the contract cannot say about seats: each kind once, and no more seats than children (a seat is for a
 * child counted in `passengers.children`). Returns them in a fixed order, so the same seats read the same.
 */
export function checkedExtras(extras: readonly ExtraRequest[] | undefined, children: number, field = 'extras'): ExtraRequest[] {
  const list = [...(extras ?? [])];
  const codes = new Set(list.map((e) => e.code));
  if (codes.size !== list.length) {
    throw invalidRequest(`The request is invalid: ${field} names a kind of seat twice; send each once with its quantity.`, [
      { field, message: 'names a kind of seat twice' },
    ]);
  }
  const seats = list.reduce((n, e) => n + e.quantity, 0);
  if (seats > children) {
    throw invalidRequest(`The request is invalid: ${seats} children's seats for ${children} children; count each child in passengers.children.`, [
      { field: 'passengers.children', message: `must be at least the ${seats} seats asked for` },
    ]);
  }
  return EXTRA_CODES.flatMap((code) => list.filter((e) => e.code === code).map((e) => ({ code, quantity: e.quantity })));
}

/** The seats priced in the sale's currency: a seat converted once, then times the quantity. */
export function priceExtras(extras: readonly ExtraRequest[], currency: Currency, fx: FxRates): PricedExtra[] {
  return extras.map((e) => ({ ...e, amount_minor: usdToCurrency(EXTRA_PRICE_USD_MINOR[e.code], currency, fx) * e.quantity }));
}

export const extrasTotal = (extras: readonly PricedExtra[]): number => extras.reduce((n, e) => n + e.amount_minor, 0);

/** Seats as partners read them, priced in decimal money. */
export const extraView = (e: PricedExtra, currency: Currency) => ({ code: e.code, quantity: e.quantity, price: toDecimal(e.amount_minor, currency) });
