import { divideHalfUp, toDecimal, type Currency } from '../kernel/money';
import type { SaleTerms } from './terms';

const HOUR_MS = 60 * 60 * 1000;

/** `percent` of an amount in minor units, with one half-up rounding. */
export const percentOf = (amountMinor: number, percent: number): number => Number(divideHalfUp(BigInt(amountMinor) * BigInt(percent), 100n));

/** The rate card's fare at the partner's contract rate (hundredths of a percent, one half-up rounding). */
export function adjustedFare(fareMinor: number, adjustmentPercent: number): number {
  if (adjustmentPercent === 0) return fareMinor;
  const basisPoints = BigInt(Math.round(adjustmentPercent * 100));
  return Number(divideHalfUp(BigInt(fareMinor) * (10_000n + basisPoints), 10_000n));
}

type Tier = { from: Date; fromText: string; percent: number };

/** The tiers in force for a pickup, earliest first, each with the instant it starts. */
function tiersFor(terms: Pick<SaleTerms, 'cancellation_fees'>, pickupAt: Date): readonly Tier[] {
  // A quote's offers share their terms and pickup: the last answer is kept, so they are worked out once a quote.
  if (last.fees === terms.cancellation_fees && last.at === pickupAt.getTime()) return last.tiers;
  const tiers = [...terms.cancellation_fees]
    .sort((a, b) => b.hours_before - a.hours_before)
    .map((t) => {
      const from = new Date(pickupAt.getTime() - t.hours_before * HOUR_MS);
      return { from, fromText: from.toISOString(), percent: t.percent };
    });
  last = { fees: terms.cancellation_fees, at: pickupAt.getTime(), tiers };
  return tiers;
}

let last: { fees?: unknown; at: number; tiers: readonly Tier[] } = { at: Number.NaN, tiers: [] };

export interface CancellationPolicy {
  /** Until this instant a cancellation costs nothing. */
  free_until: string;
  /** From each `from`, a cancellation costs `fee` (`percent` of the price). */
  fees: Array<{ from: string; percent: number; fee: number }>;
  no_show_fee: number;
}

/** What cancelling will cost, in absolute UTC instants computed from the pickup, in the sale's currency. */
export function cancellationPolicy(
  terms: Omit<SaleTerms, 'version' | 'price_adjustment_percent'>,
  pickupAt: Date,
  amountMinor: number,
  currency: Currency,
): CancellationPolicy {
  const tiers = tiersFor(terms, pickupAt);
  return {
    free_until: tiers[0]?.fromText ?? pickupAt.toISOString(),
    fees: tiers.map((t) => ({ from: t.fromText, percent: t.percent, fee: toDecimal(percentOf(amountMinor, t.percent), currency) })),
    no_show_fee: toDecimal(percentOf(amountMinor, terms.no_show_percent), currency),
  };
}

/** The fee of a cancellation at `now`: the latest tier started by then, or nothing before the first. */
export function cancellationFeeAt(terms: Pick<SaleTerms, 'cancellation_fees'>, pickupAt: Date, amountMinor: number, now: Date): number {
  const started = tiersFor(terms, pickupAt).filter((t) => t.from.getTime() <= now.getTime());
  return started.length ? percentOf(amountMinor, started[started.length - 1].percent) : 0;
}

/** What a no-show is billed. */
export const noShowFee = (terms: Pick<SaleTerms, 'no_show_percent'>, amountMinor: number): number => percentOf(amountMinor, terms.no_show_percent);
