import { limitedClient, networkOf } from './client-network';

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

describe(limitedClient.name, () => {
  it('is an IPv4 address itself, and an IPv6 address\'s /64', () => {
    expect(limitedClient('203.0.113.77')).toBe('203.0.113.77');
    expect(limitedClient('::ffff:203.0.113.77')).toBe('::ffff:203.0.113.77');
    expect(['2001:db8:1:2::1', '2001:db8:1:2:ffff::9'].map(limitedClient)).toEqual(['2001:db8:1:2::/64', '2001:db8:1:2::/64']);
    expect(limitedClient('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
  });
});
