import type { BookingStatus } from '../../data/repositories/bookings-repository';

/**
 * A booking's states (BookingStatus, as partners read them) that dispatch and the ride move it to:
 *
 *   confirmed → driver_assigned → driver_en_route → driver_arrived → passenger_on_board → completed
 *   confirmed … driver_arrived → no_show
 *
 * (A booking is `cancelled` by its partner: src/domain/bookings/cancel-booking.ts.)
 */
export type DispatchState = 'driver_assigned' | 'driver_en_route' | 'driver_arrived' | 'passenger_on_board' | 'completed' | 'no_show';

/** The ride is under way: the driver's position is shown. */
export const RIDE_UNDER_WAY: ReadonlySet<BookingStatus> = new Set(['driver_en_route', 'driver_arrived', 'passenger_on_board']);
