// Byte-level IP helpers for the address policy in address.ts.
//
// This module parses IP literals strictly, matches CIDR ranges and finds the IPv4 addresses that an IPv6
// address carries inside it. It has no dependencies on purpose: every decision here is small enough to read
// in one sitting, and none of it depends on how a library chooses to interpret unusual spellings.
// (ipaddr.js, for example, reads the IPv4-compatible literal "::a.b.c.d" as the IPv4-mapped "::ffff:a.b.c.d".)

/** An address as raw bytes: four for IPv4, sixteen for IPv6, most significant first. */
export interface IpBytes {
  readonly version: 4 | 6;
  readonly bytes: readonly number[];
}

/** A strictly parsed literal. `zone` is the text after "%" in an IPv6 literal such as "fe80::1%eth0". */
export interface IpLiteral extends IpBytes {
  readonly zone: string | undefined;
}

/** A CIDR range: the network address (with no bits set after the prefix) and the prefix length. */
export interface IpRange extends IpBytes {
  readonly prefix: number;
}

export type CidrParse = { ok: true; range: IpRange } | { ok: false; problem: string };

// One decimal octet, 0 to 255, without leading zeros. Leading zeros are refused because some parsers read
// them as octal ("0177" is 127), so two programs could disagree about which address a string names.
const DECIMAL_OCTET = "(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])";
const IPV4_DOTTED_QUAD = new RegExp(`^${DECIMAL_OCTET}(?:\\.${DECIMAL_OCTET}){3}$`);
const HEX_GROUP = /^[0-9a-fA-F]{1,4}$/;
// The characters Node's net.isIP accepts in a zone ID. A zone ID is refused later in any case; accepting the
// same set only keeps the reason the caller sees ("with a zone ID" instead of "not valid") the same as Node's.
const ZONE_ID = /^[0-9a-zA-Z.:-]+$/;
const PREFIX_LENGTH = /^(?:0|[1-9][0-9]{0,2})$/;
// The longest real literal is 45 characters plus a zone ID. The bound keeps hostile input cheap to refuse.
const MAX_LITERAL_LENGTH = 128;

/**
 * Parses an IP literal the way Node's `net.isIP` accepts them: IPv4 only as a dotted quad of decimal octets,
 * IPv6 in RFC 4291 text form (optionally ending in a dotted quad), with an optional zone ID after "%".
 * Anything else (shorthand, octal, hex or integer IPv4, brackets, spaces) gives undefined.
 */
export function parseIpLiteral(text: string): IpLiteral | undefined {
  if (typeof text !== "string" || text.length === 0 || text.length > MAX_LITERAL_LENGTH) return undefined;
  const ipv4 = parseDottedQuad(text);
  if (ipv4 !== undefined) return { version: 4, bytes: ipv4, zone: undefined };
  const percent = text.indexOf("%");
  let zone: string | undefined;
  if (percent !== -1) {
    zone = text.slice(percent + 1);
    if (!ZONE_ID.test(zone)) return undefined;
  }
  const bytes = parseIPv6(percent === -1 ? text : text.slice(0, percent));
  return bytes === undefined ? undefined : { version: 6, bytes, zone };
}

function parseDottedQuad(text: string): number[] | undefined {
  return IPV4_DOTTED_QUAD.test(text) ? text.split(".").map(Number) : undefined;
}

function parseIPv6(text: string): number[] | undefined {
  if (!text.includes(":")) return undefined;
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const [headText = "", tailText] = halves;
  const compressed = tailText !== undefined;
  // A dotted quad may only stand at the very end of the address, so the head may end in one only when
  // there is no "::" after it.
  const head = groupsToBytes(headText === "" ? [] : headText.split(":"), !compressed);
  const tail = groupsToBytes(tailText === undefined || tailText === "" ? [] : tailText.split(":"), true);
  if (head === undefined || tail === undefined) return undefined;
  if (!compressed) return head.length === 16 ? head : undefined;
  // "::" stands for at least one group of zeros.
  const present = head.length + tail.length;
  if (present > 14) return undefined;
  return [...head, ...new Array<number>(16 - present).fill(0), ...tail];
}

