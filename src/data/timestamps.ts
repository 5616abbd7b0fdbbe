/**
 * PostgreSQL's text form of a timestamptz (DateStyle ISO: "YYYY-MM-DD HH:MM:SS[.ffffff]±HH[:MM[:SS]][ BC]"), read
 * as node-postgres reads it: the same instant, to the millisecond. PGlite's own parser hands the text to Date's
 * lenient parser, which reads the years 0001 to 0099 as 19xx and 20xx ("0001-06-15 12:34:56+00" as 2015-01-06)
 * and so silently changes times a client may send and read back (a driver's position dated 0050, say).
 */
const TIMESTAMPTZ = /^(\d{4,})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?(?:([+-])(\d{2})(?::(\d{2}))?(?::(\d{2}))?)?( BC)?$/;

export function parseTimestamptz(text: string): Date | number {
  if (text === 'infinity') return Infinity;
  if (text === '-infinity') return -Infinity;
  const m = TIMESTAMPTZ.exec(text);
  if (!m) return new Date(text);
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  const ms = Number((m[7] ?? '').padEnd(3, '0').slice(0, 3));
  const offsetSeconds = m[8] ? (m[8] === '-' ? -1 : 1) * (Number(m[9]) * 3600 + Number(m[10] ?? 0) * 60 + Number(m[11] ?? 0)) : 0;
  const t = new Date(0);
  // Year 1 BC is year 0 of the proleptic calendar Date counts in; setUTCFullYear takes years 0–99 as they are.
  t.setUTCFullYear(m[12] ? 1 - year : year, month - 1, day);
  t.setUTCHours(hour, minute, second, ms);
  return new Date(t.getTime() - offsetSeconds * 1000);
}
