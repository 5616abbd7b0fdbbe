import fc from 'fast-check';
import type { StoredResponse } from '../../../src/data/repositories/idempotency-repository';
import { fingerprint, keptUntil, keyOf, replayOf, storableError } from '../../../src/domain/bookings/idempotency';
import { AppError, type ErrorCode } from '../../../src/shared/errors';
import { BOOKED_AT, PICKUP_AT } from '../../support/booking-rows';

const DAY_MS = 24 * 3600_000;

/** The same JSON value with every object's keys in another order: rotated by `n`, then reversed, at every depth. */
function reordered(value: unknown, n: number): unknown {
  if (Array.isArray(value)) return value.map((v) => reordered(v, n));
  if (value && typeof value === 'object') {
    const entries = Object.entries(value);
    const k = entries.length ? n % entries.length : 0;
    const rotated = [...entries.slice(k), ...entries.slice(0, k)].reverse();
    return Object.fromEntries(rotated.map(([key, v]) => [key, reordered(v, n)]));
  }
  return value;
}
/** An independent judge of "the same JSON value": lists and objects told apart, objects as their sorted entries. */
const sameJson = (a: unknown, b: unknown): boolean => {
  const sorted = (v: unknown): unknown =>
    Array.isArray(v)
      ? { list: v.map(sorted) }
      : v && typeof v === 'object'
        ? {
            object: Object.keys(v)
              .sort()
              .map((k) => [k, sorted((v as Record<string, unknown>)[k])]),
          }
        : v;
  return JSON.stringify(sorted(a)) === JSON.stringify(sorted(b));
};

const BODY = {
  quote_id: 'quote-1',
  offer_id: 'offer-1',
  partner_reference: 'AGY-2002',
  passenger: { first_name: 'Nimal', last_name: 'Silva', email: 'nimal@example.com' },
  passengers: { adults: 2, children: 1, luggage: 2 },
  flight_number: 'UL504',
};

describe('the fingerprint of a request', () => {
  it('a booking body sent again with its keys in another order and other whitespace is the same request', () => {
    const again = JSON.parse(`{ "flight_number": "UL504", "passengers": {"luggage":2,"children":1,"adults":2},
      "passenger": {"email":"nimal@example.com","last_name":"Silva","first_name":"Nimal"},
      "partner_reference": "AGY-2002", "offer_id": "offer-1", "quote_id": "quote-1" }`);
    expect(fingerprint(again)).toBe(fingerprint(BODY));
  });

  it('a body that differs in any value, or lacks or adds a field, is another request; so is a list in another order', () => {
    const other = [
      { ...BODY, passengers: { ...BODY.passengers, adults: 3 } },
      { ...BODY, passenger: { ...BODY.passenger, last_name: 'Silva ' } },
      { ...BODY, flight_number: undefined },
      { ...BODY, notes: 'late arrival' },
      { ...BODY, passengers: { ...BODY.passengers, adults: '2' } },
    ];
    for (const body of other) expect(fingerprint(body)).not.toBe(fingerprint(BODY));
    expect(fingerprint({ extras: [1, 2] })).not.toBe(fingerprint({ extras: [2, 1] }));
  });

  it('for any JSON value, reordering its keys at any depth keeps the fingerprint', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(), (value, n) => {
        expect(fingerprint(reordered(value, n))).toBe(fingerprint(value));
      }),
      { numRuns: 300 },
    );
  });

  it('for any two JSON values, the fingerprints are equal exactly when the values are', () => {
    const pair = fc.oneof(
      fc.tuple(fc.jsonValue(), fc.jsonValue()),
      fc.tuple(fc.jsonValue(), fc.nat()).map(([v, n]) => [v, reordered(v, n)] as const),
      fc
        .tuple(fc.dictionary(fc.string(), fc.jsonValue(), { minKeys: 1 }), fc.string(), fc.jsonValue())
        .map(([v, k, leaf]) => [v, { ...v, [k]: leaf }] as const),
    );
    fc.assert(
      fc.property(pair, ([a, b]) => {
        expect(fingerprint(a) === fingerprint(b)).toBe(sameJson(a, b));
      }),
      { numRuns: 500 },
    );
  });
});

const stored = (over: Partial<StoredResponse> = {}): StoredResponse => ({
  fingerprint: fingerprint(BODY),
  responseStatus: 201,
  responseBody: '{"booking_ref":"LK7Q2M9X"}',
  requestId: 'req-first',
  ...over,
});

