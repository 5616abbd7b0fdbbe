/**
 * A driver's hours as an operator types them, and as the CLI prints them (Sri Lanka time):
 *
 *   --weekly "mon-fri 06:00-18:00"     --weekly "sat 20:00-06:00"     --weekly "tue,thu 06:00-10:00 14:00-18:00"
 *   --off 2026-12-25                   --exception "2026-12-26 10:00-16:00"
 *
 * Days: mon … sun (or longer: monday, tues), ranges (mon-fri; fri-mon wraps over the weekend), lists (mon,wed), or
 * daily, weekdays, weekend. Times: H:MM or HH:MM; an end earlier than the start runs past midnight, and 24:00 is an
 * end at midnight. Only the form is checked here: whether the hours overlap or have no length is the API's to say.
 */
import type { Schemas } from './api';

type Weekly = Schemas['WeeklyShift'];
type Exception = Schemas['ShiftException'];
type Hours = { starts: string; ends: string };

/** A form the operator mistyped: what it takes, and what is wrong. */
export class ShiftFormError extends Error {}

export const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const GROUPS: Record<string, number[]> = { daily: [1, 2, 3, 4, 5, 6, 7], weekdays: [1, 2, 3, 4, 5], weekend: [6, 7], weekends: [6, 7] };

const WEEKLY_FORM = '"<days> HH:MM-HH:MM" (e.g. "mon-fri 06:00-18:00", "sat 20:00-06:00")';
const EXCEPTION_FORM = '"YYYY-MM-DD HH:MM-HH:MM" (e.g. "2026-12-26 10:00-16:00")';
const OFF_FORM = 'YYYY-MM-DD (e.g. 2026-12-25)';

/** `--weekly "<days> <hours> [<hours>…]"` → one shift a day and range of hours. */
export function parseWeekly(raw: string): Weekly[] {
  const { head, hours } = split(raw, '--weekly', WEEKLY_FORM);
  const days = weekdays(head, raw);
  return days.flatMap((weekday) => hours.map((h) => ({ weekday, ...h })));
}

/** `--exception "<date> <hours> [<hours>…]"` → that day's hours, in place of its weekday's. */
export function parseException(raw: string): Exception[] {
  const { head, hours } = split(raw, '--exception', EXCEPTION_FORM);
  const date = checkedDate(head, () => fail('--exception', EXCEPTION_FORM, raw, `"${head}" is not a date (YYYY-MM-DD)`));
  return hours.map((h) => ({ date, ...h }));
}

/** `--off <date>` → a day off. */
export function parseOff(raw: string): Exception {
  const date = checkedDate(raw.trim(), () => fail('--off', OFF_FORM, raw, 'not a date'));
  return { date, off: true };
}

/** "06:00-18:00", "20:00-06:00 (next day)" for a shift past midnight. */
export const hoursText = (h: Hours) => `${h.starts}-${h.ends}${h.ends < h.starts ? ' (next day)' : ''}`;

/** The weekday of a date `YYYY-MM-DD`. */
export const weekdayOfDate = (date: string) => WEEKDAYS[(new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7];

function fail(flag: string, form: string, raw: string, why: string): never {
  throw new ShiftFormError(`error: ${flag} takes ${form}, not "${raw}": ${why}`);
}

/** The words before the hours (the days, or the date), and the ranges of hours after them. */
function split(raw: string, flag: string, form: string): { head: string; hours: Hours[] } {
  const bad = (why: string) => fail(flag, form, raw, why);
  // "mon - fri 6:00 - 18:00, 20:00-22:00" reads as "mon-fri 6:00-18:00,20:00-22:00".
  const words = raw
    .trim()
    .replace(/\s*[-–]\s*/g, '-')
    .replace(/\s*,\s*/g, ',')
    .split(/\s+/)
    .filter(Boolean);
  // The days are words that do not start with a digit (a date is one word); the hours follow.
  const firstDigit = words.findIndex((w) => /^\d/.test(w));
  const headCount = flag === '--weekly' ? (firstDigit < 0 ? words.length : firstDigit) : Math.min(1, words.length);
  const head = words.slice(0, headCount).join(' ');
  const ranges = words.slice(headCount).flatMap((w) => w.split(',').filter(Boolean));
  if (!head) bad(flag === '--weekly' ? 'no days' : 'no date');
  if (!ranges.length) bad('no hours (HH:MM-HH:MM)');
  const hours = ranges.map((range) => {
    const [from, to, extra] = range.split('-');
    if (to === undefined || extra !== undefined) return bad(`"${range}" is not a range of hours (HH:MM-HH:MM)`);
    const starts = time(from, false, () => bad(`"${from}" is not a time (00:00 to 23:59)`));
    const ends = time(to, true, () => bad(`"${to}" is not a time (00:00 to 24:00)`));
    return { starts, ends };
  });
  return { head, hours };
}

/** `H:MM` or `HH:MM` → `HH:MM`; 24:00 (an end only) is midnight, 00:00. */
function time(word: string, end: boolean, bad: () => never): string {
  const m = /^(\d{1,2}):(\d{2})$/.exec(word);
  if (!m) return bad();
  const [h, min] = [Number(m[1]), Number(m[2])];
  if (end && h === 24 && min === 0) return '00:00';
  if (h > 23 || min > 59) return bad();
  return `${String(h).padStart(2, '0')}:${m[2]}`;
}

/** "mon-fri", "tue,thu", "fri-mon", "weekend" → ISO weekdays (1 = Monday), in order, each once. */
function weekdays(head: string, raw: string): number[] {
  const bad = (why: string) => fail('--weekly', WEEKLY_FORM, raw, why);
  const items = head
    .toLowerCase()
    .split(/[\s,]+/)
    .filter(Boolean);
  const out = new Set<number>();
  for (const item of items) {
    if (GROUPS[item]) {
      GROUPS[item].forEach((d) => out.add(d));
      continue;
    }
    const [from, to, extra] = item.split('-');
    if (extra !== undefined) bad(`"${item}" is not a day or a range of days`);
    const a = weekday(from, bad);
    const b = to === undefined ? a : weekday(to, bad);
    for (let d = a; ; d = (d % 7) + 1) {
      out.add(d);
      if (d === b) break;
    }
  }
  return [...out].sort((x, y) => x - y);
}

function weekday(word: string, bad: (why: string) => never): number {
  // At least three letters: "t" or "s" alone would name two days.
  const i = word.length >= 3 ? WEEKDAYS.findIndex((d) => d.toLowerCase().startsWith(word)) : -1;
  if (i < 0) return bad(`"${word}" is not a day (mon, tue, wed, thu, fri, sat, sun)`);
  return i + 1;
}

/** A real calendar date `YYYY-MM-DD`, or `bad()`. */
function checkedDate(word: string, bad: () => never): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(word)) return bad();
  const d = new Date(`${word}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === word ? word : bad();
}
