import type { Check } from './check';
import { field, isBooking, pathOf } from './traffic';

/** 7. Bookings made are read back (GET /bookings/{ref}). */
export const bookingsReadBack: Check = {
  id: 'bookings_read_back',
  title: 'Bookings are read back with GET /bookings/{booking_ref}',
  texts: {
    pass: 'All {n} new booking(s) were read back.',
    fail: '{n} booking(s) were never read back: read a booking to learn its status and driver.',
    notSeen: 'No booking was made in the window.',
  },
  judge(rows, { pass, fail }) {
    rows.forEach((r, i) => {
      if (!(isBooking(r) && r.status === 201)) return;
      const ref = field(r.responseBody, 'booking_ref');
      if (!ref) return;
      const read = rows.slice(i + 1).find((x) => x.method === 'GET' && pathOf(x) === `/transfers/v1/bookings/${ref}`);
      if (read) pass(read, `booking ${ref} read back`);
      else fail(r, `booking ${ref} was not read back with GET /bookings/${ref}`);
    });
  },
};
