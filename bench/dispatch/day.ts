/**
 * Seeded Sri Lanka days for the dispatch benchmark: the jobs and drivers `planDay` is given, made the way our
 * traffic is. Most jobs meet or take a flight at Bandaranaike (CMB): arrivals from the airport to a hotel, departures
 * from a hotel to the airport, at the hours the flights come in banks (the night banks from the Gulf and India are
 * the largest); the rest are tour legs between hotels after breakfast (Negombo → Colombo, Colombo → Kandy, Galle →
 * Mirissa…). Every place is a row of the gazetteer (a hotel: its own point within 1.5 km of one), so travel comes
 * from the road model that prices quotes.
 *
 * Drivers are on four bases (Colombo, Negombo, Kandy, Galle), on a day shift (05:00–19:00) or a night shift
 * (17:00–07:00, so the night before still runs into the morning), each in their own vehicle of the fleet, some with
 * children's seats fitted. A day is a function of its size and seed only: the same call gives the same day.
 */
import type { PlanDriver, PlanJob } from '../../src/domain/dispatch/planner';
import { shiftsBetween, type Shifts } from '../../src/domain/drivers/shifts';
import { travelMin } from '../../src/domain/fleet/travel';
import { airportByIata, placeById } from '../../src/domain/geo/place-index';
import type { LatLon } from '../../src/domain/geo/types';
import type { FleetCode } from '../../src/domain/kernel/fleet';
import type { SeatCounts } from '../../src/domain/kernel/seats';
import { SRI_LANKA_OFFSET, sriLankaDay } from '../../src/domain/kernel/sri-lanka-time';
import { seededRandom } from '../../src/shared/random';

export interface Day {
  date: string;
  jobs: PlanJob[];
  drivers: PlanDriver[];
}

/** The benchmark's three days: jobs, drivers, seed. */
export const SIZES = [
  { jobs: 30, drivers: 8, seed: 30 },
  { jobs: 100, drivers: 25, seed: 100 },
  { jobs: 300, drivers: 60, seed: 300 },
] as const;

/** A Monday in the high season. */
export const DAY = '2026-12-07';

/** Where guests stay, by gazetteer id, weighted by how often we drive there. */
const HOTELS: Array<[string, number]> = [
  ['colombo', 26],
  ['mount-lavinia', 5],
  ['negombo', 22],
  ['waikkal', 4],
  ['kandy', 6],
  ['bentota', 5],
  ['beruwala', 2],
  ['hikkaduwa', 3],
  ['galle-fort', 3],
  ['unawatuna', 2],
  ['mirissa', 2],
  ['sigiriya', 3],
  ['dambulla', 1],
  ['habarana', 1],
  ['nuwara-eliya', 1],
  ['ella', 1],
];
/** Tour legs between hotels (both ways), weighted. */
const TOURS: Array<[string, string, number]> = [
  ['negombo', 'colombo', 5],
  ['colombo', 'mount-lavinia', 3],
  ['colombo', 'kandy', 3],
  ['colombo', 'bentota', 3],
  ['colombo', 'galle-fort', 2],
  ['kandy', 'sigiriya', 2],
  ['galle-fort', 'mirissa', 2],
  ['kandy', 'nuwara-eliya', 1],
  ['nuwara-eliya', 'ella', 1],
];
/** Flights at CMB by local hour, weighted: the night banks, the morning and the afternoon. */
const ARRIVAL_HOURS = [5, 6, 4, 4, 3, 1, 1, 1, 3, 4, 3, 2, 1, 2, 3, 3, 2, 1, 1, 1, 2, 3, 4, 4];
const DEPARTURE_HOURS = [2, 4, 5, 5, 2, 1, 1, 1, 3, 4, 3, 2, 2, 3, 3, 2, 2, 1, 1, 2, 3, 4, 3, 2];
const BASES: Array<[string, number]> = [
  ['colombo', 35],
  ['negombo', 35],
  ['kandy', 15],
  ['galle', 15],
];
const VEHICLES: Array<[FleetCode, number]> = [
  ['standard_car', 30],
  ['premium_car', 15],
  ['suv', 15],
  ['standard_van', 25],
  ['premium_van', 10],
  ['large_van', 5],
];
const EQUIPMENT: Array<[SeatCounts, number]> = [
  [{}, 45],
  [{ child_seat: 1, booster_seat: 1 }, 40],
  [{ infant_seat: 1, child_seat: 1 }, 15],
];
const DAY_SHIFT: Shifts = { weekly: [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, starts: '05:00', ends: '19:00' })), exceptions: [] };
const NIGHT_SHIFT: Shifts = { weekly: [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, starts: '17:00', ends: '07:00' })), exceptions: [] };
const SHIFTS: Array<[Shifts, number]> = [
  [DAY_SHIFT, 55],
  [NIGHT_SHIFT, 45],
];
/** Landing to kerb at an airport, as the database counts a job's drop-off (migrations: `dropoff_at`). */
const AIRPORT_MIN = 45;
/** Guests leave for a departure three hours before the flight. */
const CHECK_IN_MIN = 180;

