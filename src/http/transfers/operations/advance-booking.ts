import { advanceSandboxBooking as advance } from '../../../domain/bookings/advance-booking';
import { etag } from './booking-changes';
import type { TransfersHandler } from './types';

/** Sandbox test helper: the booking moves as production dispatch would move it, with a fictitious driver. */
export const advanceSandboxBooking: TransfersHandler<'advanceSandboxBooking'> = async (call, ctx) => {
  const body = await advance(await ctx.tx(), { partnerId: ctx.partner.partnerId, env: ctx.env }, call.params.booking_ref, call.body.to, ctx.deps.clock.now());
  return { status: 200, body, headers: { ETag: etag(body.version) } };
};
