import { getBooking as get } from '../../../domain/bookings/get-booking';
import type { TransfersHandler } from './types';

export const getBooking: TransfersHandler<'getBooking'> = async (call, ctx) => ({
  status: 200,
  body: await get(ctx.sql, { partnerId: ctx.partner.partnerId, env: ctx.env }, call.params.booking_ref),
});
