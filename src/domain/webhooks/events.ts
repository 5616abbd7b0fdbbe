import type { Sql } from '../../data/database';
import type { BookingRow } from '../../data/repositories/bookings-repository';
import * as repo from '../../data/repositories/webhook-events-repository';
import { listPartnerEndpoints } from '../../data/repositories/webhook-endpoints-repository';
import type { components } from '../../generated/transfers-v1';
import { invalidRequest, notFound } from '../../shared/errors';
import { eventId as newEventId } from '../../shared/ids';
import { MAX_ATTEMPTS } from './delivery';
import { requireEndpoint } from './endpoints';
import { admitManualDelivery } from './limits';
import type { EventType } from './event-types';

/**
 * Events: what happened to a partner's bookings, written in the transaction of the change that causes it, with a
 * delivery (an outbox message) to each of the partner's endpoints in that environment subscribed to its type.
 * The payload is built once, by newEvent, and kept as sent: `data.booking` is the booking record exactly as
 * GET /bookings/{booking_ref} returns it, and `sequence` numbers a booking's events 1, 2, 3… in the order they
 * happened (the change's own UPDATE of the booking row counts it, so two changes of one booking never share one).
 * Which event a change of a booking writes is the booking's to say (src/domain/bookings/booking-events.ts).
 */

type Scope = { partnerId: string; env: 'sandbox' | 'production' };

/** Events are listed and redelivered for 30 days (as Stripe's are); the retention pass then purges them. */
export const EVENT_RETENTION_DAYS = 30;

/** The body of every delivery (and of every item of GET /events). */
export interface WebhookEvent {
  id: string;
  type: EventType;
  created_at: string;
  env: 'sandbox' | 'production';
  /** The booking's own count of its events; null for `ping`. */
  sequence: number | null;
  data: { booking: components['schemas']['Booking']; changes?: string[] } | { endpoint_id: string };
}

/** An event to store: of a booking (its scope, sequence and record) or, for `ping`, of an endpoint. */
export function newEvent(scope: Scope, type: EventType, now: Date, booking: BookingRow | null, data: WebhookEvent['data']): repo.NewEvent {
  const id = newEventId();
  const payload: WebhookEvent = { id, type, created_at: now.toISOString(), env: scope.env, sequence: booking?.eventSeq ?? null, data };
  return {
    eventId: id,
    partnerId: scope.partnerId,
    env: scope.env,
    type,
    bookingRef: booking?.bookingRef ?? null,
    sequence: booking?.eventSeq ?? null,
    payload: JSON.stringify(payload),
    createdAt: now,
  };
}

/** A `ping` to one endpoint (POST /webhook_endpoints/{id}/test), within the endpoint's limits (limits.ts). */
export async function sendPing(tx: Sql, scope: Scope, endpointId: string, now: Date): Promise<WebhookEvent> {
  await requireEndpoint(tx, scope, endpointId, { enabled: true });
  await admitManualDelivery(tx, endpointId, now);
  const e = newEvent(scope, 'ping', now, null, { endpoint_id: endpointId });
  await repo.insertEvent(tx, e, MAX_ATTEMPTS, endpointId);
  return JSON.parse(e.payload) as WebhookEvent;
}

/**
 * A partner's events in one environment, oldest first, after the event `after` (its id, as listed here), of one
 * type if asked. An event is listed once every transaction that began writing before it has ended (normally at
 * once), so an event can never appear later before one already listed: resuming from the last id read skips none.
 */
export async function listEvents(
  db: Sql,
  scope: Scope,
  q: { after?: string; type?: EventType; limit: number },
): Promise<{ data: WebhookEvent[]; has_more: boolean }> {
  let after: { tx: string; id: string } | undefined;
  if (q.after) {
    after = await repo.eventPosition(db, q.after, scope.partnerId, scope.env);
    if (!after) {
      const message = `names no event on this account in ${scope.env}, or one older than the ${EVENT_RETENTION_DAYS} days events are kept (list without after to start again)`;
      throw invalidRequest(`The request is invalid: after ${message}.`, [{ field: 'after', message }]);
    }
  }
  const rows = await repo.listEvents(db, { ...scope, type: q.type, after, limit: q.limit + 1 });
  return { data: rows.slice(0, q.limit).map((r) => JSON.parse(r.payload) as WebhookEvent), has_more: rows.length > q.limit };
}

/**
 * Delivers a stored event again, with the same `webhook-id` (receivers deduplicate on it): to the endpoint named,
 * or to every enabled endpoint subscribed to its type; each within its limits (limits.ts), or none is queued.
 */
export async function redeliverEvent(tx: Sql, scope: Scope, eventId: string, endpointId: string | undefined, now: Date) {
  const event = await repo.findEvent(tx, eventId, scope.partnerId, scope.env, true);
  if (!event) throw notFound(`No event ${eventId} on this account in ${scope.env} (events are kept ${EVENT_RETENTION_DAYS} days).`, { event_id: eventId });
  if (endpointId) await requireEndpoint(tx, scope, endpointId, { enabled: true });
  const targets = endpointId
    ? [endpointId]
    : (await listPartnerEndpoints(tx, scope.partnerId, scope.env))
        .filter((e) => e.status === 'enabled' && e.events.includes(event.type))
        .map((e) => e.endpointId);
  for (const target of targets.sort()) await admitManualDelivery(tx, target, now);
  const deliveries = await repo.enqueueDeliveries(tx, eventId, MAX_ATTEMPTS, now, endpointId);
  return { event_id: eventId, deliveries: deliveries.map((d) => ({ delivery_id: d.id, endpoint_id: d.endpointId })) };
}
