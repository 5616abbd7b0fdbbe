import { routeBetween } from '../geo/route';
import type { LatLon } from '../geo/types';
import type { ShiftInstance } from '../drivers/shifts';

/**
 * Real travel between jobs, from the road model that prices quotes. A driver (and a vehicle) needs, between one
 * job's drop-off and the next job's pickup, the drive from the one place to the other plus a margin of 15 minutes
 * (traffic, a lobby wait, a break). A job's drop-off time is the database's (`dropoff_at`: the pickup, 45 minutes
 * from landing to kerb at an airport, and the drive), and its pickup follows its flight's estimated arrival.
 */
export const TRAVEL_MARGIN_MIN = 15;

/** What the travel rules need of a job. */
export interface Leg {
  jobId: string;
  pickupAt: Date;
  dropoffAt: Date;
  pickup: LatLon;
  dropoff: LatLon;
}

/** Routes already worked out (a plan asks for the same pairs of places many times); cleared when it grows large. */
const routes = new Map<string, { km: number; min: number }>();
function route(from: LatLon, to: LatLon): { km: number; min: number } {
  const key = `${from.lat},${from.lon};${to.lat},${to.lon}`;
  let r = routes.get(key);
  if (!r) {
    if (routes.size >= 50_000) routes.clear();
    const found = routeBetween(from, to);
    r = { km: found.distance_km, min: found.duration_min };
    routes.set(key, r);
  }
  return r;
}

export const travelMin = (from: LatLon, to: LatLon): number => route(from, to).min;
export const travelKm = (from: LatLon, to: LatLon): number => route(from, to).km;

/** Minutes missing between `first`'s drop-off and `next`'s pickup (0 when the drive and the margin fit). */
export function minutesShort(first: Leg, next: Leg): number {
  const available = (next.pickupAt.getTime() - first.dropoffAt.getTime()) / 60_000;
  return Math.max(0, Math.ceil(travelMin(first.dropoff, next.pickup) + TRAVEL_MARGIN_MIN - available));
}

/** Whether two jobs hold the same time (the database's exclusion constraints refuse those, and name them). */
export const overlap = (a: Leg, b: Leg): boolean => a.pickupAt < b.dropoffAt && b.pickupAt < a.dropoffAt;

/**
 * The first neighbour (the job just before `job`, then the one just after, among `others`, which do not overlap it)
 * that leaves too little time to travel, with how many minutes are missing.
 */
export function travelConflict(job: Leg, others: readonly Leg[]): { jobId: string; minutesShort: number } | undefined {
  const apart = others.filter((o) => o.jobId !== job.jobId && !overlap(o, job));
  const before = apart.filter((o) => o.pickupAt <= job.pickupAt).sort((a, b) => b.pickupAt.getTime() - a.pickupAt.getTime())[0];
  const after = apart.filter((o) => o.pickupAt > job.pickupAt).sort((a, b) => a.pickupAt.getTime() - b.pickupAt.getTime())[0];
  const shortBefore = before ? minutesShort(before, job) : 0;
  if (shortBefore > 0) return { jobId: before.jobId, minutesShort: shortBefore };
  const shortAfter = after ? minutesShort(job, after) : 0;
  if (shortAfter > 0) return { jobId: after.jobId, minutesShort: shortAfter };
  return undefined;
}

/**
 * A driver's day inside one shift: leaving the base for the first pickup (drive time before it) and back at the base
 * after the last drop-off. Without a base, the day is the first pickup to the last drop-off.
 */
export function dayOf(legs: readonly Leg[], base: LatLon | null): { leaves: Date; returns: Date } {
  const sorted = [...legs].sort((a, b) => a.pickupAt.getTime() - b.pickupAt.getTime());
  const first = sorted[0];
  const last = sorted.reduce((a, b) => (b.dropoffAt > a.dropoffAt ? b : a));
  const out = base ? travelMin(base, first.pickup) : 0;
  const back = base ? travelMin(last.dropoff, base) : 0;
  return { leaves: new Date(first.pickupAt.getTime() - out * 60_000), returns: new Date(last.dropoffAt.getTime() + back * 60_000) };
}

/** Whether the day fits the shift. */
export const insideShift = (day: { leaves: Date; returns: Date }, shift: ShiftInstance): boolean => day.leaves >= shift.starts && day.returns <= shift.ends;
