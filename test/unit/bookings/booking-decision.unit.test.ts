import fc from 'fast-check';
import type { BookingFacts } from '../../../src/data/repositories/bookings-repository';
import { decideBooking, type BookingDecision, type BookingInput, type DecisionContext, type Scope } from '../../../src/domain/bookings/booking-decision';
import { jobEndsAt } from '../../../src/domain/kernel/job-window';
import { BOOKED_AT, bookingRow, minutesAfter, offerForBooking, PICKUP_AT } from '../../support/booking-rows';

const SANDBOX: Scope = { partnerId: 'partner-1', env: 'sandbox' };
const PRODUCTION: Scope = { partnerId: 'partner-1', env: 'production' };
const CTX: DecisionContext = { now: BOOKED_AT, paused: false, emergencyPhone: '+94 11 234 5678', publicBaseUrl: 'https://transfers.example' };

const input = (over: Partial<BookingInput> = {}): BookingInput => ({
  quote_id: 'quote-1',
  offer_id: 'offer-1',
  partner_reference: 'AGY-2002',
  passenger: { first_name: 'Nimal', last_name: 'Silva', phone: '+94770000001' },
  passengers: { adults: 2, luggage: 2 },
  flight_number: 'ek 648',
  ...over,
});
const facts = (over: Partial<Omit<BookingFacts, 'stored'>> = {}): Omit<BookingFacts, 'stored'> => ({ offer: offerForBooking(), consumed: false, ...over });

/** What a decision says, in a few words: `book`, `existing`, or the refusal's code and reason (or field). */
function outcome(d: BookingDecision): string {
  if (d.kind !== 'refused') return d.kind;
  const fields = d.error.details.fields as Array<{ field: string }> | undefined;
  return `${d.error.code}:${(d.error.details.reason as string | undefined) ?? fields?.[0].field ?? ''}`;
}

