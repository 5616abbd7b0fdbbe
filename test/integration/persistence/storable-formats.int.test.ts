import fc from 'fast-check';
import { fullFormats } from 'ajv-formats/dist/formats';
import { freshDatabase, type TestDatabase } from '../../support/test-app';
import { isDate, isDateTime } from '../../../src/http/formats';
import { parseLocal, sriLankaDay } from '../../../src/domain/kernel/sri-lanka-time';
import { jobEndsAt } from '../../../src/domain/kernel/job-window';
import { anyDate, anyDateTime, anyLocal } from '../../fuzz/contract-arbitraries';

/**
 * What the contracts' `date-time` and `date` formats (and the marketplace's local times) let through, the database
 * holds: as a Date (the way handlers store it) and as the text the client wrote (the way a query could cast it),
 * the same instant to the millisecond. Generated over every year 0000–9999, every offset, fractions of any length.
 */
describe('Dates and times the formats pass, in the database', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await freshDatabase();
  });
  afterAll(() => database.drop());

  /** The instant the database reads from `value` (a Date or text), in whole milliseconds since the epoch. */
  async function stored(value: Date | string): Promise<number> {
    const { rows } = await database.db.raw(`select floor(extract(epoch from ?::timestamptz) * 1000)::text as ms, ?::timestamptz as d`, [value, value]);
    const d = rows[0].d as Date;
    expect(Number(rows[0].ms)).toBe(d.getTime());
    return d.getTime();
  }

  it('when a date-time passes the format, then the database stores it, as a Date and as written, at the instant JavaScript reads', async () => {
    let passed = 0;
    await fc.assert(
      fc.asyncProperty(anyDateTime, async (s) => {
        if (!isDateTime(s)) return;
        passed += 1;
        // The format only narrows RFC 3339 (as ajv-formats reads it).
        expect({ s, rfc3339: (fullFormats['date-time'] as { validate: (v: string) => boolean }).validate(s) }).toEqual({ s, rfc3339: true });
        const ms = new Date(s).getTime();
        expect({ s, ms: Number.isNaN(ms) ? 'NaN' : 'ok' }).toEqual({ s, ms: 'ok' });
        expect({ s, stored: await stored(new Date(ms)) }).toEqual({ s, stored: ms });
        // As written, too, up to microseconds; past them PostgreSQL rounds where JavaScript truncates, which is why
        // every handler hands the database a Date, never the text.
        if ((/\.(\d+)/.exec(s)?.[1].length ?? 0) <= 6) expect({ s, stored: await stored(s) }).toEqual({ s, stored: ms });
        // And the instant comes back as a date-time the format passes (a response may carry it).
        expect({ s, back: isDateTime(new Date(ms).toISOString()) }).toEqual({ s, back: true });
      }),
      { numRuns: 1500 },
    );
    expect(passed).toBeGreaterThan(100);
  });

  it('when a time is stored in the years 0001 to 0099, then it reads back unchanged (PGlite’s own parser read them as 19xx and 20xx)', async () => {
    for (const s of [
      '0001-01-01T00:00:00.000Z',
      '0001-06-15T12:34:56.789Z',
      '0049-12-31T23:59:59.999Z',
      '0050-01-01T00:00:00.000Z',
      '0099-12-31T23:59:59.000Z',
      '0100-01-01T00:00:00.000Z',
    ]) {
      const { rows } = await database.db.raw('select ?::timestamptz as d', [s]);
      expect({ s, read: (rows[0].d as Date).toISOString() }).toEqual({ s, read: s });
    }
  });

  it('when a date passes the format, then its Sri Lankan day is stored from start to end', async () => {
    await fc.assert(
      fc.asyncProperty(anyDate, async (s) => {
        if (!isDate(s)) return;
        const { from, to } = sriLankaDay(s);
        expect({ s, from: await stored(from), to: await stored(to) }).toEqual({ s, from: from.getTime(), to: to.getTime() });
      }),
      { numRuns: 300 },
    );
  });

  it('when a marketplace local time is read, then it and the longest job window from it are stored', async () => {
    await fc.assert(
      fc.asyncProperty(anyLocal, async (s) => {
        const at = parseLocal(s);
        if (!at) return;
        const ends = jobEndsAt(at, 16 * 60, 'arrival'); // a longer drive than any in Sri Lanka
        expect({ s, at: await stored(at), ends: await stored(ends) }).toEqual({ s, at: at.getTime(), ends: ends.getTime() });
      }),
      { numRuns: 300 },
    );
  });

  it('when a date-time is beyond what the database holds, then the format refuses it', () => {
    for (const s of [
      '0000-01-01T00:00:00Z',
      '0001-01-01T00:00:00+00:01',
      '9999-12-31T23:59:59-00:01',
      '2016-12-31T23:59:60Z',
      '2026-12-01T09:30:00.1234567891Z',
      '9999-12-31T23:59:59.9999995Z',
      '2026-12-01T09:30:00+16:00',
      '0050-06-15 09:30:00Z',
    ]) {
      expect({ s, passes: isDateTime(s) }).toEqual({ s, passes: false });
    }
    for (const s of ['0000-12-31', '0001-01-01', '9999-12-31']) expect({ s, passes: isDate(s) }).toEqual({ s, passes: false });
    for (const s of ['0000-01-01 00:00:00', '0001-01-01 23:59:59', '9999-12-31 00:00:00']) expect({ s, read: parseLocal(s) }).toEqual({ s, read: null });
  });
});
