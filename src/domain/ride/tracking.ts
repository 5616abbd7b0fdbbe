import type { Sql } from '../../data/database';
import { findBookingByTrackingToken, placeText, type BookingRow } from '../../data/repositories/bookings-repository';
import { haversineKm } from '../geo/geo-math';
import { RIDE_UNDER_WAY } from '../kernel/booking-states';

/** The live view runs from this long before the pickup … */
export const TRACKING_FROM_MS = 2 * 3600_000;
/** … until this long after the ride ends (completed, no-show or cancelled); then the link is gone. */
export const TRACKING_AFTER_END_MS = 3600_000;
/** ETA: the straight line times a road factor, at an average speed for Sri Lankan roads. */
const ROAD_FACTOR = 1.3;
const AVERAGE_KMH = 35;

export interface Tracking {
  bookingRef: string;
  status: BookingRow['status'];
  phase: 'upcoming' | 'live';
  pickupName: string;
  dropoffName: string;
  pickup: { lat: number; lon: number };
  dropoff: { lat: number; lon: number };
  pickupAt: Date;
  pickupEstimatedAt: Date | null;
  trackingStartsAt: Date;
  flight: { number: string; status: string; estimatedArrival: Date | null } | null;
  driver: { firstName: string; vehicle: string; colour: string | null; plate: string } | null;
  position: { lat: number; lon: number; at: Date } | null;
  /** Minutes to the pickup while the driver comes, to the drop-off once on board (null without a position). */
  etaMinutes: number | null;
  emergencyPhone: string;
}

export type TrackingOutcome = { kind: 'unknown' } | { kind: 'gone'; bookingRef: string; emergencyPhone: string } | { kind: 'page'; tracking: Tracking };

/**
 * What a passenger's tracking link shows now. Unknown token: nothing (a plain 404, telling nothing of bookings).
 * More than 2 hours before the pickup (the estimated one, when a flight moved it): the pickup and when tracking
 * starts. From then until an hour after the ride ends: the live view, with the driver's first name, the vehicle and
 * plate, the last position while the ride is under way, and an ETA to the pickup. After that, or once the
 * traveller's details are erased: gone (410).
 */
export async function trackRide(db: Sql, token: string, now: Date): Promise<TrackingOutcome> {
  const b = await findBookingByTrackingToken(db, token);
  if (!b) return { kind: 'unknown' };
  const ended = b.completedAt ?? b.noShowAt ?? b.cancelledAt;
  // Gone an hour after the ride ends, and at once when the traveller's details are erased.
  if (b.erasedAt || (ended && now.getTime() > ended.getTime() + TRACKING_AFTER_END_MS))
    return { kind: 'gone', bookingRef: b.bookingRef, emergencyPhone: b.emergencyPhone };

  const pickup = b.pickupEstimatedAt ?? b.pickupAt;
  const trackingStartsAt = new Date(pickup.getTime() - TRACKING_FROM_MS);
  // A driver may set off up to 3 hours ahead: the page goes live with them.
  const live = now >= trackingStartsAt || ended !== null || RIDE_UNDER_WAY.has(b.status);
  const p = live && RIDE_UNDER_WAY.has(b.status) ? b.driverLocation : null;
  const position = p ? { lat: p.lat, lon: p.lon, at: new Date(p.at) } : null;
  // The ETA: to the pickup while the driver comes, to the drop-off once the passenger is on board.
  const onBoard = b.status === 'passenger_on_board';
  const towards = position && (onBoard ? b.dropoff : b.status === 'driver_en_route' || b.status === 'driver_assigned' ? b.pickup : null);
  return {
    kind: 'page',
    tracking: {
      bookingRef: b.bookingRef,
      status: b.status,
      phase: live ? 'live' : 'upcoming',
      pickupName: placeText(b.pickup),
      dropoffName: placeText(b.dropoff),
      pickup: { lat: b.pickup.lat, lon: b.pickup.lon },
      dropoff: { lat: b.dropoff.lat, lon: b.dropoff.lon },
      pickupAt: b.pickupAt,
      pickupEstimatedAt: b.pickupEstimatedAt,
      trackingStartsAt,
      flight: b.flight
        ? { number: b.flight.number, status: b.flight.status, estimatedArrival: b.flight.estimated_arrival ? new Date(b.flight.estimated_arrival) : null }
        : null,
      driver:
        live && b.driver
          ? {
              firstName: b.driver.name.split(/\s+/)[0],
              // The snapshot's vehicle reads "Toyota Axio (White)": the colour is shown on its own.
              vehicle: b.driver.colour ? b.driver.vehicle.replace(/\s*\([^)]*\)$/, '') : b.driver.vehicle,
              colour: b.driver.colour ?? null,
              plate: b.driver.plate,
            }
          : null,
      position,
      etaMinutes: towards ? Math.max(1, Math.round(((haversineKm(position, towards) * ROAD_FACTOR) / AVERAGE_KMH) * 60)) : null,
      emergencyPhone: b.emergencyPhone,
    },
  };
}
