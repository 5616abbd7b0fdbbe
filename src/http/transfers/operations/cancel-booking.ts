import { cancelBooking as cancel } from '../../../domain/bookings/cancel-booking';
import { etag } from './booking-changes';
import type { TransfersHandler } from './types';

export const cancelBooking: TransfersHandler<'cancelBooking'> = async (call, ctx) => {
  const body = await cancel(await ctx.tx(), { partnerId: ctx.partner.partnerId, env: ctx.env }, call.params.booking_ref, ctx.deps.clock.now());
  return { status: 200, body, headers: { ETag: etag(body.version) } };
};
