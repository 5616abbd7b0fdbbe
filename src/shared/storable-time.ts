/**
 * The instants and days the service can hold. Times reach the database as JavaScript Dates in timestamptz columns
 * (node-postgres writes them as text, PGlite with Date#toISOString), and come back the same way:
 *
 *   - PostgreSQL has no year 0: "0000-…" is out of range (node-postgres would write it as 1 BC, which reads back
 *     as a Date whose ISO form, "0000-…" or "-000001-…", no contract or query takes);
 *   - JavaScript writes years after 9999 as "+010000-…", which PostgreSQL cannot read.
 *
 * So an instant is storable from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z, whatever offset it was written
 * with. A day (a `date`, or the day of a local time) is storable from 0001-01-02 to 9999-12-30: then each of its
 * instants, in any UTC offset, and what is derived from it within a day (the Sri Lankan day of a job listing, a
 * job's window after its pickup, live tracking the hour before) stays storable too.
 */
export const EARLIEST_INSTANT = '0001-01-01T00:00:00.000Z';
export const LATEST_INSTANT = '9999-12-31T23:59:59.999Z';
const EARLIEST_MS = Date.parse(EARLIEST_INSTANT);
const LATEST_MS = Date.parse(LATEST_INSTANT);

export const isStorableInstant = (ms: number): boolean => Number.isFinite(ms) && ms >= EARLIEST_MS && ms <= LATEST_MS;

export const EARLIEST_DAY = '0001-01-02';
export const LATEST_DAY = '9999-12-30';

/** A YYYY-MM-DD day (already checked as a calendar date) within the storable days; YYYY-MM-DD strings compare in time order. */
export const isStorableDay = (ymd: string): boolean => ymd >= EARLIEST_DAY && ymd <= LATEST_DAY;
