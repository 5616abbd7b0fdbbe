/**
 * Money as integer minor units. Amounts are never summed or scaled as floats: conversion uses BigInt with a
 * single rounding step, and decimals appear only at the wire (toDecimal) or in text (formatMinor).
 */
export type Currency = 'USD' | 'EUR' | 'LKR';

/** ISO 4217 minor-unit exponents. */
export const CURRENCY_EXPONENT: Readonly<Record<Currency, number>> = Object.freeze({ USD: 2, EUR: 2, LKR: 2 });

export interface Money {
  amount_minor: number;
  currency: Currency;
}

export function isCurrency(code: string): code is Currency {
  return Object.prototype.hasOwnProperty.call(CURRENCY_EXPONENT, code);
}

function exponentOf(currency: Currency): number {
  const e = CURRENCY_EXPONENT[currency];
  if (e === undefined) throw new RangeError(`unsupported currency ${String(currency)}`);
  return e;
}

function assertMinor(minor: number): void {
  if (!Number.isSafeInteger(minor)) throw new RangeError(`amount must be an integer number of minor units, got ${minor}`);
}

/**
 * Decimal amount for JSON (6250 USD → 62.5). Dividing an integer by a power of ten yields the double nearest
 * the exact decimal, so JSON.stringify prints the exact amount ("62.5", "62.51").
 */
export function toDecimal(minor: number, currency: Currency): number {
  assertMinor(minor);
  return minor / 10 ** exponentOf(currency);
}

/** Fixed-point text with all minor digits: 6250 → "62.50", -5 → "-0.05". */
export function formatMinor(minor: number, currency: Currency): string {
  assertMinor(minor);
  const e = exponentOf(currency);
  const digits = Math.abs(minor)
    .toString()
    .padStart(e + 1, '0');
  const text = e === 0 ? digits : `${digits.slice(0, -e)}.${digits.slice(-e)}`;
  return minor < 0 ? `-${text}` : text;
}

const DECIMAL = /^(-)?(\d+)(?:\.(\d+))?$/;

/** Exact parse of a decimal string into minor units ("62.5" → 6250); more decimals than the currency has is an error. */
export function parseDecimalToMinor(text: string, currency: Currency): number {
  const m = DECIMAL.exec(text.trim());
  const e = exponentOf(currency);
  if (!m || (m[3] ?? '').length > e) throw new RangeError(`not a ${currency} amount: ${JSON.stringify(text)}`);
  const minor = Number(BigInt(m[2] + (m[3] ?? '').padEnd(e, '0')));
  assertMinor(minor);
  return m[1] && minor !== 0 ? -minor : minor;
}

interface Rate {
  numerator: bigint;
  scale: bigint;
}

const rateCache = new Map<string, Rate>();
const RATE = /^(\d+)(?:\.(\d+))?$/;

/** "300.50" → 30050 / 10², exactly. */
export function parseRate(text: string): Rate {
  const cached = rateCache.get(text);
  if (cached) return cached;
  const m = RATE.exec(text.trim());
  if (!m) throw new RangeError(`exchange rate must be a positive decimal string, got ${JSON.stringify(text)}`);
  const fraction = m[2] ?? '';
  const rate = { numerator: BigInt(m[1] + fraction), scale: 10n ** BigInt(fraction.length) };
  if (rate.numerator === 0n) throw new RangeError('exchange rate must be positive');
  if (rateCache.size < 256) rateCache.set(text, rate);
  return rate;
}

/**
 * Converts USD minor units at `rate` (units of `currency` per 1 USD, as a decimal string) with exactly one
 * rounding: half-up, i.e. ties away from zero (1234 × "0.925" = 1141.45 → 1141; 1141.5 → 1142).
 */
export function convertFromUsd(usdMinor: number, currency: Currency, rate: string): number {
  assertMinor(usdMinor);
  const shift = exponentOf(currency) - exponentOf('USD');
  const { numerator, scale } = currency === 'USD' && rate === '1' ? { numerator: 1n, scale: 1n } : parseRate(rate);
  const n = BigInt(usdMinor) * numerator * (shift > 0 ? 10n ** BigInt(shift) : 1n);
  const d = scale * (shift < 0 ? 10n ** BigInt(-shift) : 1n);
  const result = Number(divideHalfUp(n, d));
  assertMinor(result);
  return result;
}

/** n / d rounded half away from zero; d > 0. */
export function divideHalfUp(n: bigint, d: bigint): bigint {
  const negative = n < 0n;
  const abs = negative ? -n : n;
  const q = (abs * 2n + d) / (2n * d);
  return negative ? -q : q;
}
