import { retrying, type Booking } from '../client';
import { flowRecorder, sameJson, type Check, type Flow } from './flow';
import { freshBooking } from './shared';

/** Reading a booking back, cancelling it, and cancelling it again. */
export const cancelBookingFlow: Flow = async (client, ctx) => {
  const flow = flowRecorder('cancel-booking', ctx);
  const api = retrying(client, ctx.retryPolicy);

  const created = await flow.check('booking.read', 'GET /bookings/{booking_ref} answers 200 with the booking as created', async (c: Check) => {
    const booking = await freshBooking(api, c, ctx, 'read');
    const r = c.record(await api.getBooking(booking.booking_ref));
    c.equal(r.status, 200, 'status');
    c.expect(sameJson(r.body, booking), 'the booking read back differs from the one created');
    c.detail(`read ${booking.booking_ref} back unchanged`);
    return booking;
  });

  const cancelled = await flow.check('booking.cancel', 'POST /bookings/{booking_ref}/cancel answers 200 with status cancelled', async (c: Check) => {
    if (!created) c.blockedBy('booking.read');
    const r = c.record(await api.cancelBooking(created.booking_ref));
    c.equal(r.status, 200, 'status');
    c.equal(r.data?.status, 'cancelled', 'status field');
    c.equal(r.data?.booking_ref, created.booking_ref, 'booking_ref');
    c.expect(r.data?.cancelled_at, 'cancelled_at is set');
    c.detail(`cancelled at ${r.data!.cancelled_at}`);
    return r.data as Booking;
  });

  await flow.check('booking.cancel_repeat', 'cancelling again answers the same 200 cancelled body (not an error)', async (c: Check) => {
    if (!cancelled) c.blockedBy('booking.cancel');
    const r = c.record(await api.cancelBooking(cancelled.booking_ref));
    c.equal(r.status, 200, 'status');
    c.equal(r.data?.status, 'cancelled', 'status field');
    c.expect(sameJson(r.body, cancelled), 'the repeated cancel answered a different body');
    const read = c.record(await api.getBooking(cancelled.booking_ref), 'read after cancel');
    c.equal(read.data?.status, 'cancelled', 'status read back');
  });

  return flow.result();
};
