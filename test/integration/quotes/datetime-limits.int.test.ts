import { ManualClock } from '../../../src/shared/clock';
import { useTestApp } from '../../support/use-test-app';

/**
 * Date-times RFC 3339 allows but the database cannot hold as written: every contract's `date-time` format refuses
 * them (400 invalid_request naming the field), on every route that takes one, before anything is stored or
 * queried. Each of these used to answer 500.
 */
const NOW = '2026-11-21T08:00:00Z';
const journey = (pickup_datetime: string) => ({ pickup: { iata: 'CMB' }, dropoff: { name: 'Kandy' }, pickup_datetime, passengers: { adults: 2 } });

const RANGE = 'must fall in the years 0001 to 9999, in UTC and as written (0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z)';
const LEAP = 'is a leap second (second 60), which cannot be stored: send 23:59:59 or the next minute';
const FRACTION = 'has more than 9 fractional digits: send at most nanoseconds (e.g. 09:30:00.123456789)';
const OFFSET = 'has a UTC offset beyond ±15:59 (Sri Lankan time is +05:30)';
const RFC3339 = 'must be an RFC 3339 date-time with a UTC offset (e.g. 2026-12-01T09:30:00+05:30)';

/** Values the format used to pass that PostgreSQL refuses, or JavaScript cannot read or write back for it. */
const refused: Array<[string, string]> = [
  ['0000-01-01T00:00:00Z', RANGE], // PostgreSQL has no year 0
  ['0000-12-31T23:59:59-01:00', RANGE], // year 0001 in UTC, but PostgreSQL cannot read the year as written
  ['0001-01-01T00:00:00+01:00', RANGE], // year 0 in UTC
  ['9999-12-31T23:59:59-05:00', RANGE], // year 10000 in UTC: JavaScript writes +010000-…
  ['2016-12-31T23:59:60Z', LEAP], // a real leap second: no JavaScript Date
  ['2026-12-31T23:59:60Z', LEAP],
  ['2027-01-01T05:29:60+05:30', LEAP],
  ['2026-12-01T09:30:00.1234567890Z', FRACTION], // beyond nanoseconds
  ['9999-12-31T23:59:59.9999995Z', RANGE], // PostgreSQL rounds to microseconds: year 10000
  [`2026-12-01T09:30:00.${'1'.repeat(40)}Z`, FRACTION],
  ['2026-12-01T09:30:00+16:00', OFFSET], // PostgreSQL: time zone displacement out of range
  ['2026-12-01T09:30:00-23:59', OFFSET],
  ['2026-12-01T09:30:00+05', RFC3339], // JavaScript cannot read an offset of hours alone
  ['2026-12-01\t09:30:00Z', RFC3339], // only T, t or a space between date and time
  ['2026-12-01\u300009:30:00Z', RFC3339],
  ['0050-06-15 12:34:56Z', 'must have T between the date and the time: with a space, the years 0001 to 0099 are read as 19xx or 20xx'], // Date reads 1950
];

/** At the edges of what we hold: accepted by the format (the quote is then declined or refused on its merits). */
const held = [
  '0001-01-01T00:00:00Z',
  '0001-01-01T05:29:59+05:29',
  '9999-12-31T23:59:59.999999Z',
  '9999-12-31T18:29:59-05:30',
  '2026-12-01T09:30:00.123456+15:59',
  '2026-12-01t09:30:00z',
  '2026-12-01 09:30:00-00:00',
  '2026-12-01T09:30:00+0530',
  '2026-12-01T09:30:00.123456789Z',
];

