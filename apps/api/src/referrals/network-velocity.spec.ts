import { networkOf, overVelocity } from './network-velocity';

describe(networkOf.name, () => {
  it('is the /24 of an IPv4 address, also written as IPv6', () => {
    expect(networkOf('203.0.113.77')).toBe('203.0.113.0/24');
    expect(networkOf('::ffff:203.0.113.5')).toBe('203.0.113.0/24');
  });

  it('is the /64 of an IPv6 address, however it is written', () => {
    expect(networkOf('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(networkOf('2001:0db8:0001:0002:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::/64');
    expect(networkOf('2001:DB8:1:2:0:0:0:9')).toBe('2001:db8:1:2::/64');
    expect(networkOf('::1')).toBe('0:0:0:0::/64');
    expect(networkOf('2001:db8::')).toBe('2001:db8:0:0::/64');
  });

  it('is null for what is not an address', () => {
    expect(networkOf('')).toBeNull();
    expect(networkOf('localhost')).toBeNull();
  });
});

describe(overVelocity.name, () => {
  it('lets the first `limit` referrals of a network through and withholds the rest', () => {
    expect([0, 1, 2, 3, 4].map((earlier) => overVelocity(earlier, 3))).toEqual([false, false, false, true, true]);
  });

  it('has no limit at 0', () => {
    expect(overVelocity(1000, 0)).toBe(false);
  });
});
