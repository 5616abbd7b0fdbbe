import type { Statement } from '../domain/bookings/statement';
import { CURRENCY_EXPONENT } from '../domain/kernel/money';
import type { Verbatim } from './contract-types';

/** The statement's lines as CSV (RFC 4180, CRLF), money with all its decimals; a cell a spreadsheet would run as a formula is quoted with a leading '. */
export function statementCsv(s: Statement): string {
  const exponent = CURRENCY_EXPONENT[s.currency];
  const header = ['booking_ref', 'partner_reference', 'pickup_datetime', 'status', 'price', 'cancellation_fee', 'amount_due', 'final'];
  const money = (n: number | null) => (n === null ? '' : n.toFixed(exponent));
  const rows = s.lines.map((l) =>
    [l.booking_ref, l.partner_reference, l.pickup_datetime, l.status, money(l.price), money(l.cancellation_fee), money(l.amount_due), String(l.final)].map(
      cell,
    ),
  );
  return [header, ...rows].map((r) => `${r.join(',')}\r\n`).join('');
}

function cell(v: string): string {
  const safe = /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** Whether the caller asked for CSV (Accept: text/csv). */
export function wantsCsv(headers: Record<string, string | string[] | undefined>): boolean {
  const accept = headers.accept;
  return /\btext\/csv\b/i.test(Array.isArray(accept) ? accept.join(',') : (accept ?? ''));
}

/** A statement answered as CSV. */
export const csvAnswer = (s: Statement): Verbatim => ({ status: 200, rawBody: statementCsv(s), contentType: 'text/csv; charset=utf-8' });
