import { formatLocal, parseLocal } from '../../../src/domain/kernel/sri-lanka-time';

describe('Marketplace local time (Sri Lanka, UTC+05:30, no zone on the wire)', () => {
  it('when a local time is parsed, then it is that instant in UTC, and formats back', () => {
    const d = parseLocal('2026-12-01 09:30:00')!;
    expect(d.toISOString()).toBe('2026-12-01T04:00:00.000Z');
    expect(formatLocal(d)).toBe('2026-12-01 09:30:00');
    expect(formatLocal(new Date('2026-12-31T20:00:00Z'))).toBe('2027-01-01 01:30:00');
  });

  it.each(['2026-02-30 10:00:00', '2026-12-01 24:00:00', '2026-12-01T09:30:00', '2026-12-01 9:30:00', ''])('when given %p, then it is refused', (v) => {
    expect(parseLocal(v)).toBeNull();
  });
});
