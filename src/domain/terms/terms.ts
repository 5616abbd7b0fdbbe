import type { StoredTerms } from '../../data/repositories/quotes-repository';
import { invalidRequest } from '../../shared/errors';

/**
 * What a partner's terms say about a sale, kept with every quote and booking they price: cancellation fees (a fee
 * of `percent` of the price from `hours_before` hours before pickup), what a no-show is billed, and the contract
 * rate (`price_adjustment_percent`: -10 prices every fare 10 % below the rate card).
 */
export type SaleTerms = StoredTerms;
export type FeeTier = SaleTerms['cancellation_fees'][number];

/** The terms every partner starts with (version 1), as the migration that gives them restates. */
export const DEFAULT_TERMS: Readonly<Omit<SaleTerms, 'version'>> = Object.freeze({
  cancellation_fees: [
    { hours_before: 12, percent: 50 },
    { hours_before: 2, percent: 100 },
  ],
  no_show_percent: 100,
  price_adjustment_percent: 0,
});

/** Terms as sent (PUT /ops/v1/partners/{id}/terms), before they are checked. */
export type TermsInput = Omit<SaleTerms, 'version'>;

/**
 * What the contract cannot say: the adjustment is in hundredths of a percent, each tier's hours differ, and a fee
 * never falls as pickup nears (a tier closer to pickup takes at least the percent of the one before). Returns the
 * tiers earliest first.
 */
export function checkedTerms(input: TermsInput): FeeTier[] {
  const hundredths = input.price_adjustment_percent * 100;
  if (Math.abs(hundredths - Math.round(hundredths)) > 1e-6) {
    throw invalidRequest('The request is invalid: price_adjustment_percent has more than two decimals.', [
      { field: 'price_adjustment_percent', message: 'must be in hundredths of a percent at most' },
    ]);
  }
  const tiers = [...input.cancellation_fees].sort((a, b) => b.hours_before - a.hours_before);
  for (let i = 1; i < tiers.length; i += 1) {
    const [before, after] = [tiers[i - 1], tiers[i]];
    if (before.hours_before === after.hours_before) {
      throw invalidRequest(`The request is invalid: two cancellation fees start ${after.hours_before} hours before pickup.`, [
        { field: 'cancellation_fees', message: `has two tiers at hours_before ${after.hours_before}` },
      ]);
    }
    if (after.percent < before.percent) {
      throw invalidRequest(
        `The request is invalid: the fee from ${after.hours_before} hours before pickup (${after.percent} %) is lower than the one from ${before.hours_before} hours (${before.percent} %); a fee never falls as pickup nears.`,
        [{ field: 'cancellation_fees', message: 'percent must not fall as hours_before falls' }],
      );
    }
  }
  return tiers;
}
