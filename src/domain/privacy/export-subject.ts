import type { Sql } from '../../data/database';
import { subjectEntries } from '../../data/repositories/audit-reads';
import { bookingsByRef, jobTracks, ordersById, subjectsMatching, type SubjectQuery } from '../../data/repositories/erasure-repository';
import { bookingView } from '../bookings/booking-view';
import type { DataKeys } from '../kernel/data-keys';
import { openSealed } from '../kernel/seal-personal';
import { bookingSubjects, orderSubjects } from './erase';

/** At most this many audit entries in one export (the oldest first); a traveller with more is a support case. */
export const EXPORT_AUDIT_ENTRIES = 5_000;

/**
 * Everything we hold on one traveller, for a subject access request (GET /ops/v1/privacy/subjects): their bookings
 * on every partner (as the partner reads them, with whose they are), their marketplace orders as sent, every audit
 * entry holding their details (opened with their keys; `[erased]` where erased), and the ride's positions still kept.
 */
export async function exportSubject(db: Sql, keys: DataKeys, q: SubjectQuery) {
  const found = await subjectsMatching(db, q);
  const bookings = await bookingsByRef(db, found.bookings);
  const orders = await ordersById(db, found.orders);
  const subjects = [...bookings.flatMap((b) => bookingSubjects(b)), ...orders.flatMap((o) => orderSubjects(o))];
  const entries = await subjectEntries(db, subjects, EXPORT_AUDIT_ENTRIES);
  const positions = await jobTracks(db, [...bookings.flatMap((b) => b.jobIds), ...orders.flatMap((o) => o.jobIds)]);
  return {
    bookings: bookings.map((b) => ({ partner_id: b.partnerId, ...bookingView(b) })),
    orders: orders.map((o) => ({ order_id: o.orderId, state: o.state, erased_at: o.erasedAt ? new Date(o.erasedAt).toISOString() : null, order: o.order })),
    audit_entries: await openSealed(keys, db, entries),
    positions: positions.map((p) => ({ job_id: p.jobId, at: new Date(p.at).toISOString(), lat: p.lat, lon: p.lon })),
  };
}
