import type { Sql } from '../../data/database';
import { countSubjectEntries } from '../../data/repositories/audit-reads';
import { subjectsMatching, type SubjectQuery } from '../../data/repositories/erasure-repository';
import { eraseBooking, eraseOrder, type Removed } from './erase';

export interface ErasureReceipt {
  erased_at: string;
  bookings: Array<{ booking_ref: string; partner_id: string; env: string }>;
  orders: Array<{ order_id: string }>;
  kept: Array<{ booking_ref: string | null; order_id: string | null; reason: 'ride_pending'; status: string }>;
  removed: Removed;
  audit_rows_sealed: number;
}

/**
 * An operator answers a traveller's erasure request (POST /ops/v1/privacy/erasures):
 * 1. find every booking (any partner) and marketplace order of the traveller, by e-mail, phone or booking;
 * 2. erase each whose ride is over (erase.ts), in the request's transaction; keep the others, saying why;
 * 3. answer the receipt: what was erased, and where, with how many audit rows can no longer be read.
 * The subjects erased go with it, so the instance seals nothing more with their keys.
 */
export async function eraseTraveller(tx: Sql, q: SubjectQuery, at: Date): Promise<{ receipt: ErasureReceipt; subjects: string[] }> {
  const found = await subjectsMatching(tx, q);
  const receipt: ErasureReceipt = { erased_at: at.toISOString(), bookings: [], orders: [], kept: [], removed: {}, audit_rows_sealed: 0 };
  const subjects: string[] = [];
  const add = (removed: Removed) => {
    for (const [table, n] of Object.entries(removed)) receipt.removed[table] = (receipt.removed[table] ?? 0) + n;
  };
  for (const ref of found.bookings) {
    const e = await eraseBooking(tx, ref, at);
    if (e.kind === 'ride_pending') receipt.kept.push({ booking_ref: e.bookingRef, order_id: null, reason: 'ride_pending', status: e.status });
    if (e.kind !== 'erased') continue;
    receipt.bookings.push({ booking_ref: e.bookingRef, partner_id: e.partnerId, env: e.env });
    subjects.push(...e.subjects);
    add(e.removed);
  }
  for (const id of found.orders) {
    const e = await eraseOrder(tx, id, at);
    if (e.kind === 'ride_pending') receipt.kept.push({ booking_ref: null, order_id: e.orderId, reason: 'ride_pending', status: e.state });
    if (e.kind !== 'erased') continue;
    receipt.orders.push({ order_id: e.orderId });
    subjects.push(...e.subjects);
    add(e.removed);
  }
  receipt.audit_rows_sealed = await countSubjectEntries(tx, subjects);
  return { receipt, subjects };
}