function pick<T>(random: () => number, weighted: ReadonlyArray<readonly [T, number]>): T {
  let r = random() * weighted.reduce((s, [, w]) => s + w, 0);
  for (const [v, w] of weighted) if ((r -= w) < 0) return v;
  return weighted[weighted.length - 1][0];
}

function place(id: string): LatLon {
  const p = placeById(`place:${id}`);
  if (!p) throw new Error(`gazetteer has no place ${id}`);
  return { lat: p.lat, lon: p.lon };
}

/** A hotel in a place: its own point, up to 1.5 km from the gazetteer's, so that each job has its own routes to find. */
function hotel(random: () => number, id: string): LatLon {
  const p = place(id);
  const km = 1.5 * Math.sqrt(random());
  const bearing = 2 * Math.PI * random();
  const round5 = (x: number) => Math.round(x * 1e5) / 1e5;
  return {
    lat: round5(p.lat + (km / 111.32) * Math.cos(bearing)),
    lon: round5(p.lon + (km / (111.32 * Math.cos((p.lat * Math.PI) / 180))) * Math.sin(bearing)),
  };
}

/** A party and what it was sold: the class, the size, the bags and the children's seats. */
function party(random: () => number): Pick<PlanJob, 'fleetCode' | 'party' | 'luggage' | 'seats'> {
  const r = random();
  const size = r < 0.5 ? 1 + Math.floor(random() * 2) : r < 0.65 ? 3 : r < 0.8 ? 4 : r < 0.95 ? 5 + Math.floor(random() * 3) : 8 + Math.floor(random() * 2);
  const fleetCode: FleetCode =
    size <= 3
      ? pick(random, [
          ['small_car', 20],
          ['standard_car', 55],
          ['premium_car', 25],
        ])
      : size === 4
        ? random() < 0.8
          ? 'suv'
          : 'standard_van'
        : size <= 7
          ? random() < 0.75
            ? 'standard_van'
            : 'premium_van'
          : 'large_van';
  const maxBags = fleetCode === 'small_car' ? 2 : size;
  const child = random();
  const seats: SeatCounts = child < 0.08 ? { child_seat: 1 } : child < 0.13 ? { booster_seat: 1 } : child < 0.16 ? { infant_seat: 1 } : {};
  return { fleetCode, party: size, luggage: Math.min(maxBags, Math.max(1, size - 1 + Math.floor(random() * 2))), seats };
}

/** Minutes after local midnight → the instant, on `date`. */
const atMinute = (date: string, minute: number) => new Date(new Date(`${date}T00:00:00${SRI_LANKA_OFFSET}`).getTime() + minute * 60_000);

