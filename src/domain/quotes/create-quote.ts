import { newSubjectKeys } from '../kernel/data-keys';
import { FLEET } from '../kernel/fleet';
import type { FxRates } from '../pricing/price-journey';
import { decideJourney, OFFER_TTL_MS, type Decision } from './decide';
import { toDecimal, type Currency } from '../kernel/money';
import type { PlaceInput, ResolvedPlace } from '../geo/types';
import { quoteWrite, type OfferRecord, type QuoteRecord } from '../../data/repositories/quotes-repository';
import { jobEndsAt } from '../kernel/job-window';
import type { OfferForBooking } from '../../data/repositories/bookings-repository';
import { hex32 } from '../../shared/ids';
import { invalidRequest } from '../../shared/errors';
import { checkedExtras, extrasTotal, extraView, priceExtras } from '../pricing/extras';
import { seatCounts, type ExtraRequest, type SeatCounts } from '../kernel/seats';
import { adjustedFare, cancellationPolicy } from '../terms/cancellation-policy';
import type { SaleTerms } from '../terms/terms';

const MAX_ADVANCE_MS = 366 * 24 * 60 * 60 * 1000;

export interface QuoteInput {
  pickup: PlaceInput;
  dropoff: PlaceInput;
  pickup_datetime: string;
  passengers: { adults: number; children?: number; luggage?: number };
  vehicle_codes?: string[];
  extras?: ExtraRequest[];
}

export interface QuotingPartner {
  partnerId: string;
  currency: Currency;
  paused: boolean;
  /** The partner's vehicle codes → our fleet codes. */
  vocabulary: ReadonlyMap<string, string>;
  /** The terms in force: they price the quote (contract rate) and set its offers' cancellation policy. */
  terms: SaleTerms;
}

export interface QuoteDeps {
  now: Date;
  fx: FxRates;
  freeClasses?: FreeClasses;
}

const wirePlace = (p: ResolvedPlace) => ({ name: p.name, ...(p.iata ? { iata: p.iata } : {}), lat: p.lat, lon: p.lon });

/** lat and lon travel together; the contract cannot say so in OpenAPI 3.0, so it is checked here. */
function assertPlaces(input: Pick<QuoteInput, 'pickup' | 'dropoff'>): void {
  const fields = (['pickup', 'dropoff'] as const).flatMap((end) => {
    const p = input[end];
    if ((p.lat === undefined) === (p.lon === undefined)) {
      if (p.name !== undefined || p.iata !== undefined || p.lat !== undefined) return [];
      return [{ field: end, message: 'must have name, iata, or lat and lon' }];
    }
    return [{ field: `${end}.${p.lat === undefined ? 'lat' : 'lon'}`, message: 'is required when lat or lon is given' }];
  });
  if (fields.length) throw invalidRequest(`The request is invalid: ${fields[0].field} ${fields[0].message}.`, fields);
}

/** A partner's quote as decided and priced, before it is stored or shown. */
export interface PartnerQuote {
  quote: QuoteRecord;
  offers: OfferRecord[];
  outcome: Decision;
  ignoredVehicleCodes: string[];
}

/**
 * The partner's quoting engine, for a new journey (POST /quotes) and for a change of a booking (its change
 * quotes): the rate card's fare at the partner's contract rate, plus the seats asked for, for every vehicle that
 * carries the party (in production, that the fleet has free for the window, with the seats). Declines are ordinary
 * outcomes, checked in order: partner_paused, short_notice, route_unknown, no_vehicle, below_min_rate.
 */
