import { sql, type Sql } from '../database';
import type { Write } from '../write';

/** Partner bookings and marketplace orders are both jobs on the fleet's one schedule. */
export type JobSource = 'partner_booking' | 'marketplace_order';

export interface JobPlace {
  name: string;
  iata?: string;
  lat: number;
  lon: number;
}

export interface JobRecord {
  source: JobSource;
  sourceRef: string;
  env: 'sandbox' | 'production';
  vehicle: string;
  pickupAt: Date;
  durationMin: number | null;
  pickup: JobPlace;
  dropoff: JobPlace;
  adults: number;
  luggage: number;
  passenger: unknown;
  flightNumber: string | null;
}

const COLUMNS = 'source, source_ref, env, status, vehicle, pickup_at, duration_min, pickup, dropoff, adults, luggage, passenger, flight_number, created_at, updated_at';
const VALUES = `$1::text, $2::text, $3::text, 'scheduled', $4::text, $5::timestamptz, $6::int, $7::jsonb, $8::jsonb, $9::int, $10::int, $11::jsonb, $12::text, $13::timestamptz, $13::timestamptz`;

const params = (j: JobRecord, now: Date) => [
  j.source, j.sourceRef, j.env, j.vehicle, j.pickupAt, j.durationMin, JSON.stringify(j.pickup), JSON.stringify(j.dropoff), j.adults, j.luggage,
  JSON.stringify(j.passenger), j.flightNumber, now,
];

/** The job as part of a one-statement write; with `after`, only if that CTE produced a row (e.g. the booking). */
export function jobWrite(j: JobRecord, now: Date, after?: string): Write {
  return {
    ctes: [`job_in as (insert into jobs (${COLUMNS}) select ${VALUES}${after ? ` from ${after}` : ''} returning job_id)`],
    params: params(j, now),
  };
}

const insert = sql(`insert into jobs (${COLUMNS}) values (${VALUES})`);

export async function insertJob(db: Sql, j: JobRecord, now: Date): Promise<void> {
  await db.query(insert, params(j, now));
}

const cancel = sql(`update jobs set status = 'cancelled', updated_at = $3 where source = $1 and source_ref = $2`);

export async function cancelJob(db: Sql, source: JobSource, sourceRef: string, now: Date): Promise<void> {
  await db.query(cancel, [source, sourceRef, now]);
}

const reschedule = sql(`
  update jobs set vehicle = $3, pickup_at = $4, pickup = $5::jsonb, dropoff = $6::jsonb, adults = $7, luggage = $8, passenger = $9::jsonb,
    flight_number = $10, updated_at = $11
  where source = $1 and source_ref = $2`);

/** Applies changed order details to the job (the marketplace's change of an order). */
export async function updateJob(db: Sql, j: JobRecord, now: Date): Promise<void> {
  await db.query(reschedule, [
    j.source, j.sourceRef, j.vehicle, j.pickupAt, JSON.stringify(j.pickup), JSON.stringify(j.dropoff), j.adults, j.luggage, JSON.stringify(j.passenger), j.flightNumber, now,
  ]);
}
