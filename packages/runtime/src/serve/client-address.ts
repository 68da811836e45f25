/**
 * Which address a request comes from, for the per-client request limit.
 *
 * The socket's address, unless it is one of the `--trust-proxy` ranges (a load balancer or reverse proxy the
 * operator runs): then `X-Forwarded-For` is read from the right, skipping the trusted hops, and the first
 * address not in those ranges is the client. An entry that is not an IP address stops the walk there (it was
 * written by someone untrusted), and so does the header's absence. A client can put anything at the left of
 * the header; only what trusted hops appended is believed.
 */
import { inRange, parseCidr, parseIpLiteral, type IpRange, unmapIPv4 } from "../net/ip.ts";

export class TrustProxyError extends Error {
  override readonly name = "TrustProxyError";
}

export function parseTrustedRanges(cidrs: readonly string[]): IpRange[] {
  return cidrs.map((cidr) => {
    const text = cidr.includes("/") ? cidr : cidr.includes(":") ? `${cidr}/128` : `${cidr}/32`;
    const parsed = parseCidr(text);
    if (!parsed.ok) throw new TrustProxyError(`--trust-proxy ${cidr}: ${parsed.problem}`);
    return parsed.range;
  });
}

/** Whether `address` (the socket's peer) is one of the `--trust-proxy` ranges. */
export function trusted(address: string, ranges: readonly IpRange[]): boolean {
  const literal = parseIpLiteral(address.replace(/^::ffff:(?=\d+\.)/i, ""));
  return literal !== undefined && ranges.some((range) => inRange(literal, range));
}

export function clientAddress(remote: string, forwardedFor: string | undefined, ranges: readonly IpRange[]): string {
  if (ranges.length === 0 || forwardedFor === undefined || !trusted(remote, ranges)) return remote;
  const hops = forwardedFor
    .split(",")
    .map((hop) => hop.trim())
    .filter((hop) => hop !== "");
  let client = remote;
  for (let i = hops.length - 1; i >= 0; i--) {
    const address = hopAddress(hops[i]!);
    if (address === undefined) return client;
    client = address;
    if (!trusted(address, ranges)) return address;
  }
  return client;
}

/**
 * The IP address of one X-Forwarded-For entry: a bare address, or as some proxies write it, an IPv6 address in
 * brackets, or either with a port (`203.0.113.5:51234`, `[2001:db8::5]:443`). Read as not an address, an entry
 * with a port stopped the walk at the proxy, and every client behind it shared the proxy's one count.
 */
function hopAddress(hop: string): string | undefined {
  const match = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(hop) ?? /^(\d{1,3}(?:\.\d{1,3}){3}):(\d{1,5})$/.exec(hop);
  const address = match ? match[1]! : hop;
  if (match?.[2] !== undefined && Number(match[2]) > 65535) return undefined;
  return parseIpLiteral(address) === undefined ? undefined : address;
}

/**
 * The per-client limit's key for an address: an IPv4 address (IPv4-mapped IPv6 read as the IPv4 address it
 * maps) as its dotted quad, an IPv6 address as its /64. One host is routinely given a whole /64, and with a key
 * per address it could take a fresh limit for each of 2^64 addresses; and one address written two ways
 * (`203.0.113.7`, `::ffff:203.0.113.7`) would be two clients. Anything else (not an address) is its own key.
 */
export function clientKey(address: string): string {
  const literal = parseIpLiteral(address.replace(/^\[(.*)\]$/, "$1"));
  if (literal === undefined) return address;
  const ipv4 = literal.version === 4 ? literal : unmapIPv4(literal);
  if (ipv4 !== undefined) return ipv4.bytes.join(".");
  const groups: string[] = [];
  for (let i = 0; i < 8; i += 2) groups.push(((literal.bytes[i]! << 8) | literal.bytes[i + 1]!).toString(16));
  return `${groups.join(":")}::/64`;
}
