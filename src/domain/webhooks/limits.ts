import type { Sql } from '../../data/database';
import { pendingDeliveries, takeToken } from '../../data/repositories/webhook-delivery-repository';
import { MAX_PENDING_PER_ENDPOINT } from '../../data/repositories/webhook-events-repository';
import { AppError } from '../../shared/errors';

/**
 * What a partner may queue by hand for one endpoint (test pings and redeliveries), held in the database so it holds
 * across instances:
 *
 * - at most MANUAL_PER_ENDPOINT.burst at once, refilled at `perMinute` a minute (a token bucket per endpoint);
 * - nothing while MAX_PENDING_PER_ENDPOINT deliveries are waiting for the endpoint.
 *
 * Over either: `rate_limited` (429), nothing queued. The events of bookings are never refused: see
 * MAX_PENDING_PER_ENDPOINT for what becomes of them at the cap.
 */
export const MANUAL_PER_ENDPOINT = { burst: 5, perMinute: 5 } as const;
export { MAX_PENDING_PER_ENDPOINT };

/** How long a refusal at the pending cap asks the partner to wait: its deliveries drain or fail meanwhile. */
const PENDING_RETRY_SECONDS = 60;

/** In the caller's transaction: admits one delivery queued by hand to `endpointId`, or throws `rate_limited`. */
export async function admitManualDelivery(tx: Sql, endpointId: string, now: Date): Promise<void> {
  const waiting = await pendingDeliveries(tx, endpointId, MAX_PENDING_PER_ENDPOINT);
  if (waiting >= MAX_PENDING_PER_ENDPOINT) {
    throw new AppError(
      'rate_limited',
      `Webhook endpoint ${endpointId} has ${MAX_PENDING_PER_ENDPOINT} deliveries waiting (the limit); nothing more is queued for it by hand until they drain. Retry after ${PENDING_RETRY_SECONDS} s.`,
      { scope: 'endpoint_pending', endpoint_id: endpointId, pending: waiting, limit: MAX_PENDING_PER_ENDPOINT, retry_after_seconds: PENDING_RETRY_SECONDS },
      {
        retryAfterSeconds: PENDING_RETRY_SECONDS,
        rateLimit: { policy: 'endpoint_pending', quota: MAX_PENDING_PER_ENDPOINT, windowSeconds: PENDING_RETRY_SECONDS },
      },
    );
  }
  const { burst, perMinute } = MANUAL_PER_ENDPOINT;
  const took = await takeToken(tx, `webhook_manual:${endpointId}`, { perSecond: perMinute / 60, burst }, now);
  if ('waitSeconds' in took) {
    const seconds = Math.max(1, Math.ceil(took.waitSeconds));
    throw new AppError(
      'rate_limited',
      `Too many test pings and redeliveries for webhook endpoint ${endpointId}: the limit is ${perMinute} a minute with bursts of ${burst}; retry after ${seconds} s.`,
      { scope: 'endpoint_manual', endpoint_id: endpointId, per_minute: perMinute, burst, retry_after_seconds: seconds },
      { retryAfterSeconds: seconds, rateLimit: { policy: 'endpoint_manual', quota: burst, windowSeconds: Math.ceil((burst / perMinute) * 60) } },
    );
  }
}