describe('what a key already stored means for a request', () => {
  it('the same request after the first answered: that answer again, byte for byte, naming the first request', () => {
    expect(replayOf(stored(), fingerprint(BODY), 5000)).toEqual({
      kind: 'replayed',
      answer: { status: 201, body: '{"booking_ref":"LK7Q2M9X"}' },
      originalRequestId: 'req-first',
    });
    // A stored refusal is replayed too.
    expect(replayOf(stored({ responseStatus: 410, responseBody: '{"error":{}}' }), fingerprint(BODY), 5000)).toMatchObject({
      kind: 'replayed',
      answer: { status: 410, body: '{"error":{}}' },
    });
  });

  it('another request under the key: idempotency_conflict body_mismatch naming the first request, answered or not', () => {
    for (const s of [stored(), stored({ responseStatus: null, responseBody: null })]) {
      const r = replayOf(s, fingerprint({ ...BODY, flight_number: 'EK648' }), 5000);
      expect(r.kind === 'refused' && r.error).toMatchObject({
        code: 'idempotency_conflict',
        details: { reason: 'body_mismatch', original_request_id: 'req-first' },
      });
    }
  });

  it('the same request while the first has not answered: idempotency_conflict in_progress, retry in a second', () => {
    for (const s of [stored({ responseStatus: null, responseBody: null }), stored({ responseBody: null }), stored({ responseStatus: null })]) {
      const r = replayOf(s, fingerprint(BODY), 4600);
      if (r.kind !== 'refused') throw new Error('expected a refusal');
      expect(r.error).toMatchObject({ code: 'idempotency_conflict', details: { reason: 'in_progress' }, hints: { retryAfterSeconds: 1 } });
      expect(r.error.message).toContain('after 5 s');
    }
  });

  it('for any stored outcome: replayed exactly when the request is the same and the first answered', () => {
    const prints = ['a'.repeat(64), 'b'.repeat(64)];
    fc.assert(
      fc.property(
        fc.constantFrom(...prints),
        fc.constantFrom(...prints),
        fc.option(fc.integer({ min: 200, max: 599 }), { nil: null }),
        fc.option(fc.string(), { nil: null }),
        (was, now, status, body) => {
          const r = replayOf(stored({ fingerprint: was, responseStatus: status, responseBody: body }), now, 1000);
          const reason = r.kind === 'refused' ? r.error.details.reason : 'replayed';
          expect(reason).toBe(was !== now ? 'body_mismatch' : status === null || body === null ? 'in_progress' : 'replayed');
          if (r.kind === 'replayed') expect(r.answer).toEqual({ status, body });
        },
      ),
    );
  });
});

describe('how long a key is kept', () => {
  it('a day after the pickup when that is later than a week: the booking of 21 November for 1 December keeps its key until 2 December', () => {
    expect(keptUntil(BOOKED_AT, PICKUP_AT).toISOString()).toBe('2026-12-02T04:00:00.000Z');
  });

  it('a week at the least: for a pickup tomorrow, or with no booking', () => {
    expect(keptUntil(BOOKED_AT, new Date(BOOKED_AT.getTime() + DAY_MS)).toISOString()).toBe('2026-11-28T08:00:00.000Z');
    expect(keptUntil(BOOKED_AT).toISOString()).toBe('2026-11-28T08:00:00.000Z');
    expect(keptUntil(BOOKED_AT, new Date(BOOKED_AT.getTime() + 6 * DAY_MS)).toISOString()).toBe('2026-11-28T08:00:00.000Z');
  });

  it('for any moment and pickup, the later of a week from now and a day after the pickup', () => {
    const instant = fc.integer({ min: Date.UTC(2026, 0, 1), max: Date.UTC(2028, 0, 1) }).map((ms) => new Date(ms));
    fc.assert(
      fc.property(instant, fc.option(instant, { nil: undefined }), (now, pickup) => {
        const kept = keptUntil(now, pickup).getTime();
        const week = now.getTime() + 7 * DAY_MS;
        expect(kept).toBeGreaterThanOrEqual(week);
        if (pickup) expect(kept).toBeGreaterThanOrEqual(pickup.getTime() + DAY_MS);
        expect(kept).toBe(pickup ? Math.max(week, pickup.getTime() + DAY_MS) : week);
      }),
    );
  });
});

describe('which outcomes are kept against a key, and in what scope', () => {
  const CODES: ErrorCode[] = [
    'invalid_request',
    'precondition_required',
    'unauthorized',
    'forbidden',
    'not_found',
    'idempotency_conflict',
    'booking_conflict',
    'offer_expired',
    'precondition_failed',
    'job_conflict',
    'service_unavailable',
  ];
  it.each(CODES)('a %s refusal', (code) => {
    const notUnderstood = code === 'invalid_request' || code === 'precondition_required';
    expect(storableError(new AppError(code, 'x'))).toBe(!notUnderstood);
  });

  it('a key is scoped to the partner, the environment and the operation; a request without one has none', () => {
    const scope = { partnerId: 'partner-1', env: 'sandbox' as const };
    expect(keyOf(scope, 'createBooking', 'k-1')).toEqual({ partnerId: 'partner-1', env: 'sandbox', operation: 'createBooking', key: 'k-1' });
    expect(keyOf(scope, 'createBooking', undefined)).toBeUndefined();
    expect(keyOf(scope, 'createBooking', '')).toBeUndefined();
  });
});
