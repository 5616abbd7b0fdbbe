import { statement } from '../../../domain/bookings/statement';
import { csvAnswer, wantsCsv } from '../../statement-csv';
import type { TransfersHandler } from './types';

/** GET /statements: what we bill for a range of pickup dates, as JSON or (Accept: text/csv) CSV. */
export const getStatement: TransfersHandler<'getStatement'> = async (call, ctx) => {
  const s = await statement(ctx.sql, { partnerId: ctx.partner.partnerId, env: ctx.env }, { from: call.query.from, to: call.query.to }, ctx.partner.currency);
  return wantsCsv(ctx.headers) ? csvAnswer(s) : { status: 200, body: s };
};
