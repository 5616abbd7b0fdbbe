/**
 * How long a job holds its driver and vehicle, from the pickup time:
 *
 *   wait    60 min for an airport arrival (the driver waits up to an hour after landing, as the meeting
 *           instructions promise), 15 min otherwise (the lobby wait);
 *   drive   the route's drive time (120 min when it is not known);
 *   return  30 min plus a quarter of the drive: the way back towards the next pickup, shortened by the return
 *           fares drivers usually find at the far end.
 *
 * An operator can assign the driver to another job only after `ends_at`.
 */
export const ARRIVAL_WAIT_MIN = 60;
export const OTHER_WAIT_MIN = 15;
export const UNKNOWN_DRIVE_MIN = 120;

export function jobEndsAt(pickupAt: Date, driveMin: number | null, journeyType: 'arrival' | 'departure' | 'point_to_point'): Date {
  const drive = driveMin ?? UNKNOWN_DRIVE_MIN;
  const wait = journeyType === 'arrival' ? ARRIVAL_WAIT_MIN : OTHER_WAIT_MIN;
  const back = 30 + Math.ceil(drive / 4);
  return new Date(pickupAt.getTime() + (wait + drive + back) * 60_000);
}

/** A job is live for location sharing from this long before its pickup until it is completed. */
export const LIVE_BEFORE_PICKUP_MS = 60 * 60_000;
/** No-shows are reported after the pickup time and within this long of it (the marketplace's rule). */
export const NO_SHOW_WITHIN_MS = 24 * 60 * 60_000;
/** Driver positions forwarded to the marketplace at most this often per job. */
export const LOCATION_EVERY_MS = 30_000;