function groupsToBytes(groups: readonly string[], dottedQuadAtEnd: boolean): number[] | undefined {
  const bytes: number[] = [];
  for (const [index, group] of groups.entries()) {
    if (HEX_GROUP.test(group)) {
      const value = Number.parseInt(group, 16);
      bytes.push(value >> 8, value & 0xff);
      continue;
    }
    const quad = dottedQuadAtEnd && index === groups.length - 1 ? parseDottedQuad(group) : undefined;
    if (quad === undefined) return undefined;
    bytes.push(...quad);
  }
  return bytes;
}

/**
 * Parses "address/prefix" strictly. The address must be a plain literal (see parseIpLiteral) without a zone
 * ID, and no bits may be set after the prefix: "192.168.1.0/16" is refused rather than silently read as
 * 192.168.0.0/16, because a typo in an allow list must not quietly open a larger range than was meant.
 */
export function parseCidr(text: string): CidrParse {
  if (typeof text !== "string") return { ok: false, problem: "is not a string" };
  const parts = text.split("/");
  const [addressText, prefixText] = parts;
  if (parts.length !== 2 || addressText === undefined || prefixText === undefined) {
    return {
      ok: false,
      problem: 'is not a CIDR range (write an address, "/" and a prefix length, like 10.0.0.0/8 or fc00::/7)',
    };
  }
  const literal = parseIpLiteral(addressText);
  if (literal === undefined) {
    return { ok: false, problem: "does not start with a plain IPv4 or IPv6 address (like 10.0.0.0/8 or fc00::/7)" };
  }
  if (literal.zone !== undefined) return { ok: false, problem: "has a zone ID, which a range cannot have" };
  const maxPrefix = literal.bytes.length * 8;
  const prefix = PREFIX_LENGTH.test(prefixText) ? Number(prefixText) : Number.NaN;
  if (!(prefix >= 0 && prefix <= maxPrefix)) {
    return { ok: false, problem: `has an invalid prefix length (use 0 to ${maxPrefix} for IPv${literal.version})` };
  }
  const network = maskBytes(literal.bytes, prefix);
  if (network.some((byte, index) => byte !== literal.bytes[index])) {
    return { ok: false, problem: "has bits set after its prefix length (write the network address of the range)" };
  }
  return { ok: true, range: { version: literal.version, bytes: literal.bytes, prefix } };
}

/** Parses a CIDR that is part of this module's own tables; a failure is a programming error. */
export function builtInRange(text: string): IpRange {
  const parsed = parseCidr(text);
  if (!parsed.ok) throw new Error(`Built-in range ${text} ${parsed.problem}.`);
  return parsed.range;
}

function maskBytes(bytes: readonly number[], prefix: number): number[] {
  return bytes.map((byte, index) => {
    const bitsKept = Math.min(8, Math.max(0, prefix - index * 8));
    return byte & ((0xff << (8 - bitsKept)) & 0xff);
  });
}

/** Whether the address is inside the range. An IPv4 address is never inside an IPv6 range, nor the reverse. */
export function inRange(address: IpBytes, range: IpRange): boolean {
  if (address.version !== range.version || address.bytes.length !== range.bytes.length) return false;
  const masked = maskBytes(address.bytes, range.prefix);
  return masked.every((byte, index) => byte === range.bytes[index]);
}

/** A string that is equal for equal addresses, for use as a Set key. */
export function addressKey(address: IpBytes): string {
  return `${address.version}/${address.bytes.join(".")}`;
}

function ipv4(bytes: readonly number[], indexes: readonly number[]): IpBytes {
  return { version: 4, bytes: indexes.map((index) => byteAt(bytes, index)) };
}

function byteAt(bytes: readonly number[], index: number): number {
  const byte = bytes[index];
  if (byte === undefined) throw new Error("address is shorter than expected");
  return byte;
}

