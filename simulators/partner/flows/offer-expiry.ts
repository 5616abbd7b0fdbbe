import { retrying } from '../client';
import { flowRecorder, type Check, type Flow } from './flow';
import { bookingRequest } from './journeys';
import { freshOffer } from './shared';

/** An offer past its 30 minutes cannot be booked; the sandbox helper makes one expire now. */
export const offerExpiryFlow: Flow = async (client, ctx) => {
  const flow = flowRecorder('offer-expiry', ctx);
  const api = retrying(client, ctx.retryPolicy);
  await flow.check(
    'offer.expired',
    'booking an offer expired with the sandbox helper answers 410 offer_expired with details.offer_id and expired_at',
    async (c: Check) => {
      const { quote, offer } = await freshOffer(api, c, ctx);
      const x = c.record(await api.expireOffer(offer.offer_id), 'expire (sandbox helper)');
      c.equal(x.status, 200, 'test helper status');
      const r = c.record(await api.createBooking(bookingRequest(ctx, quote, offer, 'expired'), { idempotencyKey: `${ctx.runId}-expired` }));
      c.equal(r.status, 410, 'status');
      c.equal(r.error?.code, 'offer_expired', 'error.code');
      c.equal(r.error?.details?.offer_id, offer.offer_id, 'details.offer_id');
      const expiredAt = r.error?.details?.expired_at;
      c.expect(typeof expiredAt === 'string' && !Number.isNaN(Date.parse(expiredAt)), `details.expired_at ${String(expiredAt)} is not a date-time`);
      c.equal(Date.parse(expiredAt), Date.parse(x.data!.expires_at), "details.expired_at (vs the helper's expires_at)");
      c.detail(`410 offer_expired, expired_at ${expiredAt}`);
    },
  );
  return flow.result();
};