/** Draws one day: `jobs` jobs and `drivers` drivers, from `seed`. */
export function makeDay(size: { jobs: number; drivers: number; seed: number }, date = DAY): Day {
  const random = seededRandom(size.seed);
  const cmb = airportByIata('CMB')!;
  const airport = { lat: cmb.lat, lon: cmb.lon }; // the passenger terminal, where drivers meet guests
  const jobs: PlanJob[] = [];
  while (jobs.length < size.jobs) {
    const kind = random();
    let pickup: LatLon, dropoff: LatLon, minute: number;
    let wait = 0;
    if (kind < 0.45) {
      // An arrival: picked up as the flight lands (the job's time follows the flight), to the hotel.
      [pickup, dropoff] = [airport, hotel(random, pick(random, HOTELS))];
      minute = pickHour(random, ARRIVAL_HOURS) * 60 + 5 * Math.floor(random() * 12);
      wait = AIRPORT_MIN;
    } else if (kind < 0.85) {
      // A departure: from the hotel, at the airport three hours before the flight.
      [pickup, dropoff] = [hotel(random, pick(random, HOTELS)), airport];
      const flight = pickHour(random, DEPARTURE_HOURS) * 60 + 5 * Math.floor(random() * 12);
      minute = 5 * Math.round((flight - CHECK_IN_MIN - travelMin(pickup, dropoff)) / 5);
    } else {
      // A tour leg between hotels, after breakfast.
      const [a, b] = pick(
        random,
        TOURS.map(([x, y, w]) => [[x, y], w] as const),
      );
      [pickup, dropoff] = random() < 0.5 ? [hotel(random, a), hotel(random, b)] : [hotel(random, b), hotel(random, a)];
      minute = 7 * 60 + 15 * Math.floor(random() * 28);
    }
    if (minute < 0 || minute >= 24 * 60) continue;
    const pickupAt = atMinute(date, minute);
    jobs.push({
      jobId: `j${String(jobs.length + 1).padStart(3, '0')}`,
      pickupAt,
      dropoffAt: new Date(pickupAt.getTime() + (wait + travelMin(pickup, dropoff)) * 60_000),
      pickup,
      dropoff,
      ...party(random),
      current: null,
      fixed: false,
    });
  }
  // The fleet is dealt, not drawn: each kind of vehicle, base and shift in its share even on a small day.
  const window = sriLankaDay(date);
  const vehicles = dealt(random, VEHICLES, size.drivers);
  const equipment = dealt(random, EQUIPMENT, size.drivers);
  const bases = dealt(random, BASES, size.drivers);
  const hours = dealt(random, SHIFTS, size.drivers);
  const drivers: PlanDriver[] = Array.from({ length: size.drivers }, (_, i) => {
    const n = String(i + 1).padStart(2, '0');
    return {
      driverId: `d${n}`,
      base: place(bases[i]),
      shifts: shiftsBetween(hours[i], window.from, window.to),
      vehicle: { vehicleId: `v${n}`, fleetCode: vehicles[i], equipment: equipment[i] },
    };
  });
  return { date, jobs, drivers };
}

/** `n` values in the weights' shares (largest remainders), in a shuffled order. */
function dealt<T>(random: () => number, weighted: ReadonlyArray<readonly [T, number]>, n: number): T[] {
  const total = weighted.reduce((s, [, w]) => s + w, 0);
  const exact = weighted.map(([v, w]) => ({ v, x: (w * n) / total }));
  const counts = exact.map((e) => Math.floor(e.x));
  const byRemainder = exact.map((e, i) => i).sort((a, b) => exact[b].x - counts[b] - (exact[a].x - counts[a]) || a - b);
  const short = n - counts.reduce((s, c) => s + c, 0);
  for (let k = 0; k < short; k++) counts[byRemainder[k]]++;
  const out = exact.flatMap((e, i) => Array<T>(counts[i]).fill(e.v));
  for (let i = out.length - 1; i > 0; i--) {
    const k = Math.floor(random() * (i + 1));
    [out[i], out[k]] = [out[k], out[i]];
  }
  return out;
}

const pickHour = (random: () => number, weights: readonly number[]) =>
  pick(
    random,
    weights.map((w, h) => [h, w] as const),
  );
