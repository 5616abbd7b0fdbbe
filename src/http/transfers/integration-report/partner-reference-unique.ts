import type { Check } from './check';
import type { TrafficRequest } from './report-types';
import { field, header, isBooking } from './traffic';

/**
 * 8. A partner_reference names one booking. The service never makes a second booking under a reference already
 * used: it answers 200 with the existing booking, `Partner-Reference-Reused: true`, and `Partner-Reference-Mismatch:
 * offer_id` when that booking is for another offer. A client that sent a reference for another offer took that for a
 * new booking, or had two of its own bookings share one reference. The same request again (a retry, a replay) is
 * the same booking, and fine.
 */
export const partnerReferenceUnique: Check = {
  id: 'partner_reference_unique',
  title: 'Each partner_reference names one booking: never reused for another offer',
  texts: {
    pass: 'All {n} booking(s) were made under a partner_reference of their own.',
    fail: '{n} booking request(s) reused a partner_reference for another offer: no booking was made, the existing one came back (Partner-Reference-Reused, Partner-Reference-Mismatch: offer_id).',
    notSeen: 'No booking was made in the window.',
  },
  judge(rows, { pass, fail }) {
    // The request that made the booking under each reference, when it is in the window.
    const madeBy = new Map<string, TrafficRequest>();
    for (const r of rows) {
      if (!isBooking(r)) continue;
      const reference = field(r.requestBody, 'partner_reference');
      if (reference === undefined) continue;
      const booking = field(r.responseBody, 'booking_ref');
      if (r.status === 201) {
        madeBy.set(reference, r);
        pass(r, `partner_reference ${reference} made booking ${booking}`);
        continue;
      }
      if (r.status !== 200 || header(r.responseHeaders, 'partner-reference-reused') !== 'true') continue;
      const mismatch = (header(r.responseHeaders, 'partner-reference-mismatch') ?? '').split(',').map((s) => s.trim());
      if (!mismatch.includes('offer_id')) continue;
      const first = madeBy.get(reference);
      fail(
        r,
        `partner_reference ${reference} sent for offer ${field(r.requestBody, 'offer_id')}, but it names booking ${booking} of offer ` +
          `${field(r.responseBody, 'offer_id')}${first ? ` (made by ${first.requestId})` : ''}: no new booking was made`,
      );
    }
  },
};
