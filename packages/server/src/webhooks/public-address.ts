import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, isIPv6, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * The IPv6 forms that carry an IPv4 address, and where (D48, P64): the request reaches that IPv4
 * address (through a translator, a relay or the dual stack), so it is the one checked.
 */
const _EMBEDDING_RANGES = new Set(['ipv4Mapped', 'rfc6145', 'rfc6052', '6to4', 'teredo']);

/** 100:0:0:1::/64, the dummy IPv6 prefix (RFC 9780): in the IANA registry since 2025, not yet in ipaddr.js's ranges. */
const _DUMMY_PREFIX = ipaddr.IPv6.parse('100:0:0:1::');
/** 2000::/3, the only global unicast space IANA allocates from; the rest of IPv6 is reserved, local or multicast. */
const _GLOBAL_UNICAST = ipaddr.IPv6.parse('2000::');
/** 64:ff9b:1::/48, local-use NAT64 (RFC 8215): where its IPv4 address sits depends on the operator's layout. */
const _LOCAL_NAT64 = ipaddr.IPv6.parse('64:ff9b:1::');

/**
 * Whether an address is one a webhook (or any outbound request of the server) may reach without
 * the allowing setting (D48, P64): a globally routable unicast address, outside every range of the
 * IANA IPv4 and IPv6 special-purpose registries. ipaddr.js classifies (its `range()` names every
 * registry range but one); an IPv6 form that embeds an IPv4 address — IPv4-mapped `::ffff:0:0/96`,
 * IPv4-translated `::ffff:0:0:0/96`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`, Teredo `2001::/32` —
 * is judged by that IPv4 address (Teredo: its server and its client, the last 32 bits inverted).
 * Refused outright: `100:0:0:1::/64` (the range ipaddr.js lacks), everything outside `2000::/3`
 * (IPv4-compatible `::/96` among them: deprecated, and no route leads there), and `64:ff9b:1::/48`,
 * whose IPv4 address cannot be read without knowing the operator's layout. Anything that is not a
 * plain IPv4 or IPv6 address (`0x7f.1`, a name) is refused too: only what the connection will use
 * is judged. An IPv6 address is read as Node connects to it (a zone aside) before ipaddr.js
 * classifies it.
 *
 * @param address A resolved IPv4 address (dotted decimal) or IPv6 address, a zone allowed.
 * @returns `true` when it may be reached without the setting.
 */
export function isPublicAddress(address: string): boolean {
  if (ipaddr.IPv4.isValidFourPartDecimal(address)) return _publicV4(ipaddr.IPv4.parse(address));
  const unzoned = address.replace(/%.*$/, '');
  if (!isIPv6(unzoned)) return false;
  // Node's (and the URL standard's) reading, in hex groups only: ipaddr.js reads `::1.2.3.4`
  // (IPv4-compatible, ::102:304) as `::ffff:1.2.3.4`, which is another address.
  return _publicV6(ipaddr.IPv6.parse(new URL(`http://[${unzoned}]/`).hostname.slice(1, -1)));
}

function _publicV4(address: ipaddr.IPv4): boolean {
  return address.range() === 'unicast';
}

function _publicV6(address: ipaddr.IPv6): boolean {
  const range = address.range();
  if (_EMBEDDING_RANGES.has(range)) {
    if (address.match(_LOCAL_NAT64, 48)) return false;
    return _embeddedV4(address, range).every(_publicV4);
  }
  return range === 'unicast' && address.match(_GLOBAL_UNICAST, 3) && !address.match(_DUMMY_PREFIX, 64);
}

/** The IPv4 addresses an embedding IPv6 address leads to (6to4: bits 16–47; Teredo: its server, bits 32–63, and its client). */
function _embeddedV4(address: ipaddr.IPv6, range: string): ipaddr.IPv4[] {
  const bytes = address.toByteArray();
  const at = (offset: number) => new ipaddr.IPv4(bytes.slice(offset, offset + 4));
  if (range === '6to4') return [at(2)];
  if (range === 'teredo') return [at(4), new ipaddr.IPv4(bytes.slice(12, 16).map((byte) => byte ^ 0xff))];
  return [at(12)];
}

/** Refuses a non-public address (D48) before the connection is made (also every address a name resolves to). */
export class RefusedAddressError extends Error {
  override readonly name = 'RefusedAddressError';
}

/**
 * Refuses a URL whose host is a literal address that is not public (D48): a name is judged by
 * {@link publicLookup} when it is resolved, on the address actually connected to.
 *
 * @throws {RefusedAddressError} Naming the address.
 */
export function refuseNonPublicHost(url: URL): void {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0 && !isPublicAddress(host)) throw new RefusedAddressError(`the address ${host} is not public`);
}

/** A DNS lookup (for `http.request`'s `lookup`) that refuses every name resolving to a non-public address (D48, P52: no rebinding, the connection uses the address checked). */
export const publicLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '', 0);
    const refused = addresses.find((address) => !isPublicAddress(address.address));
    if (refused) return callback(new RefusedAddressError(`${hostname} resolves to ${refused.address}, which is not public`), '', 0);
    if (options.all) return (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
    return callback(null, addresses[0]!.address, addresses[0]!.family);
  });
};
