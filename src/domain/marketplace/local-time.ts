import { isStorableDay } from '../../shared/storable-time';

/** Sri Lanka keeps UTC+05:30 all year; the marketplace speaks local time without a zone. */
const OFFSET = '+05:30';
const OFFSET_MS = (5 * 60 + 30) * 60 * 1000;
const LOCAL = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})$/;

/**
 * The instant of a local time, or null when there is no such time (02-30, 24:00, 23:59:60) or its day is not one we
 * store (0001-01-02 to 9999-12-30: the day of 0001-01-01 begins in year 0 in UTC, and a job on 9999-12-31 ends in
 * year 10000; see shared/storable-time).
 */
export function parseLocal(value: string): Date | null {
  const m = LOCAL.exec(value);
  if (!m || !isStorableDay(m[1])) return null;
  const d = new Date(`${m[1]}T${m[2]}${OFFSET}`);
  // Date rolls impossible days over (02-30 → 03-02): only a round trip proves the date exists.
  return Number.isNaN(d.getTime()) || formatLocal(d) !== value ? null : d;
}

export function formatLocal(d: Date): string {
  return new Date(d.getTime() + OFFSET_MS).toISOString().replace('T', ' ').slice(0, 19);
}
