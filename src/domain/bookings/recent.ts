import type { OfferForBooking } from '../../data/repositories/bookings-repository';
import type { StoredResponse } from '../../data/repositories/idempotency-repository';
import { BoundedMemory } from '../../shared/bounded-memory';

/**
 * What an instance remembers of the last minutes, so that the usual booking needs one statement instead of two:
 * the offers it quoted, and the Idempotency-Keys it has seen completed. Nothing here is trusted where it could be
 * out of date: an offer's data never changes once quoted but its expiry (checked again in the booking's statement);
 * a completed key's stored response never changes at all (it is kept at least 7 days; entries live minutes). What
 * the memory cannot know (an offer booked elsewhere, a reference already used, a key stored by another instance) is
 * decided by the database's uniqueness in the same statement, and a conflict sends the request down the careful
 * path. An instance that remembers nothing is merely one statement slower.
 */
export interface Scope {
  partnerId: string;
  env: 'sandbox' | 'production';
}

const scoped = (s: Scope, id: string) => `${s.partnerId}\u0001${s.env}\u0001${id}`;

export class RecentBookingFacts {
  /** Offers live 30 minutes; kept as long. 20,000 offers is some 6 MB. */
  private readonly offers = new BoundedMemory<OfferForBooking>(30 * 60_000, 20_000);
  private readonly keys = new BoundedMemory<StoredResponse>(10 * 60_000, 5_000);

  rememberOffers(scope: Scope, offers: readonly OfferForBooking[]): void {
    for (const o of offers) this.offers.set(scoped(scope, o.offerId), o);
  }

  offer(scope: Scope, offerId: string): OfferForBooking | undefined {
    return this.offers.get(scoped(scope, offerId));
  }

  rememberKey(scope: Scope, key: string, stored: StoredResponse): void {
    if (stored.responseStatus !== null) this.keys.set(scoped(scope, key), stored);
  }

  completedKey(scope: Scope, key: string): StoredResponse | undefined {
    return this.keys.get(scoped(scope, key));
  }
}
