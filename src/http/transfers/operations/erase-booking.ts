import { forgetBooking } from '../../../domain/privacy/forget-booking';
import { etag } from './booking-changes';
import type { TransfersHandler } from './types';

export const eraseBooking: TransfersHandler<'eraseBooking'> = async (call, ctx) => {
  const scope = { partnerId: ctx.partner.partnerId, env: ctx.env };
  const { booking, subjects } = await forgetBooking(await ctx.tx(), scope, call.params.booking_ref, ctx.deps.clock.now());
  return {
    status: 200,
    body: booking,
    headers: { ETag: etag(booking.version) },
    // This instance seals nothing more with the destroyed keys.
    afterCommit: () => ctx.deps.dataKeys.erased(subjects),
  };
};
