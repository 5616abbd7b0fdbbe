import { isStorableDay } from '../../shared/storable-time';

/**
 * Sri Lanka time, in one place. Sri Lanka keeps UTC+05:30 all year (no daylight saving): the marketplace speaks
 * local time without a zone, operators and drivers read their day in it, and messages name times in it.
 */
export const SRI_LANKA_OFFSET = '+05:30';
export const SRI_LANKA_OFFSET_MS = (5 * 60 + 30) * 60 * 1000;
const LOCAL = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})$/;

/**
 * The instant of a local time, or null when there is no such time (02-30, 24:00, 23:59:60) or its day is not one we
 * store (0001-01-02 to 9999-12-30: the day of 0001-01-01 begins in year 0 in UTC, and a job on 9999-12-31 ends in
 * year 10000; see shared/storable-time).
 */
export function parseLocal(value: string): Date | null {
  const m = LOCAL.exec(value);
  if (!m || !isStorableDay(m[1])) return null;
  const d = new Date(`${m[1]}T${m[2]}${SRI_LANKA_OFFSET}`);
  // Date rolls impossible days over (02-30 → 03-02): only a round trip proves the date exists.
  return Number.isNaN(d.getTime()) || formatLocal(d) !== value ? null : d;
}

/** `2026-11-22 13:30:00`: the instant in Sri Lanka time, without a zone. */
export function formatLocal(d: Date): string {
  return new Date(d.getTime() + SRI_LANKA_OFFSET_MS).toISOString().replace('T', ' ').slice(0, 19);
}

/** `2026-11-22T13:30:00+05:30`: the instant in Sri Lanka time, with its offset. */
export const formatLocalWithOffset = (d: Date): string => formatLocal(d).replace(' ', 'T') + SRI_LANKA_OFFSET;

/** A calendar day in Sri Lanka (`2026-11-22`), as an instant range. */
export function sriLankaDay(date: string): { from: Date; to: Date } {
  const from = new Date(`${date}T00:00:00${SRI_LANKA_OFFSET}`);
  return { from, to: new Date(from.getTime() + 24 * 3600_000) };
}
