import { convertFromUsd, divideHalfUp, formatMinor, isCurrency, parseDecimalToMinor, parseRate, toDecimal } from '../../../src/domain/kernel/money';

describe('money: wire and text forms', () => {
  it('when minor units go to the wire, then the decimal is exact', () => {
    expect(toDecimal(6250, 'USD')).toBe(62.5);
    expect(toDecimal(6251, 'EUR')).toBe(62.51);
    expect(JSON.stringify({ price: toDecimal(10142, 'USD') })).toBe('{"price":101.42}');
    expect(toDecimal(1234567, 'LKR')).toBe(12345.67);
    expect(toDecimal(-5, 'USD')).toBe(-0.05);
  });

  it('when formatted, then all minor digits are shown', () => {
    expect(formatMinor(6250, 'USD')).toBe('62.50');
    expect(formatMinor(5, 'USD')).toBe('0.05');
    expect(formatMinor(0, 'EUR')).toBe('0.00');
    expect(formatMinor(-123, 'LKR')).toBe('-1.23');
    expect(formatMinor(3050050, 'LKR')).toBe('30500.50');
  });

  it('when a decimal string is parsed, then it is exact and round-trips through formatMinor', () => {
    expect(parseDecimalToMinor('62.5', 'USD')).toBe(6250);
    expect(parseDecimalToMinor('0.07', 'USD')).toBe(7);
    expect(parseDecimalToMinor('-1.23', 'EUR')).toBe(-123);
    for (const n of [0, 1, 99, 100, 101, 6250, 987654321]) expect(parseDecimalToMinor(formatMinor(n, 'USD'), 'USD')).toBe(n);
    expect(() => parseDecimalToMinor('1.234', 'USD')).toThrow(RangeError);
    expect(() => parseDecimalToMinor('abc', 'USD')).toThrow(RangeError);
  });

  it('when amounts are not whole minor units, then they are rejected', () => {
    expect(() => toDecimal(62.5, 'USD')).toThrow(RangeError);
    expect(() => formatMinor(Number.NaN, 'USD')).toThrow(RangeError);
  });

  it('when a currency code is checked, then only USD, EUR and LKR are supported', () => {
    expect(['USD', 'EUR', 'LKR'].every(isCurrency)).toBe(true);
    expect(isCurrency('GBP')).toBe(false);
    expect(isCurrency('toString')).toBe(false);
  });
});

describe('money: conversion from USD', () => {
  it('when converting at a decimal-string rate, then the product is rounded once, half-up', () => {
    expect(convertFromUsd(6380, 'EUR', '0.92')).toBe(5870); // 5869.6
    expect(convertFromUsd(6380, 'LKR', '300.50')).toBe(1917190); // exact
    expect(convertFromUsd(1234, 'EUR', '0.925')).toBe(1141); // 1141.45 → one rounding (two would give 1142)
    expect(convertFromUsd(1234, 'EUR', '0.9250')).toBe(1141);
    expect(convertFromUsd(1, 'EUR', '0.5')).toBe(1); // 0.5 → half-up
    expect(convertFromUsd(3, 'EUR', '0.5')).toBe(2); // 1.5 → 2
    expect(convertFromUsd(6380, 'USD', '1')).toBe(6380);
  });

  it('when the float product would drift, then the integer conversion stays exact', () => {
    // As floats 50 × 1.15 is 57.49999999999999 and would round down; exactly it is 57.5 → 58.
    expect(50 * 1.15).toBeLessThan(57.5);
    expect(Math.round(50 * 1.15)).toBe(57);
    expect(convertFromUsd(50, 'EUR', '1.15')).toBe(58);
    expect(convertFromUsd(180, 'EUR', '2.675')).toBe(482); // float: 481.49999999999994
    expect(convertFromUsd(12345678, 'LKR', '299.99')).toBe(3703579943); // 3,703,703,400 − 123,456.78
  });

  it('when the rate is not a positive decimal string, then conversion refuses it', () => {
    for (const bad of ['', 'abc', '-1', '0', '1e3', '0.92 EUR']) expect(() => convertFromUsd(100, 'EUR', bad)).toThrow(RangeError);
    expect(parseRate('300.50')).toEqual({ numerator: 30050n, scale: 100n });
  });

  it('when dividing with half-up, then ties go away from zero', () => {
    expect(divideHalfUp(5n, 2n)).toBe(3n);
    expect(divideHalfUp(-5n, 2n)).toBe(-3n);
    expect(divideHalfUp(4n, 3n)).toBe(1n);
    expect(divideHalfUp(0n, 7n)).toBe(0n);
  });
});
