import { getBooking as get } from '../../../domain/bookings/get-booking';
import { etag } from './booking-changes';
import type { TransfersHandler } from './types';

export const getBooking: TransfersHandler<'getBooking'> = async (call, ctx) => {
  const body = await get(ctx.sql, { partnerId: ctx.partner.partnerId, env: ctx.env }, call.params.booking_ref);
  return { status: 200, body, headers: { ETag: etag(body.version) } };
};
