import { SRI_LANKA_OFFSET, formatLocal } from '../kernel/sri-lanka-time';

/**
 * A driver's working hours, in Sri Lanka time: a weekly pattern (`weekday` 1 = Monday … 7 = Sunday) and exceptions
 * for single days, which replace that day's pattern (`off`, or other hours). A shift whose `ends` is earlier than
 * its `starts` runs past midnight into the next day; it belongs to the day it starts on.
 */
export interface WeeklyShift {
  weekday: number;
  starts: string;
  ends: string;
}
export type ShiftException = { date: string; off: true } | { date: string; starts: string; ends: string };
export interface Shifts {
  weekly: WeeklyShift[];
  exceptions: ShiftException[];
}
/** One shift as it falls: absolute instants. */
export interface ShiftInstance {
  starts: Date;
  ends: Date;
}

const DAY_MS = 24 * 3600_000;
const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** ISO weekday (1 = Monday) of a local date `YYYY-MM-DD`. */
export const weekdayOf = (date: string) => ((new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7) + 1;

function instance(date: string, starts: string, ends: string): ShiftInstance {
  const from = new Date(`${date}T${starts}:00${SRI_LANKA_OFFSET}`);
  const length = (minutesOf(ends) - minutesOf(starts) + 1440) % 1440;
  return { starts: from, ends: new Date(from.getTime() + length * 60_000) };
}

/** The hours of one local day: its exception if it has one, else its weekday's pattern. */
function hoursOf(shifts: Shifts, date: string): Array<{ starts: string; ends: string }> {
  const exceptions = shifts.exceptions.filter((e) => e.date === date);
  if (exceptions.length) return exceptions.flatMap((e) => ('off' in e ? [] : [{ starts: e.starts, ends: e.ends }]));
  const weekday = weekdayOf(date);
  return shifts.weekly.filter((w) => w.weekday === weekday);
}

/** Every shift that overlaps [from, to), in order (the day before `from` too: its night shift may run into it). */
export function shiftsBetween(shifts: Shifts, from: Date, to: Date): ShiftInstance[] {
  const out: ShiftInstance[] = [];
  for (let t = from.getTime() - DAY_MS; t < to.getTime() + DAY_MS; t += DAY_MS) {
    const date = formatLocal(new Date(t)).slice(0, 10);
    for (const h of hoursOf(shifts, date)) {
      const s = instance(date, h.starts, h.ends);
      if (s.starts < to && s.ends > from && !out.some((o) => o.starts.getTime() === s.starts.getTime())) out.push(s);
    }
  }
  return out.sort((a, b) => a.starts.getTime() - b.starts.getTime());
}

/** The shift under way at `at` (start included, end excluded), if any. */
export const shiftAt = (shifts: Shifts, at: Date): ShiftInstance | undefined =>
  shiftsBetween(shifts, at, new Date(at.getTime() + 1)).find((s) => s.starts <= at && at < s.ends);

/**
 * What is wrong with a set of hours, in words an operator can act on (empty when nothing is): a shift of no length,
 * two shifts of one weekday (or of one exception day) that overlap, an exception day given twice with `off`, or a
 * day both off and worked.
 */
export function shiftProblems(shifts: Shifts): string[] {
  const problems: string[] = [];
  const length = (s: { starts: string; ends: string }) => (minutesOf(s.ends) - minutesOf(s.starts) + 1440) % 1440;
  const zero = [...shifts.weekly, ...shifts.exceptions.flatMap((e) => ('off' in e ? [] : [e]))].filter((s) => length(s) === 0);
  for (const s of zero) problems.push(`${s.starts}–${s.ends} has no length: give different start and end times.`);
  // Overlaps, in minutes of a week (a night shift carries into the next weekday; Sunday night into Monday).
  const week = shifts.weekly.map((w) => ({
    w,
    from: (w.weekday - 1) * 1440 + minutesOf(w.starts),
    to: (w.weekday - 1) * 1440 + minutesOf(w.starts) + length(w),
  }));
  for (let i = 0; i < week.length; i++) {
    for (let j = i + 1; j < week.length; j++) {
      const [a, b] = [week[i], week[j]];
      const overlaps = [0, 7 * 1440, -7 * 1440].some((shift) => a.from < b.to + shift && b.from + shift < a.to);
      if (overlaps)
        problems.push(`weekly shifts overlap: weekday ${a.w.weekday} ${a.w.starts}–${a.w.ends} and weekday ${b.w.weekday} ${b.w.starts}–${b.w.ends}.`);
    }
  }
  const byDate = new Map<string, ShiftException[]>();
  for (const e of shifts.exceptions) byDate.set(e.date, [...(byDate.get(e.date) ?? []), e]);
  for (const [date, list] of byDate) {
    if (list.some((e) => 'off' in e) && list.length > 1) problems.push(`${date} is given as off and as worked (or off twice): send it once.`);
    const worked = list.flatMap((e) => ('off' in e ? [] : [instance(date, e.starts, e.ends)]));
    for (let i = 0; i < worked.length; i++) {
      for (let j = i + 1; j < worked.length; j++) {
        if (worked[i].starts < worked[j].ends && worked[j].starts < worked[i].ends) problems.push(`shifts on ${date} overlap.`);
      }
    }
  }
  return problems;
}

/** Hours as stored and shown: weekly by weekday then start, exceptions by date. */
export function normalisedShifts(shifts: Shifts): Shifts {
  return {
    weekly: [...shifts.weekly]
      .sort((a, b) => a.weekday - b.weekday || a.starts.localeCompare(b.starts))
      .map((w) => ({ weekday: w.weekday, starts: w.starts, ends: w.ends })),
    exceptions: [...shifts.exceptions]
      .sort((a, b) => a.date.localeCompare(b.date) || ('off' in a ? '' : a.starts).localeCompare('off' in b ? '' : b.starts))
      .map((e) => ('off' in e ? { date: e.date, off: true as const } : { date: e.date, starts: e.starts, ends: e.ends })),
  };
}
