import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where a webhook may point. A URL is an instruction to this server to make a request, so a
 * project admin could otherwise reach what only the server can: its loopback, the cloud metadata
 * address, the private network (server-side request forgery). Unless the operator allows private
 * destinations (PROMPTLINE_WEBHOOKS_ALLOW_PRIVATE=on), only public unicast addresses are reached:
 * checked when the URL is registered, and again on every delivery, on the addresses the name
 * resolves to then (a name can be re-pointed after registration).
 */

const MAX_URL_LENGTH = 2048;
const ALLOW_PRIVATE_HINT = 'PROMPTLINE_WEBHOOKS_ALLOW_PRIVATE=on allows it';

/** What is wrong with the URL's form, or null. */
export function urlFormProblem(raw: string): string | null {
  if (raw.length > MAX_URL_LENGTH) return `the URL is longer than ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'not an absolute URL (e.g. https://example.com/hooks/promptline)';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `the scheme must be https or http, not ${url.protocol.slice(0, -1)}`;
  // Credentials in a URL end up in listings, the audit log and proxies' logs; the signature authenticates us instead.
  if (url.username !== '' || url.password !== '') return 'the URL must not carry a user name or password: verify the Promptline-Signature header instead';
  if (url.hash !== '') return 'the URL must not have a #fragment (it is never sent)';
  return null;
}

/**
 * The kind of a non-public address ("loopback", "private", "linkLocal", …), or null when it is
 * public unicast. An IPv6 address that carries an IPv4 address is judged by the IPv4 address: the
 * network may deliver it there (a mapped address by this host's own stack, NAT64, 6to4 and Teredo
 * by a translator or relay), so `::ffff:127.0.0.1` or `64:ff9b::10.0.0.1` is no more public than
 * the address inside.
 */
export function nonPublicRange(address: string): string | null {
  if (!ipaddr.isValid(address)) return 'invalid';
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return ipv4Range(parsed as ipaddr.IPv4);
  const ipv6 = parsed as ipaddr.IPv6;
  const range = ipv6.range();
  const parts = ipv6.parts;
  const ipv4At = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  switch (range) {
    case 'ipv4Mapped':
      return ipv4Range(ipv6.toIPv4Address());
    case '6to4': // 2002:AABB:CCDD::/48 is the 6to4 site of AA.BB.CC.DD
      return ipv4Range(ipv4At(parts[1]!, parts[2]!));
    case 'teredo': {
      // 2001:0:SSSS:SSSS:flags:port:CCCC:CCCC, the client's address stored inverted.
      const server = ipv4Range(ipv4At(parts[2]!, parts[3]!));
      return server ?? ipv4Range(ipv4At(parts[6]! ^ 0xffff, parts[7]! ^ 0xffff));
    }
    case 'rfc6052':
      // 64:ff9b::/96 carries the IPv4 address in its last 32 bits. 64:ff9b:1::/48 is for local
      // use (RFC 8215): the network chooses where the IPv4 address sits, so none can be read.
      if (parts[2] !== 0) return 'nat64LocalUse';
      return ipv4Range(ipv4At(parts[6]!, parts[7]!));
    case 'unicast':
      // ::a.b.c.d, IPv4-compatible (deprecated by RFC 4291): no real destination has one.
      if (parts.slice(0, 6).every((p) => p === 0)) return ipv4Range(ipv4At(parts[6]!, parts[7]!)) ?? 'ipv4Compatible';
      return null;
    default:
      return range;
  }
}

function ipv4Range(address: ipaddr.IPv4): string | null {
  const range = address.range();
  return range === 'unicast' ? null : range;
}

/** The URL's host as an address or a name (IPv6 literals lose their brackets). */
function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

function refusal(host: string, address: string, range: string): string {
  return host === address
    ? `${address} is a ${range} address: deliveries go to public addresses only (${ALLOW_PRIVATE_HINT})`
    : `${host} resolves to ${address}, a ${range} address: deliveries go to public addresses only (${ALLOW_PRIVATE_HINT})`;
}

/**
 * Checks a URL being registered: its form, then the address it names or resolves to now. A name
 * that does not resolve yet is accepted (deliveries retry, and each is checked again).
 */
export async function registrationProblem(raw: string, allowPrivate: boolean): Promise<string | null> {
  const form = urlFormProblem(raw);
  if (form !== null || allowPrivate) return form;
  const host = hostOf(new URL(raw));
  if (net.isIP(host) !== 0) {
    const range = nonPublicRange(host);
    return range === null ? null : refusal(host, host, range);
  }
  let addresses: dns.LookupAddress[];
  try {
    addresses = await dns.promises.lookup(host, { all: true });
  } catch {
    return null;
  }
  for (const { address } of addresses) {
    const range = nonPublicRange(address);
    if (range !== null) return refusal(host, address, range);
  }
  return null;
}

/** Thrown when a delivery would reach a non-public address. */
export class DestinationRefused extends Error {}

/** Before a delivery: an address literal is checked here, since Node connects to one without any lookup. */
export function checkLiteralHost(url: URL, allowPrivate: boolean): void {
  const host = hostOf(url);
  if (allowPrivate || net.isIP(host) === 0) return;
  const range = nonPublicRange(host);
  if (range !== null) throw new DestinationRefused(refusal(host, host, range));
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http.request that resolves as usual, then refuses the connection when any
 * address is non-public. Checking what the socket will connect to (not a separate earlier lookup)
 * closes the gap a DNS answer that changes between check and connect would open.
 */
export function publicOnlyLookup(hostname: string, options: dns.LookupOptions, callback: LookupCallback): void {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    for (const { address } of addresses) {
      const range = nonPublicRange(address);
      if (range !== null) return callback(Object.assign(new DestinationRefused(refusal(hostname, address, range)), { code: 'EREFUSED_PRIVATE' }), []);
    }
    if (options.all) return callback(null, addresses);
    const first = addresses[0];
    if (first === undefined) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
    callback(null, first.address, first.family);
  });
}
