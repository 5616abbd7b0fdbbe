import { fc, test } from '@fast-check/jest';
import type { ConfirmationRow } from '../../../src/data/repositories/agents-repository';
import { CONFIRMATION_MINUTES, confirmationHash, confirmationRefusal, newConfirmationToken } from '../../../src/domain/agents/confirmations';
import { bookingAllowed, DEFAULT_AGENT_POLICY, type AgentPolicy } from '../../../src/domain/agents/policy';

const NOW = new Date('2026-11-21T08:00:00Z');
const row = (over: Partial<ConfirmationRow> = {}): ConfirmationRow => ({
  partnerId: 'ptn_a',
  env: 'sandbox',
  keyId: 'key_a',
  kind: 'book',
  request: {},
  bookingRef: null,
  amount: 35.3,
  currency: 'USD',
  expiresAt: new Date(NOW.getTime() + CONFIRMATION_MINUTES * 60_000),
  usedAt: null,
  usedWith: null,
  ...over,
});
const want = { keyId: 'key_a', kind: 'book' as const, idempotencyKey: 'k1', now: NOW };
const reason = (r: ReturnType<typeof confirmationRefusal>) => r?.details.reason;

describe('A confirmation token', () => {
  it('confirms for the key it was given to, for its kind, until it expires', () => {
    expect(confirmationRefusal(row(), want)).toBeUndefined();
    expect(reason(confirmationRefusal(undefined, want))).toBe('unknown');
    expect(reason(confirmationRefusal(row({ keyId: 'key_b' }), want))).toBe('unknown');
    expect(reason(confirmationRefusal(row({ kind: 'cancel' }), want))).toBe('unknown');
    expect(reason(confirmationRefusal(row({ expiresAt: NOW }), want))).toBe('expired');
    expect(confirmationRefusal(row({ expiresAt: new Date(NOW.getTime() + 1) }), want)).toBeUndefined();
  });

  it('confirms once: used again only as a retry with the same idempotency key (a booking), never for a cancel', () => {
    const used = row({ usedAt: NOW, usedWith: 'k1', bookingRef: 'ABCD2345' });
    expect(confirmationRefusal(used, want)).toBeUndefined();
    expect(reason(confirmationRefusal(used, { ...want, idempotencyKey: 'k2' }))).toBe('used');
    const cancel = row({ kind: 'cancel', bookingRef: 'ABCD2345', usedAt: NOW, usedWith: 'cancel' });
    expect(reason(confirmationRefusal(cancel, { keyId: 'key_a', kind: 'cancel', bookingRef: 'ABCD2345', now: NOW }))).toBe('used');
  });

  it('a cancel token is for its booking only', () => {
    const cancel = row({ kind: 'cancel', bookingRef: 'ABCD2345' });
    expect(confirmationRefusal(cancel, { keyId: 'key_a', kind: 'cancel', bookingRef: 'ABCD2345', now: NOW })).toBeUndefined();
    expect(reason(confirmationRefusal(cancel, { keyId: 'key_a', kind: 'cancel', bookingRef: 'ZZZZ2345', now: NOW }))).toBe('other_booking');
  });

  it('is 256 random bits, stored only as its SHA-256', () => {
    const a = newConfirmationToken();
    const b = newConfirmationToken();
    expect(a.token).toMatch(/^mcpc_[A-Za-z0-9_-]{43}$/);
    expect(a.token).not.toBe(b.token);
    expect(a.hash).toBe(confirmationHash(a.token));
    expect(a.hash).not.toContain(a.token.slice(5));
  });
});

describe("An agent's booking under the operator's policy", () => {
  const policy = (p: Partial<AgentPolicy>): AgentPolicy => ({ ...DEFAULT_AGENT_POLICY, ...p });
  it('by default: the sandbox open, production closed, no amount limit', () => {
    expect(bookingAllowed(DEFAULT_AGENT_POLICY, 'sandbox', 10_000, 'USD')).toBeUndefined();
    expect(bookingAllowed(DEFAULT_AGENT_POLICY, 'production', 1, 'USD')?.details.limit).toBe('live_bookings');
  });
  it('closed altogether when an operator turned agents off, in either environment', () => {
    for (const env of ['sandbox', 'production'] as const)
      expect(bookingAllowed(policy({ enabled: false, liveBookings: true }), env, 1, 'USD')?.details.limit).toBe('enabled');
  });
  test.prop([fc.integer({ min: 1, max: 100_000 }), fc.integer({ min: 1, max: 100_000 })])(
    'an amount is refused exactly when it is over max_booking_amount, naming the limit and the amount',
    (maxCents, amountCents) => {
      const r = bookingAllowed(policy({ liveBookings: true, maxBookingAmount: maxCents / 100 }), 'production', amountCents / 100, 'USD');
      if (amountCents > maxCents)
        expect(r).toMatchObject({ code: 'limit_exceeded', details: { limit: 'max_booking_amount', max: maxCents / 100, amount: amountCents / 100 } });
      else expect(r).toBeUndefined();
    },
  );
});
