import type Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats';
import { EARLIEST_DAY, isStorableDay, isStorableInstant, LATEST_DAY } from '../shared/storable-time';

/**
 * The `date-time` and `date` formats of every contract, as this service checks them: RFC 3339 (as ajv-formats reads
 * it), narrowed to what handlers can read with JavaScript's Date and store in a PostgreSQL timestamptz unchanged.
 * Every surface's validator (and so every route, request and response) uses these, so a value the contract passes
 * never fails in the database. On top of RFC 3339:
 *
 *   - the instant lies in the years 0001 to 9999 in UTC, as written too (see shared/storable-time): no year 0000,
 *     and no local time whose offset carries it outside (9999-12-31T23:59:59-05:00 is year 10000 in UTC);
 *   - seconds 00 to 59: a leap second (23:59:60) is no Date in JavaScript, and the next minute in PostgreSQL;
 *   - at most 9 fractional digits (nanoseconds, as Go's RFC3339Nano and Java's Instant write them); handlers read
 *     milliseconds of them (a Date), and a value whose rounding to PostgreSQL's microseconds would reach year
 *     10000 (…23:59:59.9999995Z) is out of range;
 *   - a UTC offset of Z, or ±HH:MM (±HHMM) up to ±15:59, PostgreSQL's limit (real zones span -12:00 to +14:00);
 *     not ±HH alone, which JavaScript cannot read;
 *   - T, t or a space between date and time (RFC 3339 §5.6), no other white space; and read as the same instant by
 *     JavaScript's Date (which reads a space-separated time of the years 0001 to 0099 as 19xx or 20xx).
 *
 * A `date` is a calendar day from 0001-01-02 to 9999-12-30 (its instants, in any offset, stay storable).
 */

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:[Zz]|([+-])(\d{2}):?(\d{2}))$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAYS = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const MAX_FRACTION_DIGITS = 9;
const MAX_OFFSET_HOURS = 15;

const isLeapYear = (y: number) => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
const isCalendarDate = (y: number, m: number, d: number) => m >= 1 && m <= 12 && d >= 1 && d <= (m === 2 && isLeapYear(y) ? 29 : DAYS[m]);

/** Milliseconds since the epoch of a UTC wall time, for any year 0000–9999 (Date.UTC maps years 0–99 to 1900–1999). */
function utcMs(y: number, mo: number, d: number, h: number, mi: number, s: number): number {
  const t = new Date(0);
  t.setUTCFullYear(y, mo - 1, d);
  t.setUTCHours(h, mi, s, 0);
  return t.getTime();
}

/** What is wrong with a date-time: `malformed` is anything RFC 3339 itself refuses (or JavaScript cannot read). */
export type DateTimeVerdict = 'ok' | 'malformed' | 'leap_second' | 'fraction' | 'offset' | 'range' | 'misread';

export function judgeDateTime(s: string): DateTimeVerdict {
  const m = DATE_TIME.exec(s);
  if (!m) return 'malformed';
  const [y, mo, d, h, mi, sec] = m.slice(1, 7).map(Number);
  const sign = m[8] === '-' ? -1 : 1;
  const offH = m[8] ? Number(m[9]) : 0;
  const offM = m[8] ? Number(m[10]) : 0;
  if (!isCalendarDate(y, mo, d) || h > 23 || mi > 59 || sec > 60 || offH > 23 || offM > 59) return 'malformed';
  const offsetMs = sign * (offH * 60 + offM) * 60_000;
  if (sec === 60) {
    // RFC 3339 has leap seconds only at 23:59:60 UTC.
    const utc = new Date(utcMs(2000, 1, 1, h, mi, 0) - offsetMs);
    return utc.getUTCHours() === 23 && utc.getUTCMinutes() === 59 ? 'leap_second' : 'malformed';
  }
  if (offH > MAX_OFFSET_HOURS) return 'offset';
  const fraction = m[7] ?? '';
  if (fraction.length > MAX_FRACTION_DIGITS) return 'fraction';
  const ms = utcMs(y, mo, d, h, mi, sec) + Number(fraction.padEnd(3, '0').slice(0, 3)) - offsetMs;
  // Past 6 digits PostgreSQL rounds: up to a whole millisecond more, at the last instant we hold.
  if (y === 0 || !isStorableInstant(ms) || (fraction.length > 6 && !isStorableInstant(ms + 1))) return 'range';
  return new Date(s).getTime() === ms ? 'ok' : 'misread';
}

export const isDateTime = (s: string): boolean => judgeDateTime(s) === 'ok';

export function judgeDate(s: string): 'ok' | 'malformed' | 'range' {
  const m = DATE.exec(s);
  if (!m || !isCalendarDate(Number(m[1]), Number(m[2]), Number(m[3]))) return 'malformed';
  return isStorableDay(s) ? 'ok' : 'range';
}

export const isDate = (s: string): boolean => judgeDate(s) === 'ok';

/** Why an RFC 3339 date-time is beyond what we hold, in words for `details.fields`; undefined for anything else. */
export function dateTimeLimitMessage(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  switch (judgeDateTime(value)) {
    case 'range':
      return 'must fall in the years 0001 to 9999, in UTC and as written (0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z)';
    case 'leap_second':
      return 'is a leap second (second 60), which cannot be stored: send 23:59:59 or the next minute';
    case 'fraction':
      return `has more than ${MAX_FRACTION_DIGITS} fractional digits: send at most nanoseconds (e.g. 09:30:00.123456789)`;
    case 'offset':
      return `has a UTC offset beyond ±${MAX_OFFSET_HOURS}:59 (Sri Lankan time is +05:30)`;
    case 'misread':
      return 'must have T between the date and the time: with a space, the years 0001 to 0099 are read as 19xx or 20xx';
    default:
      return undefined;
  }
}

/** What is wrong with a date, in words for `details.fields`. */
export function dateMessage(value: unknown): string {
  if (typeof value === 'string' && judgeDate(value) === 'range') return `must be a day from ${EARLIEST_DAY} to ${LATEST_DAY}`;
  return 'must be an RFC 3339 date, YYYY-MM-DD (e.g. 2026-12-01)';
}

/** ajv-formats' formats, with `date-time` and `date` as above: what every contract is validated with. */
export function addContractFormats(ajv: Ajv): Ajv {
  addFormats(ajv);
  // ajv-formats' comparisons stay (formatMinimum and the like order values the same way).
  const compare = (name: 'date-time' | 'date') => (fullFormats[name] as { compare?: (a: string, b: string) => number | undefined }).compare;
  ajv.addFormat('date-time', { type: 'string', validate: isDateTime, compare: compare('date-time') });
  ajv.addFormat('date', { type: 'string', validate: isDate, compare: compare('date') });
  return ajv;
}
