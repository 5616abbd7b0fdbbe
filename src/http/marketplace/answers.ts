import type { components, operations } from '../../generated/marketplace-inbound';
import type { ChangeRefused, OrderAnswer } from '../../domain/marketplace/orders';
import type { LockedPrice, RequoteOutcome, SearchInput, SearchOutcome } from '../../domain/marketplace/supplier';
import { BRANDS, listingOf } from '../../domain/marketplace/listing';
import { formatLocal } from '../../domain/kernel/sri-lanka-time';
import { formatMinor } from '../../domain/kernel/money';

/**
 * The bodies we answer the marketplace with (contracts/marketplace-inbound.yaml), made from the domain's outcomes:
 * the one place our vehicles, prices and orders take the marketplace's wire shape.
 */
type Schemas = components['schemas'];
type OkBody<O extends keyof operations> = operations[O]['responses'] extends { 200: { content: { 'application/json': infer B } } } ? B : never;

export type SearchAnswer = OkBody<'searchVehicles'>;
export type RequoteAnswer = OkBody<'requoteVehicle'>;
export type LockedQuoteAnswer = OkBody<'getLockedQuote'>;
export type ChangeAnswer = OkBody<'updateOrder'>;
export type BrandListAnswer = OkBody<'getBrandList'>;

/** A priced vehicle as the marketplace lists it: the typical model of its fleet code, price in EUR, local times. */
export function wireVehicle(p: LockedPrice): Schemas['Vehicle'] {
  const v = p.vehicle;
  const listing = listingOf(v.code);
  return {
    vehicle_id: v.code,
    price_mark: p.priceMark,
    title: `${listing.brand} ${listing.model} ${listing.body} 1-${v.max_passengers} passengers`,
    brand: listing.brand,
    model: listing.model,
    class: listing.class,
    transfer_type: 'private',
    max_passengers: v.max_passengers,
    max_luggage: v.max_luggage,
    price: formatMinor(p.amountMinor, 'EUR'),
    currency: 'EUR',
    distance_km: p.distanceKm,
    duration_min: p.durationMin,
    meeting_types: ['MG', 'NMG'],
    free_cancellation_hours: 24,
    expires_at: formatLocal(p.expiresAt),
  };
}

const noVehicle = (message: string, reason: NonNullable<Schemas['NoVehicle']['reason']>): Schemas['NoVehicle'] => ({
  status: 'NO_VEHICLE',
  error: message,
  reason,
});

/** Vehicles, cheapest first; none, with the reason, when the journey cannot be served. */
export function searchAnswer(outcome: SearchOutcome): SearchAnswer {
  if (outcome.kind === 'declined') return { status: 'OK', vehicles: [], reason: outcome.reason, message: outcome.message };
  return { status: 'OK', vehicles: outcome.vehicles.map(wireVehicle) };
}

export function requoteAnswer(outcome: RequoteOutcome): RequoteAnswer {
  if (outcome.kind === 'no_vehicle') return noVehicle(outcome.message, outcome.reason);
  return { status: 'OK', vehicle: wireVehicle(outcome.vehicle) };
}

export function lockedQuoteAnswer(q: { price: LockedPrice; search: SearchInput }): LockedQuoteAnswer {
  return { status: 'OK', vehicle: wireVehicle(q.price), search: q.search };
}

export function orderAck(a: OrderAnswer): Schemas['OrderAck'] {
  return {
    status: 'OK',
    order_id: a.orderId,
    supplier_order_id: a.supplierOrderId,
    order_state: a.state,
    ...(a.declineReason ? { decline_reason: a.declineReason } : {}),
    ...(a.stale ? { stale: true } : {}),
  };
}

/** A change applied (or older news), or refused: NO_VEHICLE with the reason. */
export function changeAnswer(a: OrderAnswer | ChangeRefused): ChangeAnswer {
  return a.kind === 'order' ? orderAck(a) : noVehicle(a.message, a.reason);
}

export function brandListAnswer(): BrandListAnswer {
  return { status: 'OK', brands: BRANDS.map((b) => ({ id: b.id, name: b.name })) };
}
