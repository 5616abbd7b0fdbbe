import { sql, type Sql } from '../database';
import type { BookingRow, BookingStatus, Env } from './booking-record';

/** A booking as a statement reads it. */
export interface StatementRow {
  bookingRef: string;
  partnerReference: string;
  pickupDatetime: string;
  status: BookingStatus;
  amountMinor: number;
  currency: BookingRow['currency'];
  cancellationFeeMinor: number | null;
  noShowPercent: number;
}

const statementRows = sql(`
  select booking_ref as "bookingRef", partner_reference as "partnerReference", pickup_datetime as "pickupDatetime", status,
         amount_minor as "amountMinor", currency, cancellation_fee_minor as "cancellationFeeMinor", (terms->>'no_show_percent')::int as "noShowPercent"
  from bookings
  where partner_id = $1 and env = $2 and pickup_at >= $3 and pickup_at < $4
  order by pickup_at, booking_ref
  limit $5`);

/** A partner's bookings in one environment picked up in [from, to), by pickup time: at most `limit`. */
export async function findStatementRows(db: Sql, scope: { partnerId: string; env: Env }, from: Date, to: Date, limit: number): Promise<StatementRow[]> {
  return (await db.query<StatementRow>(statementRows, [scope.partnerId, scope.env, from, to, limit])).map((r) => ({
    ...r,
    amountMinor: Number(r.amountMinor),
    cancellationFeeMinor: r.cancellationFeeMinor === null ? null : Number(r.cancellationFeeMinor),
  }));
}
