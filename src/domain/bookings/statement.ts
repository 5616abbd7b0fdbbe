import type { Sql } from '../../data/database';
import { findStatementRows, type StatementRow } from '../../data/repositories/statements-repository';
import { invalidRequest } from '../../shared/errors';
import { sriLankaDay } from '../kernel/sri-lanka-time';
import { toDecimal, type Currency } from '../kernel/money';
import { noShowFee } from '../terms/cancellation-policy';
import type { Scope } from './booking-decision';

/** A statement covers at most this many days of pickups. */
export const MAX_STATEMENT_DAYS = 92;
/** …and at most this many bookings: a larger account asks for shorter ranges. */
export const MAX_STATEMENT_LINES = 20_000;

/**
 * What we bill a partner in one environment for the bookings picked up on the days from `from` to `to` (Sri Lanka
 * dates, both included): each booking's line says what it owes — a completed booking its price, a no-show its
 * no-show fee, a cancelled booking its cancellation fee; a booking still open its price, not final. Totals are exact
 * sums in minor units: the total of the lines, and of the final ones.
 */
export async function statement(db: Sql, scope: Scope, range: { from: string; to: string }, currency: Currency) {
  const { from, to } = checkedRange(range);
  const rows = await findStatementRows(db, scope, from, to, MAX_STATEMENT_LINES + 1);
  if (rows.length > MAX_STATEMENT_LINES) {
    throw invalidRequest(`The request is invalid: more than ${MAX_STATEMENT_LINES} bookings in the range; ask for a shorter one.`, [
      { field: 'to', message: `the range holds more than ${MAX_STATEMENT_LINES} bookings` },
    ]);
  }
  const lines = rows.map(owed);
  const sum = (ls: typeof lines) => ls.reduce((n, l) => n + l.dueMinor, 0);
  return {
    currency,
    from: range.from,
    to: range.to,
    lines: lines.map((l) => l.line),
    totals: {
      amount_due: toDecimal(sum(lines), currency),
      final_amount_due: toDecimal(sum(lines.filter((l) => l.line.final)), currency),
      bookings: lines.length,
    },
  };
}

function owed(r: StatementRow) {
  const dueMinor =
    r.status === 'no_show'
      ? noShowFee({ no_show_percent: r.noShowPercent }, r.amountMinor)
      : r.status === 'cancelled'
        ? (r.cancellationFeeMinor ?? 0)
        : r.amountMinor;
  return {
    dueMinor,
    line: {
      booking_ref: r.bookingRef,
      partner_reference: r.partnerReference,
      pickup_datetime: r.pickupDatetime,
      status: r.status,
      price: toDecimal(r.amountMinor, r.currency),
      cancellation_fee: r.status === 'cancelled' ? toDecimal(r.cancellationFeeMinor ?? 0, r.currency) : null,
      amount_due: toDecimal(dueMinor, r.currency),
      final: r.status === 'completed' || r.status === 'no_show' || r.status === 'cancelled',
    },
  };
}

function checkedRange(range: { from: string; to: string }): { from: Date; to: Date } {
  const from = sriLankaDay(range.from).from;
  const to = sriLankaDay(range.to).to;
  const days = Math.round((to.getTime() - from.getTime()) / 86_400_000);
  if (days < 1) throw invalidRequest('The request is invalid: to is before from.', [{ field: 'to', message: 'must not be before from' }]);
  if (days > MAX_STATEMENT_DAYS) {
    throw invalidRequest(`The request is invalid: a statement covers at most ${MAX_STATEMENT_DAYS} days.`, [
      { field: 'to', message: `must be at most ${MAX_STATEMENT_DAYS - 1} days after from` },
    ]);
  }
  return { from, to };
}

export type Statement = Awaited<ReturnType<typeof statement>>;
