import fc from 'fast-check';
import type { BookingRow, BookingStatus } from '../../../src/data/repositories/bookings-repository';
import { assertChangeable, assertVersion, changedFields } from '../../../src/domain/bookings/booking-changes';
import { AppError } from '../../../src/shared/errors';
import { bookingRow, minutesAfter, minutesBefore, PICKUP_AT } from '../../support/booking-rows';

/** The refusal `f` throws (its code and details), or undefined when it throws nothing. */
function refusal(f: () => void): { code: string; details: Record<string, unknown>; message: string } | undefined {
  try {
    f();
    return undefined;
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    return { code: e.code, details: e.details, message: e.message };
  }
}

const OPEN: BookingStatus[] = ['confirmed', 'driver_assigned', 'driver_en_route', 'driver_arrived', 'passenger_on_board'];
const CLOSED: BookingStatus[] = ['cancelled', 'completed', 'no_show'];
const TWO_HOURS_MS = 2 * 3600_000;

describe('whether a booking can still change', () => {
  it('exactly 2 hours before pickup it can; a millisecond later it is too_late, with the emergency number', () => {
    const row = bookingRow();
    const cutOff = minutesBefore(PICKUP_AT, 120);
    expect(refusal(() => assertChangeable(row, cutOff))).toBeUndefined();
    expect(refusal(() => assertChangeable(row, new Date(cutOff.getTime() + 1)))).toMatchObject({
      code: 'booking_conflict',
      details: { reason: 'too_late', booking_ref: 'LK7Q2M9X', pickup_datetime: '2026-12-01T09:30:00+05:30', emergency_phone: '+94 11 234 5678' },
    });
    // The integration test's case: 119 minutes before pickup.
    expect(refusal(() => assertChangeable(row, minutesBefore(PICKUP_AT, 119)))?.details.reason).toBe('too_late');
    expect(refusal(() => assertChangeable(row, minutesAfter(PICKUP_AT, 30)))?.details.reason).toBe('too_late');
  });

  it.each(CLOSED)('a %s booking is not_amendable, even long before pickup', (status) => {
    expect(refusal(() => assertChangeable(bookingRow({ status }), minutesBefore(PICKUP_AT, 10 * 24 * 60)))).toMatchObject({
      code: 'booking_conflict',
      details: { reason: 'not_amendable', booking_ref: 'LK7Q2M9X', status },
    });
  });

  it('for any status and moment: closed bookings are not_amendable first, open ones change exactly while pickup is at least 2 hours away', () => {
    fc.assert(
      fc.property(fc.constantFrom(...OPEN, ...CLOSED), fc.integer({ min: -48 * 3600_000, max: 48 * 3600_000 }), (status, msBeforePickup) => {
        const now = new Date(PICKUP_AT.getTime() - msBeforePickup);
        const r = refusal(() => assertChangeable(bookingRow({ status }), now));
        if (CLOSED.includes(status)) expect(r?.details.reason).toBe('not_amendable');
        else if (msBeforePickup < TWO_HOURS_MS) expect(r?.details.reason).toBe('too_late');
        else expect(r).toBeUndefined();
      }),
      { numRuns: 500 },
    );
  });
});

describe('the version the caller read (If-Match)', () => {
  it('when missing, then precondition_required naming the current version', () => {
    expect(refusal(() => assertVersion(bookingRow({ version: 3 }), undefined))).toMatchObject({
      code: 'precondition_required',
      details: { booking_ref: 'LK7Q2M9X', current_version: 3 },
    });
  });

  it('when another version, then precondition_failed naming both; when no version at all (NaN), it names only the current one', () => {
    const stale = refusal(() => assertVersion(bookingRow({ version: 3 }), 2));
    expect(stale).toMatchObject({ code: 'precondition_failed', details: { booking_ref: 'LK7Q2M9X', current_version: 3 } });
    expect(stale?.message).toContain('version 3, not 2');
    const garbled = refusal(() => assertVersion(bookingRow({ version: 3 }), NaN));
    expect(garbled?.code).toBe('precondition_failed');
    expect(garbled?.message).not.toContain('NaN');
  });

  it('for any version and any If-Match, it passes exactly when they are equal', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 0, max: 1001 }), (version, expected) => {
        const r = refusal(() => assertVersion(bookingRow({ version }), expected));
        if (expected === version) expect(r).toBeUndefined();
        else expect(r?.code).toBe('precondition_failed');
      }),
    );
  });
});

/** Each field partners read, and a change of it. */
const CHANGES: Array<[string, (b: BookingRow) => Partial<BookingRow>]> = [
  ['passenger', (b) => ({ passenger: { ...b.passenger!, phone: '+94770000009' } })],
  ['flight_number', () => ({ flightNumber: 'EK648' })],
  ['luggage', (b) => ({ luggage: b.luggage + 1 })],
  ['notes', () => ({ notes: 'Two surfboards.' })],
  ['pickup_datetime', () => ({ pickupDatetime: '2026-12-01T11:00:00+05:30' })],
  ['pickup', (b) => ({ pickup: { ...b.pickup, name: 'BIA arrivals hall' } })],
  ['dropoff', (b) => ({ dropoff: { ...b.dropoff, lat: b.dropoff.lat + 0.01 } })],
  ['passengers', (b) => ({ children: b.children + 1 })],
  ['extras', () => ({ extras: [{ code: 'child_seat', quantity: 1, amount_minor: 500 }] })],
  ['vehicle_code', () => ({ vehicleCode: 'minivan' })],
  ['price', (b) => ({ amountMinor: b.amountMinor + 700 })],
  ['driver', () => ({ driver: { name: 'Kamal Perera', phone: '+94771111111', vehicle: 'Toyota Axio (White)', plate: 'CAB-1234' } })],
];
const ORDER = CHANGES.map(([name]) => name);

describe('what changed between two versions of a booking', () => {
  it('the same booking: nothing', () => {
    expect(changedFields(bookingRow(), bookingRow())).toEqual([]);
  });

  it.each(CHANGES)('a change of %s names exactly that field', (name, change) => {
    const before = bookingRow();
    expect(changedFields(before, { ...before, ...change(before) })).toEqual([name]);
  });

  it('adults count as passengers too; a passenger given again with the same values is no change', () => {
    const before = bookingRow();
    expect(changedFields(before, { ...before, adults: 3 })).toEqual(['passengers']);
    expect(changedFields(before, { ...before, passenger: { ...before.passenger! } })).toEqual([]);
  });

  it('what partners do not read as the booking (its version, events, meeting text, status, tracking) is not named', () => {
    const before = bookingRow();
    const after: BookingRow = {
      ...before,
      version: 2,
      eventSeq: 4,
      meetingInstructions: 'Meet at the lobby.',
      status: 'driver_assigned',
      pickupEstimatedAt: minutesAfter(PICKUP_AT, 30),
      driverLocation: { lat: 7, lon: 80, at: PICKUP_AT.toISOString() },
    };
    expect(changedFields(before, after)).toEqual([]);
  });

  it('for any set of changes, exactly those fields are named, in the fixed order, whichever way round the versions are compared', () => {
    fc.assert(
      fc.property(fc.subarray(CHANGES), (picked) => {
        const before = bookingRow();
        const after = picked.reduce<BookingRow>((b, [, change]) => ({ ...b, ...change(before) }), before);
        const expected = ORDER.filter((name) => picked.some(([n]) => n === name));
        expect(changedFields(before, after)).toEqual(expected);
        expect(changedFields(after, before)).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });
});
