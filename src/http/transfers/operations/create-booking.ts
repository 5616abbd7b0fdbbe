import { placeBooking, type BookingInput } from '../../../domain/bookings/place-booking';
import { withIdempotency } from '../idempotency';
import type { TransfersHandler, TransfersReply } from './types';

export const createBooking: TransfersHandler<'createBooking'> = async (c, ctx) => {
  const input = c.request.requestBody as BookingInput;
  const key = c.request.headers['idempotency-key'] as string | undefined;
  const result = await withIdempotency(ctx, 'createBooking', key, input, async (trx) => {
    const { created, booking } = await placeBooking(trx, { partnerId: ctx.partner.partnerId, env: ctx.env }, input, {
      now: ctx.deps.clock.now(),
      requestId: ctx.requestId,
      emergencyPhone: ctx.deps.config.emergencyPhone,
    });
    return { status: created ? 201 : 200, body: booking, pickupAt: new Date(booking.pickup_datetime), bookingRef: booking.booking_ref };
  });
  return result as TransfersReply<'createBooking'>;
};
