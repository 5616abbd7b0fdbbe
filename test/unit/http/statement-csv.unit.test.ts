import { statementCsv, wantsCsv } from '../../../src/http/statement-csv';
import { ifMatchVersion } from '../../../src/http/transfers/operations/booking-changes';

describe('a statement as CSV', () => {
  const line = {
    booking_ref: 'GM32DFCW',
    pickup_datetime: '2026-12-01T09:30:00+05:30',
    status: 'cancelled' as const,
    price: 35.3,
    cancellation_fee: 17.65,
    amount_due: 17.65,
    final: true,
  };
  const statement = (partnerReference: string) => ({
    currency: 'USD' as const,
    from: '2026-12-01',
    to: '2026-12-01',
    lines: [{ ...line, partner_reference: partnerReference }],
    totals: { amount_due: 17.65, final_amount_due: 17.65, bookings: 1 },
  });

  it('when written, then each line has all its decimals, an empty fee when there is none, CRLF line ends', () => {
    expect(statementCsv(statement('AGY-1'))).toBe(
      'booking_ref,partner_reference,pickup_datetime,status,price,cancellation_fee,amount_due,final\r\nGM32DFCW,AGY-1,2026-12-01T09:30:00+05:30,cancelled,35.30,17.65,17.65,true\r\n',
    );
  });

  it("when a reference holds a comma, a quote or a line break, then it is quoted (RFC 4180); one a spreadsheet would run as a formula gets a leading '", () => {
    expect(statementCsv(statement('A,"B"'))).toContain('GM32DFCW,"A,""B""",2026');
    expect(statementCsv(statement('a\nb'))).toContain('"a\nb"');
    expect(statementCsv(statement('=HYPERLINK("x")'))).toContain(`"'=HYPERLINK(""x"")"`);
    expect(statementCsv(statement('+1'))).toContain(",'+1,");
  });

  it('asks for CSV only when Accept names text/csv', () => {
    expect(wantsCsv({ accept: 'text/csv' })).toBe(true);
    expect(wantsCsv({ accept: 'application/json, text/csv;q=0.5' })).toBe(true);
    expect(wantsCsv({ accept: 'application/json' })).toBe(false);
    expect(wantsCsv({})).toBe(false);
  });
});

describe('If-Match', () => {
  it('names a version as an ETag, bare, or weak; absent is undefined; anything else names none (NaN)', () => {
    expect(ifMatchVersion('"3"')).toBe(3);
    expect(ifMatchVersion('3')).toBe(3);
    expect(ifMatchVersion('W/"12"')).toBe(12);
    expect(ifMatchVersion(undefined)).toBeUndefined();
    for (const v of ['*', '"1", "2"', '', 'x', '"99999999999"']) expect(ifMatchVersion(v)).toBeNaN();
  });
});