describe('Date-times the database cannot hold', () => {
  const svc = useTestApp({ clock: new ManualClock(NOW), partner: 'Date Limits Travel' });

  const quotes = async () => Number((await svc.app.db('quotes').count({ n: '*' }).first())!.n);

  it('when a quote asks for a pickup in year 0000, then 400 invalid_request names pickup_datetime and nothing is stored', async () => {
    const before = await quotes();
    const r = await svc.call('POST', '/transfers/v1/quotes', { key: svc.partner.testKey, body: journey('0000-01-01T00:00:00Z') });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'invalid_request', details: { fields: [{ field: 'pickup_datetime', message: RANGE }] } });
    expect(r.body.error.message).toBe(`The request is invalid: pickup_datetime ${RANGE}.`);
    expect(await quotes()).toBe(before);
  });

  it.each(refused)('when a quote’s pickup_datetime is %j, then 400 says why and nothing is stored', async (value, message) => {
    const before = await quotes();
    const r = await svc.call('POST', '/transfers/v1/quotes', { key: svc.partner.testKey, body: journey(value) });
    expect({ status: r.status, fields: r.body.error?.details?.fields }).toEqual({ status: 400, fields: [{ field: 'pickup_datetime', message }] });
    expect(await quotes()).toBe(before);
  });

  it.each(held)('when a quote’s pickup_datetime is %j, then the format lets it through to the quoting rules', async (value) => {
    const r = await svc.call('POST', '/transfers/v1/quotes', { key: svc.partner.testKey, body: journey(value) });
    expect(r.status).toBeLessThan(500);
    if (r.status === 400) expect(r.body.error.details.fields).toEqual([{ field: 'pickup_datetime', message: 'must be within 366 days' }]);
    else expect(r.status).toBe(200);
  });

  it('when a quote is for a pickup in the years 0001 to 0099, then it is stored and read back at that instant, not in 19xx or 20xx', async () => {
    for (const value of ['0001-06-15T12:34:56.789Z', '0050-06-15t12:34:56+05:30', '0099-12-31T23:59:59Z']) {
      const r = await svc.call('POST', '/transfers/v1/quotes', { key: svc.partner.testKey, body: journey(value) });
      expect(r.body.declined.reason).toBe('short_notice');
      const row = await svc.app.db('quotes').where({ quoteId: r.body.quote_id }).first();
      expect({ value, pickupAt: (row.pickupAt as Date).toISOString() }).toEqual({ value, pickupAt: new Date(value.replace('t', 'T')).toISOString() });
    }
  });

  it('when the audit log is searched from or to such a time, then 400 names the parameter', async () => {
    for (const [value, message] of refused) {
      for (const name of ['from', 'to']) {
        const r = await svc.ops.call('GET', `/audit?${name}=${encodeURIComponent(value)}`);
        expect({ value, name, status: r.status, fields: r.body.error?.details?.fields }).toEqual({
          value,
          name,
          status: 400,
          fields: [{ field: name, message }],
        });
      }
    }
    for (const value of held) expect((await svc.ops.call('GET', `/audit?from=${encodeURIComponent(value)}&limit=1`)).status).toBe(200);
  });

  it('when the integration report is asked since such a time, then 400 names since', async () => {
    for (const [value, message] of refused) {
      const r = await svc.call('GET', `/transfers/v1/test_helpers/integration_report?since=${encodeURIComponent(value)}`, { key: svc.partner.testKey });
      expect({ value, status: r.status, fields: r.body.error?.details?.fields }).toEqual({ value, status: 400, fields: [{ field: 'since', message }] });
    }
    // At the far end the window is empty, and its `from` is a date-time the response contract accepts.
    const far = await svc.call('GET', `/transfers/v1/test_helpers/integration_report?since=${encodeURIComponent('9999-12-31T18:29:59-05:30')}`, {
      key: svc.partner.testKey,
    });
    expect(far.status).toBe(200);
    expect(far.body.window.from).toBe('9999-12-31T23:59:59.000Z');
  });

  it('when jobs are listed for a day the database cannot hold in Sri Lankan time, then 400 names date', async () => {
    // The Sri Lankan day 0001-01-01 begins at 0000-12-31T18:30:00Z.
    for (const day of ['0000-01-01', '0001-01-01', '9999-12-31']) {
      const r = await svc.ops.call('GET', `/jobs?date=${day}`);
      expect({ day, status: r.status, fields: r.body.error?.details?.fields }).toEqual({
        day,
        status: 400,
        fields: [{ field: 'date', message: 'must be a day from 0001-01-02 to 9999-12-30' }],
      });
    }
    const impossible = await svc.ops.call('GET', '/jobs?date=2026-02-29');
    expect(impossible.body.error.details.fields).toEqual([{ field: 'date', message: 'must be an RFC 3339 date, YYYY-MM-DD (e.g. 2026-12-01)' }]);
    for (const day of ['0001-01-02', '9999-12-30']) expect((await svc.ops.call('GET', `/jobs?date=${day}`)).status).toBe(200);
  });
});
