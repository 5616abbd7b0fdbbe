import { BoundedMemory } from '../../../src/shared/bounded-memory';

describe('A bounded memory of recent values', () => {
  it('when entries outlive their time, then they are forgotten', () => {
    const m = new BoundedMemory<number>(1000, 10);
    m.set('a', 1, 0);
    expect(m.get('a', 999)).toBe(1);
    expect(m.get('a', 1001)).toBeUndefined();
  });

  it('when more entries arrive than the limit, then it never holds more than the limit and keeps the newest', () => {
    const m = new BoundedMemory<number>(60_000, 100);
    for (let i = 0; i < 10_000; i += 1) m.set(`k${i}`, i, 0);
    const held = Array.from({ length: 10_000 }, (_, i) => m.get(`k${i}`, 0)).filter((v) => v !== undefined);
    expect(held.length).toBeLessThanOrEqual(100);
    expect(held.length).toBeGreaterThanOrEqual(50);
    expect(m.get('k9999', 0)).toBe(9999);
    expect(m.get('k0', 0)).toBeUndefined();
  });

  it('when an entry is deleted, then it is gone from both generations', () => {
    const m = new BoundedMemory<number>(60_000, 4);
    m.set('a', 1, 0);
    m.set('b', 2, 0);
    m.set('c', 3, 0); // a and b are now the old generation
    m.delete('a');
    expect(m.get('a', 0)).toBeUndefined();
    expect(m.get('b', 0)).toBe(2);
  });
});
