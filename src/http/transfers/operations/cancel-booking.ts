import { cancelBooking as cancel } from '../../../domain/bookings/manage-booking';
import type { TransfersHandler, TransfersParams } from './types';

export const cancelBooking: TransfersHandler<'cancelBooking'> = async (c, ctx) => ({
  status: 200,
  body: await cancel(
    ctx.trx,
    { partnerId: ctx.partner.partnerId, env: ctx.env },
    (c.request.params as TransfersParams<'cancelBooking'>).booking_ref,
    ctx.deps.clock.now(),
  ),
});