describe('the booking decision', () => {
  it('when the offer is valid, then a confirmed booking at exactly the offer price, with the party, the flight as kept and a tracking link', () => {
    const d = decideBooking(facts({ offer: offerForBooking({ amountMinor: 12345, currency: 'EUR' }) }), SANDBOX, input(), CTX);
    if (d.kind !== 'book') throw new Error(`expected book, got ${outcome(d)}`);
    expect(d.booking).toMatchObject({
      partnerId: 'partner-1',
      env: 'sandbox',
      partnerReference: 'AGY-2002',
      quoteId: 'quote-1',
      offerId: 'offer-1',
      version: 1,
      status: 'confirmed',
      driver: null,
      amountMinor: 12345,
      currency: 'EUR',
      adults: 2,
      children: 0,
      luggage: 2,
      flightNumber: 'EK648',
      pickupAt: PICKUP_AT,
      pickupDatetime: '2026-12-01T09:30:00+05:30',
      createdAt: BOOKED_AT,
      emergencyPhone: '+94 11 234 5678',
      eventSeq: 1,
      cancellationFeeMinor: null,
    });
    // The partner's own text for the drop-off beside where we located it; the airport, as located.
    expect(d.booking.dropoff).toMatchObject({ name: 'Cinnamon Grand, 77 Galle Road, Colombo 03', resolved_name: 'Cinnamon Grand Colombo' });
    expect(d.booking.pickup).toMatchObject({ name: 'Bandaranaike International Airport', iata: 'CMB' });
    expect(d.booking.trackingUrl).toBe(`https://transfers.example/t/${d.booking.trackingToken}`);
    expect(d.booking.meetingInstructions).toContain('EK648');
    expect(d.job).toBeNull();
  });

  it('when a production offer is booked, then its job holds the vehicle class from the pickup to the end of its window', () => {
    const d = decideBooking(facts(), PRODUCTION, input(), CTX);
    if (d.kind !== 'book') throw new Error(`expected book, got ${outcome(d)}`);
    expect(d.job).toMatchObject({
      source: 'partner_booking',
      sourceRef: d.booking.bookingRef,
      fleetCode: 'standard_car',
      pickupAt: PICKUP_AT,
      endsAt: jobEndsAt(PICKUP_AT, 75, 'arrival'),
      passenger: { name: 'Nimal Silva', phone: '+94770000001' },
      flightNumber: 'EK648',
    });
  });

  it('when the partner_reference was used before, then that booking, even for another offer', () => {
    const earlier = bookingRow({ partnerReference: 'AGY-2002', offerId: 'another-offer' });
    const d = decideBooking(facts({ byReference: earlier }), SANDBOX, input(), CTX);
    expect(d).toEqual({ kind: 'existing', booking: earlier });
  });

  it('when the partner is paused, then booking_conflict partner_paused naming the offer', () => {
    const d = decideBooking(facts(), SANDBOX, input(), { ...CTX, paused: true });
    expect(d.kind === 'refused' && d.error).toMatchObject({ code: 'booking_conflict', details: { reason: 'partner_paused', offer_id: 'offer-1' } });
  });

  it('when the offer is unknown, or of another quote, then not_found naming both', () => {
    for (const f of [facts({ offer: undefined }), facts({ offer: offerForBooking({ quoteId: 'quote-2' }) })]) {
      const d = decideBooking(f, SANDBOX, input(), CTX);
      expect(d.kind === 'refused' && d.error).toMatchObject({ code: 'not_found', details: { offer_id: 'offer-1', quote_id: 'quote-1' } });
    }
  });

  it('when an airport pickup has no flight number, then invalid_request on flight_number; a hotel pickup needs none', () => {
    const d = decideBooking(facts(), SANDBOX, input({ flight_number: undefined }), CTX);
    expect(d.kind === 'refused' && d.error.details).toEqual({ fields: [{ field: 'flight_number', message: 'is required when the pickup is an airport' }] });
    const departure = decideBooking(facts({ offer: offerForBooking({ journeyType: 'departure' }) }), SANDBOX, input({ flight_number: undefined }), CTX);
    expect(departure.kind === 'book' && departure.booking.flightNumber).toBeNull();
  });

  it('when the offer expires at this very instant, then offer_expired with expired_at; a millisecond earlier it is booked', () => {
    const expiresAt = minutesAfter(BOOKED_AT, 30);
    const at = (now: Date) => decideBooking(facts({ offer: offerForBooking({ expiresAt }) }), SANDBOX, input(), { ...CTX, now });
    const expired = at(expiresAt);
    expect(expired.kind === 'refused' && expired.error).toMatchObject({
      code: 'offer_expired',
      details: { offer_id: 'offer-1', expired_at: '2026-11-21T08:30:00.000Z' },
    });
    expect(at(new Date(expiresAt.getTime() - 1)).kind).toBe('book');
  });

  it('when the offer is already booked, then booking_conflict offer_consumed', () => {
    const d = decideBooking(facts({ consumed: true }), SANDBOX, input(), CTX);
    expect(d.kind === 'refused' && d.error).toMatchObject({ code: 'booking_conflict', details: { reason: 'offer_consumed', offer_id: 'offer-1' } });
  });

  it('when the party or its bags exceed the vehicle, then booking_conflict party_exceeds_vehicle saying why; exactly full is booked', () => {
    const tooMany = decideBooking(facts(), SANDBOX, input({ passengers: { adults: 2, children: 2, luggage: 1 } }), CTX);
    expect(tooMany.kind === 'refused' && tooMany.error.details).toEqual({
      reason: 'party_exceeds_vehicle',
      adults: 2,
      children: 2,
      luggage: 1,
      max_passengers: 3,
      max_luggage: 3,
    });
    expect(outcome(decideBooking(facts(), SANDBOX, input({ passengers: { adults: 1, luggage: 4 } }), CTX))).toBe('booking_conflict:party_exceeds_vehicle');
    expect(outcome(decideBooking(facts(), SANDBOX, input({ passengers: { adults: 2, children: 1, luggage: 3 } }), CTX))).toBe('book');
  });

  it("when the offer has more children's seats than the booking has children, then invalid_request; with them, booked at the offer's price, seats included", () => {
    const offer = offerForBooking({ extras: [{ code: 'child_seat', quantity: 2, amount_minor: 800 }] });
    const d = decideBooking(facts({ offer }), SANDBOX, input({ passengers: { adults: 1, children: 1, luggage: 1 } }), CTX);
    expect(outcome(d)).toBe('invalid_request:passengers.children');
    const booked = decideBooking(facts({ offer }), SANDBOX, input({ passengers: { adults: 1, children: 2, luggage: 1 } }), CTX);
    expect(booked.kind === 'book' && booked.booking.extras).toEqual(offer.extras);
    // The seats are in the offer's price already: the booking costs exactly that.
    expect(booked.kind === 'book' && booked.booking.amountMinor).toBe(3530);
  });

  // Every way a request can be wrong at once: the first rule in the documented order decides.
  const faults = fc.record({
    reused: fc.boolean(),
    paused: fc.boolean(),
    missing: fc.boolean(),
    otherQuote: fc.boolean(),
    noFlight: fc.boolean(),
    expired: fc.boolean(),
    consumed: fc.boolean(),
    tooBig: fc.boolean(),
    seatsOver: fc.boolean(),
  });
  type Faults = typeof faults extends fc.Arbitrary<infer T> ? T : never;
  const decide = (f: Faults, now: Date, expiresInMs: number) => {
    const offer = offerForBooking({
      quoteId: f.otherQuote ? 'quote-2' : 'quote-1',
      expiresAt: new Date(now.getTime() + (f.expired ? -Math.abs(expiresInMs) : Math.abs(expiresInMs) + 1)),
      extras: [{ code: 'booster_seat', quantity: f.seatsOver ? 2 : 1, amount_minor: 400 }],
    });
    return decideBooking(
      { byReference: f.reused ? bookingRow() : undefined, offer: f.missing ? undefined : offer, consumed: f.consumed },
      SANDBOX,
      input({ flight_number: f.noFlight ? undefined : 'UL504', passengers: { adults: f.tooBig ? 3 : 1, children: 1, luggage: 1 } }),
      { ...CTX, now, paused: f.paused },
    );
  };
  const when = fc.date({ min: new Date('2026-01-01T00:00:00Z'), max: new Date('2027-12-31T00:00:00Z'), noInvalidDate: true });
  const expiresIn = fc.integer({ min: 0, max: 3 * 3600_000 });

  it('for any combination of faults, the first rule in order decides', () => {
    fc.assert(
      fc.property(faults, when, expiresIn, (f, now, ms) => {
        const expected = f.reused
          ? 'existing'
          : f.paused
            ? 'booking_conflict:partner_paused'
            : f.missing || f.otherQuote
              ? 'not_found:'
              : f.noFlight
                ? 'invalid_request:flight_number'
                : f.expired
                  ? 'offer_expired:'
                  : f.consumed
                    ? 'booking_conflict:offer_consumed'
                    : f.tooBig
                      ? 'booking_conflict:party_exceeds_vehicle'
                      : f.seatsOver
                        ? 'invalid_request:passengers.children'
                        : 'book';
        expect(outcome(decide(f, now, ms))).toBe(expected);
      }),
      { numRuns: 500 },
    );
  });

  it('an existing partner_reference always wins: whatever else is wrong, the earlier booking comes back untouched', () => {
    fc.assert(
      fc.property(faults, when, expiresIn, (f, now, ms) => {
        const d = decide({ ...f, reused: true }, now, ms);
        expect(d).toEqual({ kind: 'existing', booking: bookingRow() });
      }),
    );
  });

  it('never books an expired offer: booked only while now is before expires_at', () => {
    fc.assert(
      fc.property(when, fc.integer({ min: -3600_000, max: 3600_000 }), (now, offsetMs) => {
        const expiresAt = new Date(now.getTime() + offsetMs);
        const d = decideBooking(facts({ offer: offerForBooking({ expiresAt }) }), SANDBOX, input(), { ...CTX, now });
        expect(d.kind === 'book').toBe(expiresAt.getTime() > now.getTime());
        if (d.kind !== 'book') expect(outcome(d)).toBe('offer_expired:');
      }),
      { numRuns: 300 },
    );
  });

  it('a party is booked exactly when its passengers and bags fit the vehicle, at the stored price whatever the party', () => {
    fc.assert(
      fc.property(
        fc.record({
          maxPassengers: fc.integer({ min: 1, max: 16 }),
          maxLuggage: fc.integer({ min: 0, max: 16 }),
          amountMinor: fc.integer({ min: 1, max: 10_000_000 }),
        }),
        fc.record({ adults: fc.integer({ min: 1, max: 20 }), children: fc.integer({ min: 0, max: 6 }), luggage: fc.integer({ min: 0, max: 20 }) }),
        (vehicle, party) => {
          const d = decideBooking(facts({ offer: offerForBooking(vehicle) }), SANDBOX, input({ passengers: party }), CTX);
          const fits = party.adults + party.children <= vehicle.maxPassengers && party.luggage <= vehicle.maxLuggage;
          expect(outcome(d)).toBe(fits ? 'book' : 'booking_conflict:party_exceeds_vehicle');
          if (d.kind === 'book') expect(d.booking.amountMinor).toBe(vehicle.amountMinor);
        },
      ),
      { numRuns: 300 },
    );
  });
});
