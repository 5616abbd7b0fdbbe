import type { Sql } from '../../data/database';
import type { BookingRow, BookingStatus } from '../../data/repositories/bookings-repository';
import { insertEvent, type NewEvent } from '../../data/repositories/webhook-events-repository';
import { MAX_ATTEMPTS } from '../webhooks/delivery';
import type { BookingEventType } from '../webhooks/event-types';
import { newEvent } from '../webhooks/events';
import { bookingView } from './booking-view';

/**
 * A booking's events: which one each change writes, carrying the booking as GET /bookings/{booking_ref} returns it,
 * in the transaction of the change (the webhooks deliver them: src/domain/webhooks/events.ts).
 */

const TYPE_OF: Record<BookingStatus, BookingEventType> = {
  confirmed: 'booking.confirmed',
  driver_assigned: 'booking.driver_assigned',
  driver_en_route: 'booking.driver_en_route',
  driver_arrived: 'booking.driver_arrived',
  passenger_on_board: 'booking.passenger_on_board',
  cancelled: 'booking.cancelled',
  completed: 'booking.completed',
  no_show: 'booking.no_show',
};

/** The event of the state a booking has just entered (its status names the type). */
export const bookingEvent = (b: BookingRow, now: Date): NewEvent => newEvent(b, TYPE_OF[b.status], now, b, { booking: bookingView(b) });

/** The event of a new booking with its delivery policy, to commit with the booking (see bookings-repository). */
export const newBookingEvent = (b: BookingRow, now: Date) => ({ record: bookingEvent(b, now), maxAttempts: MAX_ATTEMPTS });

/** In the caller's transaction: `booking.amended`, naming the fields of the booking that changed, and its deliveries. */
export async function recordAmendment(tx: Sql, b: BookingRow, changes: string[], now: Date): Promise<void> {
  await insertEvent(tx, newEvent(b, 'booking.amended', now, b, { booking: bookingView(b), changes }), MAX_ATTEMPTS);
}

/** In the caller's transaction: `booking.flight_updated` (the booking carries the flight as it now stands). */
export async function recordFlightUpdate(tx: Sql, b: BookingRow, now: Date): Promise<void> {
  await insertEvent(tx, newEvent(b, 'booking.flight_updated', now, b, { booking: bookingView(b) }), MAX_ATTEMPTS);
}

/** In the caller's transaction: the event of the booking's new state, and its deliveries. */
export async function recordBookingEvent(tx: Sql, b: BookingRow, now: Date): Promise<void> {
  await insertEvent(tx, bookingEvent(b, now), MAX_ATTEMPTS);
}
