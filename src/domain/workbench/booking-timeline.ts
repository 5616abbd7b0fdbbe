import type { Sql } from '../../data/database';
import * as log from '../../data/repositories/partner-log-repository';
import * as events from '../../data/repositories/webhook-events-repository';
import { requireBooking } from '../bookings/get-booking';
import { eventType, type EventType } from '../webhooks/event-types';
import { logScope, type Scope } from './request-log';

/**
 * A booking's timeline (GET /transfers/v1/bookings/{booking_ref}/timeline): the partner's requests that touched it,
 * its events, and each attempt to deliver them, in time order. Read from the audit log (requests, attempts) and the
 * event store, within the request log's 30 days.
 */
// A booking's first 500 requests and 1,000 deliveries (a booking rarely sees a tenth of either).
const MAX_REQUESTS = 500;
const MAX_DELIVERIES = 1000;

type At = { at: string };
export type TimelineEntry =
  | (At & { kind: 'request'; request_id: string; method: string; path: string; status: number | null; error_code: string | null })
  | (At & { kind: 'event'; event_id: string; type: EventType; sequence: number })
  | (At & {
      kind: 'delivery';
      event_id: string;
      type: EventType;
      sequence: number;
      delivery_id: string;
      endpoint_id: string;
      attempt: number;
      status: number | null;
      error: string | null;
    });

const KIND_ORDER = { request: 0, event: 1, delivery: 2 } as const;

export async function bookingTimeline(db: Sql, scope: Scope, bookingRef: string, now: Date): Promise<{ booking_ref: string; data: TimelineEntry[] }> {
  const booking = await requireBooking(db, scope, bookingRef);
  const ref = booking.bookingRef;
  const window = logScope(scope, now);

  const [requests, bookingEvents] = await Promise.all([log.bookingRequests(db, window, ref, MAX_REQUESTS), events.bookingEvents(db, scope, ref)]);
  const deliveries = bookingEvents.length
    ? await events.listDeliveries(db, scope, { limit: MAX_DELIVERIES, eventIds: bookingEvents.map((e) => e.eventId) })
    : [];
  const attempts = await log.deliveryAttempts(db, window, deliveries);

  const eventOf = new Map(bookingEvents.map((e) => [e.eventId, e]));
  const deliveryOf = new Map(deliveries.map((d) => [d.id, d]));
  const entries: TimelineEntry[] = [
    ...requests.map((r) => ({
      at: new Date(r.at).toISOString(),
      kind: 'request' as const,
      request_id: r.requestId,
      method: r.method,
      path: r.path,
      status: r.status,
      error_code: r.errorCode,
    })),
    ...bookingEvents.map((e) => ({
      at: new Date(e.createdAt).toISOString(),
      kind: 'event' as const,
      event_id: e.eventId,
      type: eventType(e.type),
      sequence: e.sequence,
    })),
    ...attempts.flatMap((a) => {
      const d = deliveryOf.get(/^outbox_(\d+)_a/.exec(a.requestId)?.[1] ?? '');
      const e = d && eventOf.get(d.eventId);
      if (!d || !e) return [];
      return [
        {
          at: new Date(a.at).toISOString(),
          kind: 'delivery' as const,
          event_id: e.eventId,
          type: eventType(e.type),
          sequence: e.sequence,
          delivery_id: d.id,
          endpoint_id: d.endpointId,
          attempt: a.attempt ?? 0,
          status: a.status,
          error: a.error,
        },
      ];
    }),
  ];
  // Time order; at one instant, a request before the event it caused, an event before its delivery.
  entries.sort((a, b) => a.at.localeCompare(b.at) || KIND_ORDER[a.kind] - KIND_ORDER[b.kind]);
  return { booking_ref: ref, data: entries };
}
