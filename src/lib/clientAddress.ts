import { isIPv6 } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * The unit a per-address throttle counts: an IPv4 address, or an IPv6 /64 (one subscriber usually
 * holds a whole /64, so counting single IPv6 addresses would let one client rotate through 2^64).
 */
export function addressGroup(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!isIPv6(address)) return address;
  const [head = '', tail = ''] = address.split('::', 2);
  const left = head === '' ? [] : head.split(':');
  const right = address.includes('::') ? (tail === '' ? [] : tail.split(':')) : [];
  const groups = address.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.toLowerCase().replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/** The names PROMPTLINE_TRUST_PROXY accepts for whole ranges (those of Express's and Fastify's `trust proxy`). */
const NAMED_RANGES: Readonly<Record<string, readonly string[]>> = {
  loopback: ['127.0.0.1/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

function parseRange(part: string): Range[] | null {
  const named = NAMED_RANGES[part];
  if (named !== undefined) return named.map((cidr) => ipaddr.parseCIDR(cidr));
  if (part.includes('/')) return ipaddr.isValidCIDR(part) ? [ipaddr.parseCIDR(part)] : null;
  if (!ipaddr.isValid(part)) return null;
  const address = ipaddr.parse(part);
  return [[address, address.kind() === 'ipv4' ? 32 : 128]];
}

/** Whether a PROMPTLINE_TRUST_PROXY list (addresses, CIDRs, named ranges, comma-separated) is valid. */
export function isTrustProxyList(raw: string): boolean {
  return raw.split(',').every((part) => parseRange(part.trim()) !== null);
}

/**
 * PROMPTLINE_TRUST_PROXY as a test of a peer's address: whether it is a proxy whose
 * X-Forwarded-For names the client. One rule for Fastify's `req.ip` and for the connection caps,
 * which see only the socket. An IPv4-mapped IPv6 peer matches the IPv4 ranges, and the reverse.
 */
export function trustedProxyTest(setting: boolean | string): (address: string) => boolean {
  if (typeof setting === 'boolean') return () => setting;
  const ranges = setting.split(',').flatMap((part) => parseRange(part.trim()) ?? []);
  return (address) => {
    if (!ipaddr.isValid(address)) return false;
    const ip = ipaddr.parse(address);
    return ranges.some(([network, bits]) => {
      if (network.kind() === ip.kind()) return ip.match(network, bits);
      if (ip.kind() === 'ipv6') {
        const v6 = ip as ipaddr.IPv6;
        return v6.isIPv4MappedAddress() && v6.toIPv4Address().match(network, bits);
      }
      return (ip as ipaddr.IPv4).toIPv4MappedAddress().match(network, bits);
    });
  };
}
