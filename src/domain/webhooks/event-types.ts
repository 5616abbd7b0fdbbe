/** What partners can subscribe to; `ping` is sent only by an endpoint's test. */
export const BOOKING_EVENT_TYPES = [
  'booking.confirmed',
  'booking.amended',
  'booking.driver_assigned',
  'booking.driver_en_route',
  'booking.driver_arrived',
  'booking.passenger_on_board',
  'booking.flight_updated',
  'booking.cancelled',
  'booking.completed',
  'booking.no_show',
] as const;
export type BookingEventType = (typeof BOOKING_EVENT_TYPES)[number];
export type EventType = BookingEventType | 'ping';

const KNOWN: ReadonlySet<string> = new Set<string>([...BOOKING_EVENT_TYPES, 'ping']);

/** A stored event's type, checked (the column holds only these: see the migrations' check constraint). */
export function eventType(stored: string): EventType {
  if (!KNOWN.has(stored)) throw new Error(`unknown event type in the store: ${stored}`);
  return stored as EventType;
}
