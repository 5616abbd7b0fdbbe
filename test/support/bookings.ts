import type { TestAppHandle } from './use-test-app';
import type { Call, Reply } from './http';

export const HOTEL = 'Cinnamon Grand, 77 Galle Road, Colombo 03';
let seq = 0;

export interface QuoteOptions {
  pickup?: object;
  dropoff?: object;
  pickupDatetime?: string;
  passengers?: { adults: number; children?: number; luggage?: number };
  extras?: Array<{ code: string; quantity: number }>;
}

/** POST /quotes for CMB → the hotel (or what `o` says), expecting 200. */
export async function quote(call: Call, key: string, o: QuoteOptions = {}): Promise<Reply> {
  const r = await call('POST', '/transfers/v1/quotes', {
    key,
    body: {
      pickup: o.pickup ?? { iata: 'CMB' },
      dropoff: o.dropoff ?? { name: HOTEL },
      pickup_datetime: o.pickupDatetime ?? '2026-12-01T09:30:00+05:30',
      passengers: o.passengers ?? { adults: 2, luggage: 2 },
      ...(o.extras ? { extras: o.extras } : {}),
    },
  });
  if (r.status !== 200) throw new Error(`quote ${r.status} ${r.text}`);
  return r;
}

export const PASSENGER = { first_name: 'Ayesha', last_name: 'Perera', email: 'ayesha@example.com', phone: '+94771234567' };

/** A booking request for a quote's first offer (two adults with two bags, an arriving flight) under `reference`. */
export const firstOfferBooking = (quote: { quote_id: string; offers: Array<{ offer_id: string }> }, reference: string) => ({
  quote_id: quote.quote_id,
  offer_id: quote.offers[0].offer_id,
  partner_reference: reference,
  passenger: PASSENGER,
  passengers: { adults: 2, luggage: 2 },
  flight_number: 'UL504',
});

/** Quotes, then books the offer of `vehicle` (a standard car unless said), expecting 201: the booking and its offer. */
export async function quoteAndBook(call: Call, key: string, o: QuoteOptions & { vehicle?: string; reference?: string } = {}) {
  const q = await quote(call, key, o);
  const offer = q.body.offers.find((x: { vehicle_code: string }) => x.vehicle_code === (o.vehicle ?? 'standard_car'));
  if (!offer) throw new Error(`no ${o.vehicle ?? 'standard_car'} offer: ${q.text}`);
  seq += 1;
  const b = await call('POST', '/transfers/v1/bookings', {
    key,
    body: {
      quote_id: q.body.quote_id,
      offer_id: offer.offer_id,
      partner_reference: o.reference ?? `TS-${process.pid}-${seq}`,
      passenger: { first_name: 'Ayesha', last_name: 'Perera', email: 'ayesha@example.com', phone: '+94771234567' },
      passengers: o.passengers ?? { adults: 2, luggage: 2 },
      flight_number: 'UL504',
    },
  });
  if (b.status !== 201) throw new Error(`book ${b.status} ${b.text}`);
  return { quote: q.body, offer, booking: b.body, etag: b.headers.get('etag')! };
}

/**
 * A production booking (the partner's live key) of `o.vehicle` (a standard car unless said) at `time` on `date`
 * (Sri Lanka), and its job on the fleet's schedule; children for the seats asked for.
 */
export async function productionJob(
  svc: Pick<TestAppHandle, 'call' | 'ops' | 'partner'>,
  date: string,
  time: string,
  pickup: object,
  dropoff: object,
  o: { vehicle?: string; extras?: Array<{ code: string; quantity: number }>; adults?: number } = {},
): Promise<Record<string, any> & { job_id: string; booking_ref: string }> {
  const passengers = { adults: o.adults ?? 2, luggage: 1, ...(o.extras ? { children: o.extras.length } : {}) };
  const q = await svc.call('POST', '/transfers/v1/quotes', {
    key: svc.partner.liveKey,
    body: { pickup, dropoff, pickup_datetime: `${date}T${time}:00+05:30`, passengers, ...(o.extras ? { extras: o.extras } : {}) },
  });
  const offer = q.body.offers?.find((x: { vehicle_code: string }) => x.vehicle_code === (o.vehicle ?? 'standard_car'));
  if (!offer) throw new Error(`no ${o.vehicle ?? 'standard_car'} offered: ${q.text}`);
  seq += 1;
  const b = await svc.call('POST', '/transfers/v1/bookings', {
    key: svc.partner.liveKey,
    body: {
      quote_id: q.body.quote_id,
      offer_id: offer.offer_id,
      partner_reference: `JOB-${process.pid}-${seq}`,
      passenger: { first_name: 'Lea', last_name: 'Roth', phone: '+41791234567' },
      passengers,
      flight_number: 'QR664',
    },
  });
  if (b.status !== 201) throw new Error(`book ${b.status} ${b.text}`);
  const [job] = await svc.ops.jobs({ booking_ref: b.body.booking_ref });
  return { ...job, job_id: job.job_id as string, booking_ref: b.body.booking_ref as string };
}
