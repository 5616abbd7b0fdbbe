import { getBooking as get } from '../../../domain/bookings/manage-booking';
import type { TransfersHandler, TransfersParams } from './types';

export const getBooking: TransfersHandler<'getBooking'> = async (c, ctx) => ({
  status: 200,
  body: await get(ctx.trx, { partnerId: ctx.partner.partnerId, env: ctx.env }, (c.request.params as TransfersParams<'getBooking'>).booking_ref),
});