export async function quoteForPartner(
  partner: QuotingPartner,
  env: 'sandbox' | 'production',
  input: QuoteInput,
  deps: QuoteDeps,
  change?: { bookingRef: string; exceptJob: string | null },
): Promise<PartnerQuote> {
  assertPlaces(input);
  const pickupAt = new Date(input.pickup_datetime);
  if (pickupAt.getTime() - deps.now.getTime() > MAX_ADVANCE_MS) {
    throw invalidRequest('The request is invalid: pickup_datetime must be within 366 days.', [
      { field: 'pickup_datetime', message: 'must be within 366 days' },
    ]);
  }
  const children = input.passengers.children ?? 0;
  const luggage = input.passengers.luggage ?? 0;
  const currency = partner.currency;
  const extras = priceExtras(checkedExtras(input.extras, children), currency, deps.fx);
  const createdAt = deps.now;
  const expiresAt = new Date(createdAt.getTime() + OFFER_TTL_MS);

  const { filter, codeFor, ignored } = partnerVocabulary(partner.vocabulary, input.vehicle_codes);
  let outcome = decideJourney(
    {
      pickup: input.pickup,
      dropoff: input.dropoff,
      pickupAt,
      pickupWritten: input.pickup_datetime,
      adults: input.passengers.adults,
      children,
      luggage,
      vehicleFilter: filter,
      currency,
    },
    { now: deps.now, fx: deps.fx, paused: partner.paused },
  );
  // Production offers only what the fleet has free for the journey's window; sandbox is never limited.
  if (outcome.ok && env === 'production' && deps.freeClasses) {
    outcome = await withinCapacity(outcome, pickupAt, deps.freeClasses, seatCounts(extras), change?.exceptJob ?? null);
  }
  const quote: QuoteRecord = {
    quoteId: hex32(),
    partnerId: partner.partnerId,
    env,
    request: input,
    currency,
    journeyType: outcome.ok ? outcome.journey_type : null,
    pickup: outcome.ok ? wirePlace(outcome.pickup) : null,
    dropoff: outcome.ok ? wirePlace(outcome.dropoff) : null,
    distanceKm: outcome.ok ? outcome.distance_km : null,
    durationMin: outcome.ok ? outcome.duration_min : null,
    pickupAt,
    declinedReason: outcome.ok ? null : outcome.reason,
    declined: outcome.ok ? null : outcome,
    terms: partner.terms,
    extras,
    bookingRef: change?.bookingRef ?? null,
    createdAt,
    expiresAt,
  };
  const seats = extrasTotal(extras);
  const offers: OfferRecord[] = outcome.ok
    ? outcome.offers.map((o) => ({
        offerId: hex32(),
        vehicle: o.vehicle.code,
        vehicleCode: codeFor(o.vehicle.code),
        vehicleName: `${o.vehicle.name} or similar`,
        vehicleClass: o.vehicle.class,
        maxPassengers: o.vehicle.max_passengers,
        maxLuggage: o.vehicle.max_luggage,
        amountMinor: adjustedFare(o.amount_minor, partner.terms.price_adjustment_percent) + seats,
      }))
    : [];
  return { quote, offers, outcome, ignoredVehicleCodes: ignored };
}

/**
 * Quotes a journey for a partner (POST /quotes): the answer, and the quote and offers to store (the prices billed
 * if booked), which commit with the request's audit row.
 */
export async function createQuote(partner: QuotingPartner, env: 'sandbox' | 'production', input: QuoteInput, deps: QuoteDeps) {
  const q = await quoteForPartner(partner, env, input, deps);
  return {
    quote: view(q),
    write: quoteWrite(q.quote, q.offers),
    // The quote's data key: its places' text can be the traveller's (a home or hotel address, say).
    dataKeys: newSubjectKeys([`quote:${q.quote.quoteId}`]),
    bookable: q.outcome.ok ? q.offers.map((o) => bookable(q.quote, o)) : [],
  };
}

/**
 * The classes with a vehicle free in [from, to) for a job needing `seats` (leaving out the job a change moves), or
 * null when the fleet does not limit quoting (no vehicle registered).
 */
export type FreeClasses = (from: Date, to: Date, seats: SeatCounts, exceptJob: string | null) => Promise<ReadonlySet<string> | null>;

/** Keeps the offers whose class has a vehicle free for the job's window; none left is the no_vehicle decline. */
export async function withinCapacity(
  outcome: Extract<Decision, { ok: true }>,
  pickupAt: Date,
  freeClasses: FreeClasses,
  seats: SeatCounts = {},
  exceptJob: string | null = null,
): Promise<Decision> {
  const free = await freeClasses(pickupAt, jobEndsAt(pickupAt, outcome.duration_min, outcome.journey_type), seats, exceptJob);
  if (!free) return outcome;
  const offers = outcome.offers.filter((o) => free.has(o.vehicle.code));
  if (offers.length) return { ...outcome, offers };
  const withSeats = Object.keys(seats).length > 0;
  return {
    ok: false,
    reason: 'no_vehicle',
    message: withSeats
      ? 'Every vehicle that carries this party with these seats is taken at that time; quote another pickup time, or fewer seats.'
      : 'Every vehicle that carries this party is taken at that time; quote another pickup time.',
    hint: { fully_booked: outcome.offers.map((o) => o.vehicle.code) },
  };
}