function startsWith(bytes: readonly number[], prefix: readonly number[]): boolean {
  return prefix.every((byte, index) => bytes[index] === byte);
}

// RFC 6052 section 2.2: where the IPv4 address sits for each prefix length. Bits 64 to 71 (byte 8, the
// "u" octet) are never used, so the address skips over it.
const RFC6052_POSITIONS: readonly (readonly number[])[] = [
  [4, 5, 6, 7], // /32
  [5, 6, 7, 9], // /40
  [6, 7, 9, 10], // /48
  [7, 9, 10, 11], // /56
  [9, 10, 11, 12], // /64
  [12, 13, 14, 15], // /96
];

const ZEROS_10 = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
const IPV4_MAPPED = [...ZEROS_10, 0xff, 0xff]; // ::ffff:0:0/96
const SIIT = [0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0]; // ::ffff:0:0:0/96 (RFC 6145 IPv4-translated)
const IPV4_COMPATIBLE = [...ZEROS_10, 0, 0]; // ::/96
const NAT64_WELL_KNOWN = [0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0]; // 64:ff9b::/96
const NAT64_BLOCK = [0, 0x64, 0xff, 0x9b]; // 64:ff9b::/32, which holds the local-use 64:ff9b:1::/48
const SIX_TO_FOUR = [0x20, 0x02]; // 2002::/16
const TEREDO = [0x20, 0x01, 0, 0]; // 2001::/32

/**
 * Every IPv4 address that a packet to this IPv6 address could end up at, through a translator or tunnel:
 *
 * - IPv4-mapped `::ffff:0:0/96`, SIIT `::ffff:0:0:0/96` and IPv4-compatible `::/96`: the last 32 bits.
 *   (`::` and `::1` are included as 0.0.0.0 and 0.0.0.1; both mean this host, so nothing is lost.)
 * - NAT64 well-known prefix `64:ff9b::/96`: the last 32 bits (RFC 6052 allows only /96 for it).
 * - the rest of `64:ff9b::/32`, which holds the local-use prefix `64:ff9b:1::/48` (RFC 8215): an operator
 *   may carve a /48, /56, /64 or /96 out of it, and the prefix length cannot be seen in the address, so the
 *   IPv4 address is read at every RFC 6052 position (/32 to /96, skipping the u octet).
 * - 6to4 `2002::/16`: bits 16 to 47.
 * - Teredo `2001::/32`: the server (bits 32 to 63) and the client, stored inverted in the last 32 bits.
 *
 * An IPv4 address gives an empty list.
 */
export function embeddedIPv4(address: IpBytes): IpBytes[] {
  if (address.version !== 6) return [];
  const bytes = address.bytes;
  const last32 = [12, 13, 14, 15];
  if (startsWith(bytes, IPV4_MAPPED) || startsWith(bytes, SIIT) || startsWith(bytes, IPV4_COMPATIBLE)) {
    return [ipv4(bytes, last32)];
  }
  if (startsWith(bytes, NAT64_WELL_KNOWN)) return [ipv4(bytes, last32)];
  if (startsWith(bytes, NAT64_BLOCK)) return RFC6052_POSITIONS.map((position) => ipv4(bytes, position));
  if (startsWith(bytes, SIX_TO_FOUR)) return [ipv4(bytes, [2, 3, 4, 5])];
  if (startsWith(bytes, TEREDO)) {
    const server = ipv4(bytes, [4, 5, 6, 7]);
    const client: IpBytes = { version: 4, bytes: last32.map((index) => byteAt(bytes, index) ^ 0xff) };
    return [server, client];
  }
  return [];
}

/** The IPv4 address inside an IPv4-mapped address (::ffff:a.b.c.d), or undefined for any other address. */
export function unmapIPv4(address: IpBytes): IpBytes | undefined {
  return address.version === 6 && startsWith(address.bytes, IPV4_MAPPED)
    ? ipv4(address.bytes, [12, 13, 14, 15])
    : undefined;
}
