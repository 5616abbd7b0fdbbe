import type { Check } from './check';
import type { WebhookAttempt } from './report-types';
import { answered2xx, describeDelivery, field, isBooking, pathOf } from './traffic';

/**
 * 7. Bookings made are followed up: read back (GET /bookings/{ref}), or told of by webhook: one of the booking's
 * events answered 2xx by one of the partner's endpoints (a delivery audited as outbox_<id>_a<attempt>).
 */
export const bookingsReadBack: Check = {
  id: 'bookings_read_back',
  title: 'Bookings are read back with GET /bookings/{booking_ref}, or their events received by a webhook endpoint',
  texts: {
    pass: 'All {n} new booking(s) were read back, or their events received by your webhook endpoint.',
    fail: '{n} booking(s) were never read back, nor any of their events received (2xx) by a webhook endpoint: read a booking, or receive its events, to learn its status and driver.',
    notSeen: 'No booking was made in the window.',
  },
  judge(rows, { pass, fail }, { attempts }) {
    // The first 2xx delivery of each booking's events.
    const received = new Map<string, WebhookAttempt>();
    for (const a of attempts) if (a.bookingRef && answered2xx(a) && !received.has(a.bookingRef)) received.set(a.bookingRef, a);
    rows.forEach((r, i) => {
      if (!(isBooking(r) && r.status === 201)) return;
      const ref = field(r.responseBody, 'booking_ref');
      if (!ref) return;
      const read = rows.slice(i + 1).find((x) => x.method === 'GET' && pathOf(x) === `/transfers/v1/bookings/${ref}`);
      const delivered = received.get(ref);
      // The evidence is whichever came first.
      if (read && (!delivered || read.at <= delivered.at)) pass(read, `booking ${ref} read back`);
      else if (delivered) pass(delivered, `booking ${ref} told of by webhook: ${describeDelivery(delivered)} answered ${delivered.status}`);
      else fail(r, `booking ${ref} was neither read back with GET /bookings/${ref} nor told of by a webhook answered 2xx`);
    });
  },
};
