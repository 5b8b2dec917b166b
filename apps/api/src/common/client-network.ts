import { isIP } from 'node:net';

/**
 * The network a client address belongs to, for the referral protection's velocity rule: its IPv4 /24
 * or its IPv6 /64 (an IPv4 address written as IPv6, ::ffff:a.b.c.d, is IPv4). Null for anything else.
 */
export function networkOf(address: string): string | null {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  const ip = mapped ? mapped[1] : address;
  if (isIP(ip) === 4) return `${ip.split('.').slice(0, 3).join('.')}.0/24`;
  if (isIP(ip) !== 6) return null;
  return `${expandIpv6(ip).slice(0, 4).join(':')}::/64`;
}

/** The eight groups of an IPv6 address, without leading zeros (a trailing IPv4 part counts as two). */
function expandIpv6(ip: string): string[] {
  const [head, tail = ''] = ip.toLowerCase().split('::');
  const groups = (part: string) => (part ? part.split(':').flatMap(ipv4AsGroups) : []);
  const start = groups(head);
  const end = groups(tail);
  const all = ip.includes('::') ? [...start, ...Array<string>(8 - start.length - end.length).fill('0'), ...end] : start;
  return all.map((group) => group.replace(/^0+(?=.)/, ''));
}

function ipv4AsGroups(group: string): string[] {
  if (!group.includes('.')) return [group];
  const [a, b, c, d] = group.split('.').map(Number);
  return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
}

/**
 * Whom a per-IP limit counts: an IPv4 address, or an IPv6 address's /64, since a host is commonly given
 * a whole /64 and could otherwise take a fresh address for every request.
 */
export function limitedClient(address: string): string {
  const network = networkOf(address);
  return network?.endsWith('/64') ? network : address;
}
