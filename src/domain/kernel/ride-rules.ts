import type { DispatchState } from './booking-states';

/**
 * The ride's rules, in one place for the driver app, the operator API, the partner's booking and the tracking page.
 *
 *   driver_assigned → en_route → arrived → on_board → completed
 *                                arrived → no_show   (once the free waiting time has passed)
 *
 * - `en_route` from 3 hours before the pickup (the estimated pickup, when a flight moved it).
 * - Free waiting: 60 minutes at an airport, 30 elsewhere, counted from the later of the arrival and the pickup
 *   (for an airport arrival, the flight's landing: the estimated pickup).
 * - A job is live (its driver's position is shared) while the ride is under way, and from an hour before the
 *   pickup for an assigned job.
 * - `completed` (final, and billed) only when it is plausible: not before the pickup, and not before half the
 *   route's drive has passed since the passengers got in (or since the pickup, when no one said they did): the same
 *   rule for the driver's app and the operator.
 */
export type RideState = 'driver_assigned' | 'en_route' | 'arrived' | 'on_board' | 'completed' | 'no_show';
export type RideStep = Exclude<RideState, 'driver_assigned'>;

export const AIRPORT_FREE_WAIT_MIN = 60;
export const OTHER_FREE_WAIT_MIN = 30;
/** `en_route` is accepted from this long before the pickup. */
export const EN_ROUTE_FROM_MS = 3 * 3600_000;
/** The board flags a job whose driver is not on the way this long before the pickup. */
export const LATE_IF_NOT_EN_ROUTE_MS = 30 * 60_000;

const NEXT: Record<RideState, RideStep[]> = {
  driver_assigned: ['en_route'],
  en_route: ['arrived'],
  arrived: ['on_board', 'no_show'],
  on_board: ['completed'],
  completed: [],
  no_show: [],
};

/** The free waiting time at a pickup: an airport's (it has an IATA code) or anywhere else's. */
export const freeWaitingMinutes = (pickup: { iata?: string }): number => (pickup.iata ? AIRPORT_FREE_WAIT_MIN : OTHER_FREE_WAIT_MIN);

/** The ride's states in the partner's words. */
export const BOOKING_STATE_OF = {
  en_route: 'driver_en_route',
  arrived: 'driver_arrived',
  on_board: 'passenger_on_board',
  completed: 'completed',
  no_show: 'no_show',
} as const satisfies Record<RideStep, DispatchState>;

export interface RideFacts {
  state: RideState;
  pickupAt: Date;
  /** The pickup moved by a late (or early) flight; null when not moved. */
  pickupEstimatedAt: Date | null;
  pickup: { iata?: string };
  arrivedAt: Date | null;
  onBoardAt: Date | null;
  /** The route's drive, in minutes (null when unknown). */
  driveMin: number | null;
}

/** When the job is to be picked up: the estimated pickup when a flight moved it. */
export const effectivePickup = (r: Pick<RideFacts, 'pickupAt' | 'pickupEstimatedAt'>): Date => r.pickupEstimatedAt ?? r.pickupAt;

/** From when a no-show may be reported: free waiting after the later of the arrival and the pickup. */
export function noShowFrom(r: RideFacts): Date | null {
  if (!r.arrivedAt) return null;
  const from = Math.max(r.arrivedAt.getTime(), effectivePickup(r).getTime());
  return new Date(from + freeWaitingMinutes(r.pickup) * 60_000);
}

/** From when the ride may be completed: the pickup, and half the drive after the passengers got in. */
export function completionFrom(r: Pick<RideFacts, 'pickupAt' | 'pickupEstimatedAt' | 'onBoardAt' | 'driveMin'>): Date {
  const pickup = effectivePickup(r).getTime();
  const boarded = Math.max(r.onBoardAt?.getTime() ?? pickup, pickup);
  return new Date(Math.max(pickup, boarded + Math.ceil((r.driveMin ?? 0) / 2) * 60_000));
}

export type RideRefusal =
  | { reason: 'invalid_transition'; allowed: RideStep[] }
  | { reason: 'too_early'; from: Date }
  | { reason: 'waiting_time'; from: Date }
  | { reason: 'too_soon'; from: Date };

/** Whether the ride may move to `to` now: undefined when it may, else why not. */
export function judgeStep(r: RideFacts, to: RideStep, now: Date): RideRefusal | undefined {
  if (!NEXT[r.state].includes(to)) return { reason: 'invalid_transition', allowed: NEXT[r.state] };
  if (to === 'en_route') {
    const from = new Date(effectivePickup(r).getTime() - EN_ROUTE_FROM_MS);
    if (now < from) return { reason: 'too_early', from };
  }
  if (to === 'no_show') {
    const from = noShowFrom(r)!;
    if (now < from) return { reason: 'waiting_time', from };
  }
  if (to === 'completed') {
    const from = completionFrom(r);
    if (now < from) return { reason: 'too_soon', from };
  }
  return undefined;
}

/** The states the driver may move the ride to now (the app's button). */
export const nextSteps = (r: RideFacts, now: Date): RideStep[] => NEXT[r.state].filter((s) => !judgeStep(r, s, now));