/** An offer as a booking decision reads it (the same facts bookingFacts reads from the database). */
function bookable(q: QuoteRecord, o: OfferRecord): OfferForBooking {
  const input = q.request as QuoteInput;
  return {
    offerId: o.offerId,
    quoteId: q.quoteId,
    vehicle: o.vehicle,
    vehicleCode: o.vehicleCode,
    vehicleName: o.vehicleName,
    maxPassengers: o.maxPassengers,
    maxLuggage: o.maxLuggage,
    amountMinor: o.amountMinor,
    currency: q.currency as OfferForBooking['currency'],
    expiresAt: q.expiresAt,
    journeyType: q.journeyType as OfferForBooking['journeyType'],
    pickup: q.pickup as OfferForBooking['pickup'],
    dropoff: q.dropoff as OfferForBooking['dropoff'],
    pickupAt: q.pickupAt,
    request: { pickup: input.pickup, dropoff: input.dropoff, pickup_datetime: input.pickup_datetime },
    durationMin: q.durationMin,
    terms: q.terms,
    extras: q.extras,
  };
}

/** An offer as partners read it, with what cancelling it once booked would cost. */
export function offerView(q: QuoteRecord, o: OfferRecord) {
  const currency = q.currency as Currency;
  return {
    offer_id: o.offerId,
    vehicle_code: o.vehicleCode,
    vehicle: o.vehicleName,
    vehicle_class: o.vehicleClass,
    price: toDecimal(o.amountMinor, currency),
    currency,
    max_passengers: o.maxPassengers,
    max_luggage: o.maxLuggage,
    extras: q.extras.map((e) => extraView(e, currency)),
    cancellation_policy: cancellationPolicy(q.terms, q.pickupAt, o.amountMinor, currency),
    expires_at: q.expiresAt.toISOString(),
  };
}

/** The decline as partners read it (null when there are offers). */
export const declinedView = (outcome: Decision) =>
  outcome.ok ? null : { reason: outcome.reason, message: outcome.message, ...(outcome.hint ? { hint: outcome.hint } : {}) };

function view({ quote: q, offers, outcome, ignoredVehicleCodes }: PartnerQuote) {
  return {
    quote_id: q.quoteId,
    created_at: q.createdAt.toISOString(),
    expires_at: q.expiresAt.toISOString(),
    currency: q.currency as Currency,
    journey_type: outcome.ok ? outcome.journey_type : null,
    pickup: outcome.ok ? wirePlace(outcome.pickup) : null,
    dropoff: outcome.ok ? wirePlace(outcome.dropoff) : null,
    route: outcome.ok ? { distance_km: outcome.distance_km, duration_min: outcome.duration_min } : null,
    offers: offers.map((o) => offerView(q, o)),
    declined: declinedView(outcome),
    ignored_vehicle_codes: ignoredVehicleCodes,
  };
}

/**
 * The partner's codes → our fleet codes, compared case-insensitively. A requested code is recognised if the partner
 * mapped it, or if it is one of our own fleet codes; the others are ignored (and listed in the answer), and if none
 * is recognised the quote is unfiltered. Offers carry the partner's code where a mapping exists (as the partner
 * mapped it; a requested one first), else our fleet code.
 */
function partnerVocabulary(vocabulary: ReadonlyMap<string, string>, requested: string[] | undefined) {
  const mapped = new Map<string, { code: string; vehicle: string }>();
  for (const [code, vehicle] of [...vocabulary.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    if (!mapped.has(code.toLowerCase())) mapped.set(code.toLowerCase(), { code, vehicle });
  }
  const fleetCodes = new Set<string>(FLEET.map((v) => v.code));
  const recognised: Array<{ code: string; vehicle: string; partners: boolean }> = [];
  const ignored: string[] = [];
  for (const asked of requested ?? []) {
    const key = asked.toLowerCase();
    const m = mapped.get(key);
    if (m) recognised.push({ code: m.code, vehicle: m.vehicle, partners: true });
    else if (fleetCodes.has(key)) recognised.push({ code: key, vehicle: key, partners: false });
    else ignored.push(asked);
  }
  const preferred = new Map<string, string>();
  for (const r of recognised) if (r.partners && !preferred.has(r.vehicle)) preferred.set(r.vehicle, r.code);
  for (const { code, vehicle } of mapped.values()) if (!preferred.has(vehicle)) preferred.set(vehicle, code);
  return {
    filter: recognised.length ? [...new Set(recognised.map((r) => r.vehicle))] : undefined,
    codeFor: (fleetCode: string) => preferred.get(fleetCode) ?? fleetCode,
    ignored: [...new Set(ignored)],
  };
}
