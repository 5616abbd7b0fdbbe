import { authClient } from '../../../src/domain/operators/operator-auth';

describe('The client a wrong operator token counts against', () => {
  it('when the address is IPv4 (or IPv4-mapped IPv6), then it is the address itself', () => {
    expect(authClient('203.0.113.7')).toBe('203.0.113.7');
    expect(authClient('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  it('when the address is IPv6, then every address of its /64 counts as one client', () => {
    expect(authClient('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(authClient('2001:0db8:0001:0002:ffff::1')).toBe('2001:db8:1:2::/64');
    expect(authClient('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(authClient('::1')).toBe('0:0:0:0::/64');
  });

  it('when there is no usable address, then it still counts, under one name', () => {
    expect(authClient(undefined)).toBe('unknown');
    expect(authClient('')).toBe('unknown');
  });
});
