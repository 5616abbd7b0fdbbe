import type { Database } from '../../data/database';
import { findKeyWithPartner } from '../../data/repositories/partners-repository';
import { runWrite } from '../../data/write';
import type { FxRates } from '../pricing/price-journey';
import { prefixedId } from '../../shared/ids';
import { formatLocalWithOffset, parseLocal, formatLocal } from '../kernel/sri-lanka-time';
import { createQuote, type QuoteInput } from '../quotes/create-quote';
import type { FleetCapacity } from '../fleet/capacity';
import { bookOffer } from '../bookings/book-offer';
import type { BookingRow } from '../../data/repositories/bookings-repository';
import type { RecentBookingFacts } from '../bookings/recent';
import { issueKey } from './api-keys';
import { listJobs } from '../../data/repositories/jobs-repository';
import { issueDriverToken } from '../drivers/driver-tokens';

/**
 * The embedded demo's first day (`npm start` on a fresh data dir; never with DATABASE_URL, never in production):
 * the demo partner's production bookings for the hours ahead, tonight and tomorrow, as its agents would have made
 * them two days before, so the board has jobs to dispatch, one of them can be driven at once (a driver may set off
 * 3 hours before the pickup) and one crosses midnight. Each is quoted and booked by the same use cases as over the
 * API, at the time it would have been booked; they become jobs as every production booking does.
 */
interface Trip {
  /** Minutes from now, rounded to five, or the next time of day (Sri Lanka) at least two hours ahead. */
  at: number | `${number}:${number}`;
  pickup: QuoteInput['pickup'];
  dropoff: QuoteInput['dropoff'];
  adults: number;
  luggage: number;
  vehicle: string;
  passenger: [string, string];
  flight?: string;
}

const TRIPS: Trip[] = [
  {
    at: 90,
    pickup: { name: 'Cinnamon Grand, Colombo' },
    dropoff: { iata: 'CMB' },
    adults: 2,
    luggage: 2,
    vehicle: 'standard_car',
    passenger: ['Emma', 'Schulz'],
  },
  {
    at: 150,
    pickup: { iata: 'CMB' },
    dropoff: { name: 'Jetwing Beach, Negombo' },
    adults: 2,
    luggage: 3,
    vehicle: 'standard_car',
    passenger: ['Hiro', 'Tanaka'],
    flight: 'UL 455',
  },
  { at: 240, pickup: { name: 'Kandy' }, dropoff: { name: 'Sigiriya' }, adults: 4, luggage: 4, vehicle: 'standard_van', passenger: ['Priya', 'Nair'] },
  { at: 360, pickup: { name: 'Galle Fort' }, dropoff: { name: 'Colombo' }, adults: 2, luggage: 2, vehicle: 'premium_car', passenger: ['James', 'Walker'] },
  {
    at: '23:50',
    pickup: { iata: 'CMB' },
    dropoff: { name: 'Galle' },
    adults: 2,
    luggage: 2,
    vehicle: 'standard_car',
    passenger: ['Sofia', 'Rossi'],
    flight: 'EK 650',
  },
  {
    at: '02:30',
    pickup: { iata: 'CMB' },
    dropoff: { name: 'Colombo' },
    adults: 1,
    luggage: 1,
    vehicle: 'standard_car',
    passenger: ['Lucas', 'Martin'],
    flight: 'QR 668',
  },
  { at: 1440 + 60, pickup: { name: 'Bentota' }, dropoff: { iata: 'CMB' }, adults: 3, luggage: 3, vehicle: 'suv', passenger: ['Olga', 'Ivanova'] },
  {
    at: 1440 + 180,
    pickup: { iata: 'CMB' },
    dropoff: { name: 'Kandy' },
    adults: 5,
    luggage: 5,
    vehicle: 'standard_van',
    passenger: ['Ahmed', 'Khan'],
    flight: 'EK 654',
  },
  { at: 1440 + 300, pickup: { name: 'Colombo' }, dropoff: { name: 'Bentota' }, adults: 2, luggage: 2, vehicle: 'standard_car', passenger: ['Anna', 'Novak'] },
  {
    at: 1440 + 480,
    pickup: { iata: 'CMB' },
    dropoff: { name: 'Negombo' },
    adults: 2,
    luggage: 2,
    vehicle: 'standard_car',
    passenger: ['Noah', 'Smith'],
    flight: 'UL 226',
  },
];

/** How long before its pickup each demo booking was made (the 24 hours' notice and then some). */
const BOOKED_BEFORE_MS = 48 * 3600_000;

