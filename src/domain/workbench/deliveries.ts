import type { Sql } from '../../data/database';
import * as events from '../../data/repositories/webhook-events-repository';
import { eventType } from '../webhooks/event-types';
import type { Scope } from './request-log';

/** A partner's webhook deliveries (GET /transfers/v1/webhook_deliveries), newest first, with where each stands. */
export async function listDeliveries(
  db: Sql,
  scope: Scope,
  q: { limit: number; before?: string; endpointId?: string; bookingRef?: string; status?: 'pending' | 'delivered' | 'failed' },
) {
  const { bookingRef, ...filters } = q;
  // A booking's deliveries are found through its events (an index), not among every delivery of the partner.
  const eventIds = bookingRef ? (await events.bookingEvents(db, scope, bookingRef.toUpperCase())).map((e) => e.eventId) : undefined;
  const rows = eventIds?.length === 0 ? [] : await events.listDeliveries(db, scope, { ...filters, eventIds, limit: q.limit + 1 });
  const page = rows.slice(0, q.limit);
  const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);
  return {
    data: page.map((d) => ({
      delivery_id: d.id,
      endpoint_id: d.endpointId,
      event_id: d.eventId,
      type: eventType(d.type),
      booking_ref: d.bookingRef,
      sequence: d.sequence,
      status: d.status,
      attempts: d.attempts,
      last_status: d.lastStatus,
      last_error: d.lastError,
      next_attempt_at: d.status === 'pending' ? iso(d.nextAttemptAt) : null,
      delivered_at: iso(d.deliveredAt),
      created_at: iso(d.createdAt)!,
    })),
    next: rows.length > q.limit ? page[page.length - 1].id : null,
  };
}
