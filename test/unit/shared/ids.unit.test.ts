import { eventId, hex32, requestId } from '../../../src/shared/ids';

describe('Ids stored in large indexes', () => {
  it('when drawn one after another, then they keep their formats and sort in the order they were made', async () => {
    const first = [hex32(), requestId(), eventId()];
    await new Promise((r) => setTimeout(r, 5));
    const later = [hex32(), requestId(), eventId()];
    expect(first[0]).toMatch(/^[0-9a-f]{32}$/);
    expect(first[1]).toMatch(/^req_[0-9a-f]{24}$/);
    expect(first[2]).toMatch(/^evt_[0-9a-f]{24}$/);
    // A new key lands at the right edge of its index (the growth benchmark depends on it).
    for (let i = 0; i < 3; i++) expect(later[i] > first[i]).toBe(true);
    // Made in the same millisecond, they still differ: the rest is random.
    const burst = new Set(Array.from({ length: 10_000 }, hex32));
    expect(burst.size).toBe(10_000);
  });
});