export interface DemoDayDeps {
  db: Database;
  fx: FxRates;
  fleet: FleetCapacity;
  recent: RecentBookingFacts;
  emergencyPhone: string;
  publicBaseUrl: string;
}

/** Books the demo day for `partnerId` (its production key is made for it, and not shown). The bookings, by pickup. */
export async function seedDemoDay(deps: DemoDayDeps, partnerId: string, now: Date): Promise<BookingRow[]> {
  const booked: BookingRow[] = [];
  await deps.db.transaction(async (tx) => {
    const key = await issueKey(tx, partnerId, 'production');
    const who = (await findKeyWithPartner(tx, key.key_id))!;
    const partner = { partnerId, currency: who.currency, paused: false, vocabulary: new Map(Object.entries(who.vocabulary)), terms: who.terms };
    for (const [i, trip] of TRIPS.entries()) {
      const pickupAt = when(trip.at, now);
      const bookedAt = new Date(pickupAt.getTime() - BOOKED_BEFORE_MS);
      const passengers = { adults: trip.adults, luggage: trip.luggage };
      const input = { pickup: trip.pickup, dropoff: trip.dropoff, pickup_datetime: formatLocalWithOffset(pickupAt), passengers };
      const q = await createQuote(partner, 'production', input, {
        now: bookedAt,
        fx: deps.fx,
        freeClasses: (from, to, seats, except) => deps.fleet.freeClasses(tx, from, to, seats, except),
      });
      const offer = q.quote.offers?.find((o) => o.vehicle_code === trip.vehicle) ?? q.quote.offers?.[0];
      if (!offer) continue; // the fleet is taken for that window: the demo day is a little shorter
      await runWrite(tx, { ...q.write, guard: 'quote_in' });
      const plan = await bookOffer(
        {
          scope: { partnerId, env: 'production' },
          input: {
            quote_id: q.quote.quote_id,
            offer_id: offer.offer_id,
            partner_reference: `DEMO-${formatLocal(pickupAt).slice(0, 10)}-${i + 1}`,
            passenger: { first_name: trip.passenger[0], last_name: trip.passenger[1], phone: '+94 77 000 0000' },
            passengers,
            ...(trip.flight ? { flight_number: trip.flight } : {}),
          },
        },
        {
          now: new Date(bookedAt.getTime() + 60_000),
          paused: false,
          emergencyPhone: deps.emergencyPhone,
          publicBaseUrl: deps.publicBaseUrl,
          requestId: prefixedId('demo'),
          keyWaitMs: 1000,
          db: tx,
          recent: deps.recent,
          tx: async () => tx,
          serialise: () => {
            throw new Error('the demo day books without an Idempotency-Key');
          },
        },
      );
      if (plan.outcome.kind !== 'created' || !plan.write || !(await runWrite(tx, plan.write))) throw new Error(`demo day: trip ${i + 1} was not booked`);
      booked.push(plan.outcome.booking);
    }
  });
  return booked.sort((a, b) => a.pickupAt.getTime() - b.pickupAt.getTime());
}

export interface FirstRide {
  booking: BookingRow;
  driver: string;
  plate: string;
  /** The driver's token for the driver app (minted as the bootstrap operator). */
  token: string;
}

/**
 * The soonest demo booking that has a driver and can be driven now (its pickup within 3 hours), with a token for
 * that driver's app: what `npm start` prints, so the board, the driver app and the tracking page show a live ride.
 */
export async function firstRide(db: Database, booked: readonly BookingRow[], now: Date): Promise<FirstRide | null> {
  for (const b of booked) {
    if (b.pickupAt.getTime() - now.getTime() > 3 * 3600_000) break;
    const [job] = await listJobs(db, { sourceRef: b.bookingRef, limit: 1 });
    if (!job?.driver || !job.vehicle) continue;
    const { token } = await db.transaction((tx) => issueDriverToken(tx, job.driver!.driverId, { operatorId: 'bootstrap', role: 'admin' }, now));
    return { booking: b, driver: job.driver.name, plate: job.vehicle.plate, token };
  }
  return null;
}

/** A trip's pickup: minutes from now (rounded up to five), or the next such time of day at least two hours ahead. */
function when(at: Trip['at'], now: Date): Date {
  if (typeof at === 'number') return new Date(Math.ceil((now.getTime() + at * 60_000) / 300_000) * 300_000);
  const today = formatLocal(now).slice(0, 10);
  const first = parseLocal(`${today} ${at}:00`)!;
  const soonest = now.getTime() + 2 * 3600_000;
  return first.getTime() >= soonest ? first : new Date(first.getTime() + 24 * 3600_000);
}
