import type { BookingInput } from '../../../domain/bookings/place-booking';
import { createBookingIdempotently } from '../idempotency';
import type { TransfersHandler, TransfersReply } from './types';

export const createBooking: TransfersHandler<'createBooking'> = async (call, ctx) =>
  (await createBookingIdempotently(ctx, call.body as BookingInput, call.headers['idempotency-key'] as string | undefined)) as TransfersReply<'createBooking'>;
