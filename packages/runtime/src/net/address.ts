// Which addresses a generated server may send requests to (docs/runtime.md, "The network policy").
//
// Threat model. A language model chooses tool arguments, and a remote server chooses DNS answers and
// redirect targets, so either can try to point a request at something only this machine can reach: the cloud
// metadata service (which hands out credentials), loopback services, the private network, or this machine's
// own public address. The same internal address can be spelled many ways, and every spelling is checked:
//
// - URL forms of IPv4 ("2130706433", "0x7f.1", "0177.0.0.1", "127.1", full-width digits, percent-encoding,
//   a trailing dot). The WHATWG URL parser turns them into dotted quads before classifyHost sees them;
//   classifyHost still refuses a name that ends in a number, in case it is ever handed a raw string.
// - Odd host names. Only [a-z0-9.-] is passed to DNS, so no resolver can read anything else into a name.
// - Literals that Node's net.isIP would not accept are refused outright, so the checks below and the socket
//   that connects later can never disagree about which address a string means.
// - Zone IDs ("fe80::1%eth0") pick a local interface and are never sent anywhere.
// - The unspecified address (0.0.0.0, ::, ::ffff:0.0.0.0) connects to this machine's loopback, so the deny list
//   judges it as 127.0.0.1 and ::1 as well (it is refused as unspecified unless private networks are allowed).
// - IPv6 addresses that carry an IPv4 address (IPv4-mapped, SIIT, IPv4-compatible, NAT64 and local-use
//   NAT64, 6to4, Teredo; see embeddedIPv4) reach that IPv4 address through a translator or a tunnel. The
//   metadata check and the deny list therefore look at every embedded form as well as the raw address.
// - Cloud metadata (169.254.0.0/16, fd00:ec2::/32, Alibaba 100.100.100.200, Azure 168.63.129.16, Oracle
//   192.0.0.192, and the IPv6 services of Google fd20:ce::254, Akamai fd00:a9fe:a9fe::1, Scaleway fd00:42::42
//   and OpenStack fe80::a9fe:a9fe) is refused before any allow rule, so not even allowPrivateNetwork() opens it.
// - This machine's own addresses (from os.networkInterfaces()) may be public and so pass every range check.
// - Range classification is done twice, by ipaddr.js and by an independent table, so a gap in either one
//   (or a change in a library upgrade) is caught by the other. Everything outside 2000::/3, and every
//   IPv4-mapped address, even a public one, is refused.
//
// Every check fails closed: anything unexpected, including an exception, refuses the address. Reasons never
// contain the address, because the caller shows them to the model.
//
// Known limit: a NAT64 translator with an operator-chosen prefix (RFC 6052 "network-specific prefix") cannot
// be recognized from the address alone. Operators who run one should put its prefix on the deny list.

import ipaddr from "ipaddr.js";
import { cutIndex } from "../call/cut.ts";
import {
  addressKey,
  builtInRange,
  embeddedIPv4,
  inRange,
  parseCidr,
  parseIpLiteral,
  unmapIPv4,
  type IpBytes,
  type IpRange,
} from "./ip.ts";

/** Thrown by createNetworkPolicy when an option is malformed. */
export class NetworkPolicyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "NetworkPolicyError";
  }
}

export interface NetworkPolicyOptions {
  /** CIDR ranges that may be reached even though they are private or reserved. Never opens cloud metadata. */
  allowPrivate?: string[];
  /** CIDR ranges that are always refused, in every spelling (see embeddedIPv4). */
  denyList?: string[];
  /**
   * This machine's own addresses, or a function that returns them at each check. Zone IDs are ignored.
   * By default they are read from os.networkInterfaces(), again whenever the last read is more than
   * LOCAL_ADDRESSES_MAX_AGE_MS old; a function is called at every check.
   */
  localAddresses?: string[] | (() => string[]);
}

/**
 * A parsed, frozen policy from createNetworkPolicy. Only policies made there are honoured: checkAddress
 * refuses every address under any other object, so a policy cannot be forged or altered after the fact.
 */
export interface NetworkPolicy {
  /** The allowPrivate ranges, normalized. */
  readonly allowPrivate: readonly string[];
  /** The deny list ranges, normalized. */
  readonly denyList: readonly string[];
}

export type AddressVerdict = { ok: true } | { ok: false; reason: string };

export type HostKind =
  { kind: "ip"; address: string } | { kind: "name"; name: string } | { kind: "invalid"; reason: string };

export const METADATA_RANGES: readonly string[] = Object.freeze([
  "169.254.0.0/16",
  "fd00:ec2::/32",
  "100.100.100.200/32",
  "168.63.129.16/32",
  "192.0.0.192/32",
  // The IPv6 metadata services of Google Compute Engine, Akamai (Linode) and Scaleway. They sit in fc00::/7,
  // refused by default as unique-local; listed here so that allowing private networks does not open them.
  "fd20:ce::254/128",
  "fd00:a9fe:a9fe::1/128",
  "fd00:42::42/128",
  // OpenStack's IPv6 metadata service, on link-local: Linux refuses a connection to it without a zone ID (which is
  // refused anyway), but a platform that picks the interface itself would reach it under allow-all.
  "fe80::a9fe:a9fe/128",
]);

// The reasons are part of the observable behaviour (the caller puts them in "Request to <host> was blocked:
// it resolves to a disallowed address (<reason>).") and never include the address.
const REASON = {
  notAnAddress: "not a valid IP address",
  zoneId: "IP address with a zone ID",
  metadata: "cloud metadata address",
  denied: "address on the deny list",
  ownAddress: "this machine's own address",
  ownAddressesUnknown: "this machine's own addresses could not be determined",
  reserved: "reserved or internal address",
  unclassifiable: "address could not be classified",
  invalidHostName: "the host name is not valid",
} as const;

const METADATA: readonly IpRange[] = METADATA_RANGES.map(builtInRange);

// Kept independent of ipaddr.js on purpose; see the header comment.
const BLOCKED: readonly IpRange[] = [
  "0.0.0.0/8",
  "10.0.0.0/8",
  "100.64.0.0/10",
  "127.0.0.0/8",
  "169.254.0.0/16",
  "172.16.0.0/12",
  "192.0.0.0/24",
  "192.0.2.0/24",
  "192.88.99.0/24",
  "192.168.0.0/16",
  "198.18.0.0/15",
  "198.51.100.0/24",
  "203.0.113.0/24",
  "224.0.0.0/4",
  "240.0.0.0/4",
  "::/128",
  "::1/128",
  "::/96",
  "::ffff:0:0/96",
  "64:ff9b::/96",
  "64:ff9b:1::/48",
  "100::/64",
  "2001::/23",
  "2001:db8::/32",
  "2002::/16",
  "3fff::/20",
  "fc00::/7",
  "fe80::/10",
  "fec0::/10",
  "ff00::/8",
  // Everything outside 2000::/3, the only block IANA allocates global unicast addresses from.
  "::/3",
  "4000::/2",
  "8000::/1",
].map(builtInRange);

/** What a connection to an unspecified address reaches: 127.0.0.1 and ::1. */
const LOOPBACK: readonly IpBytes[] = ["127.0.0.1/32", "::1/128"].map(builtInRange);

function isUnspecified(address: IpBytes): boolean {
  return address.bytes.every((byte) => byte === 0);
}

type LocalAddresses =
  | { kind: "fixed"; keys: ReadonlySet<string> }
  | { kind: "dynamic"; read: () => unknown; emptyIsUnknown: boolean; maxAgeMs: number };

/**
 * How long one read of this machine's addresses (the default, os.networkInterfaces()) answers for. Reading them
 * costs about 45-60 µs of blocking system calls, which every hop to a public address paid before (more than the
 * rest of a call's own work). A second is well inside the window the check already has: an address checked now
 * is connected to later, up to the hop's timeout, so an address this machine takes in between was never caught.
 */
export const LOCAL_ADDRESSES_MAX_AGE_MS = 1000;

/** One successful read of a dynamic list, and the verdicts that read it (they go when it goes). */
interface LocalSnapshot {
  readonly keys: ReadonlySet<string>;
  readonly readAt: number;
  readonly verdicts: Map<string, AddressVerdict>;
}

interface PolicyState {
  readonly allow: readonly IpRange[];
  readonly deny: readonly IpRange[];
  readonly local: LocalAddresses;
  /**
   * Verdicts already reached, by address text, for the addresses whose verdict cannot change: every step of
   * `decide` reads only the address and this frozen state, except the own-address step under a dynamic list
   * (the machine's addresses, read again each time), whose verdicts are never kept. A server calls the same
   * few upstream addresses over and over; a hop then pays a map lookup instead of parsing and classifying.
   */
  readonly verdicts: Map<string, AddressVerdict>;
  /** The current read of a dynamic list that may be reused (maxAgeMs > 0); the box is the mutable part. */
  readonly snapshot: { current: LocalSnapshot | null };
}

/** How many verdicts a policy keeps; past that the memory starts over (a bound, not an eviction policy). */
const MAX_KEPT_VERDICTS = 512;

// The parsed state lives here rather than on the policy object, so it cannot be changed after the policy
// is made, and an object that merely looks like a policy is not honoured.
const policyStates = new WeakMap<NetworkPolicy, PolicyState>();

/** What the CLI's --allow-private-network means. Cloud metadata and the deny list still apply. */
export function allowPrivateNetwork(): NetworkPolicyOptions {
  return { allowPrivate: ["0.0.0.0/0", "::/0"] };
}

/** Parses and freezes a policy. Throws NetworkPolicyError for any malformed entry. */
export function createNetworkPolicy(options: NetworkPolicyOptions = {}): NetworkPolicy {
  if (typeof options !== "object" || options === null) {
    throw new NetworkPolicyError("The network policy options must be an object.");
  }
  const allow = parseRanges("allowPrivate", options.allowPrivate);
  const deny = parseRanges("denyList", options.denyList);
  const local = parseLocalAddresses(options.localAddresses);
  const policy: NetworkPolicy = Object.freeze({
    allowPrivate: Object.freeze(allow.map(formatRange)),
    denyList: Object.freeze(deny.map(formatRange)),
  });
  policyStates.set(
    policy,
    Object.freeze({ allow, deny, local, verdicts: new Map<string, AddressVerdict>(), snapshot: { current: null } }),
  );
  return policy;
}

function parseRanges(option: string, entries: unknown): IpRange[] {
  if (entries === undefined) return [];
  if (!Array.isArray(entries)) {
    throw new NetworkPolicyError(`The network policy option ${option} must be a list of CIDR ranges.`);
  }
  return entries.map((entry: unknown) => {
    if (typeof entry !== "string") {
      throw new NetworkPolicyError(`The network policy option ${option} contains a value that is not a string.`);
    }
    const parsed = parseCidr(entry);
    if (!parsed.ok) throw new NetworkPolicyError(`${option} entry ${quote(entry)} ${parsed.problem}.`);
    return parsed.range;
  });
}

function parseLocalAddresses(option: unknown): LocalAddresses {
  if (option === undefined) {
    return { kind: "dynamic", read: readSystemAddresses, emptyIsUnknown: true, maxAgeMs: LOCAL_ADDRESSES_MAX_AGE_MS };
  }
  if (typeof option === "function") {
    return { kind: "dynamic", read: () => (option as () => unknown)(), emptyIsUnknown: false, maxAgeMs: 0 };
  }
  if (!Array.isArray(option)) {
    throw new NetworkPolicyError(
      "The network policy option localAddresses must be a list of IP addresses or a function that returns one.",
    );
  }
  const keys = new Set<string>();
  for (const entry of option as unknown[]) {
    if (typeof entry !== "string") {
      throw new NetworkPolicyError("The network policy option localAddresses contains a value that is not a string.");
    }
    const entryKeys = localAddressKeys(entry);
    if (entryKeys === undefined) {
      throw new NetworkPolicyError(`localAddresses entry ${quote(entry)} is not a plain IPv4 or IPv6 address.`);
    }
    for (const key of entryKeys) keys.add(key);
  }
  return { kind: "fixed", keys };
}

// A local address as Set keys: the address itself, and for an IPv4-mapped entry also the IPv4 address.
function localAddressKeys(entry: unknown): string[] | undefined {
  if (typeof entry !== "string") return undefined;
  const percent = entry.indexOf("%");
  const literal = parseIpLiteral(percent === -1 ? entry : entry.slice(0, percent));
  if (literal === undefined) return undefined;
  const mapped = unmapIPv4(literal);
  return mapped === undefined ? [addressKey(literal)] : [addressKey(literal), addressKey(mapped)];
}

/**
 * Decides whether a request may go to `address` (an IP literal as dns.lookup or classifyHost gives it).
 * The checks run in the order of the reference; the first that refuses gives the reason.
 */
export function checkAddress(address: string, policy: NetworkPolicy): AddressVerdict {
  const state = policyStates.get(policy);
  const kept =
    typeof address === "string" && state !== undefined
      ? (state.verdicts.get(address) ?? liveSnapshot(state)?.verdicts.get(address))
      : undefined;
  if (kept !== undefined) return kept;
  let decided: Decided;
  try {
    decided = decide(address, state);
  } catch {
    return refuse(REASON.unclassifiable);
  }
  // A thrown classification and a missing state are never kept; a verdict that read the machine's addresses is
  // kept with that read (and goes with it), or not at all when the read is not reused.
  const into = decided.final ? state?.verdicts : decided.snapshot?.verdicts;
  if (into !== undefined) {
    if (into.size >= MAX_KEPT_VERDICTS) into.clear();
    into.set(address, Object.freeze(decided.verdict));
  }
  return decided.verdict;
}

/**
 * A verdict, whether it depends on nothing but the address and the policy (so it may be kept), and otherwise
 * the read of the machine's addresses it depends on, when that read is reused.
 */
interface Decided {
  readonly verdict: AddressVerdict;
  readonly final: boolean;
  readonly snapshot?: LocalSnapshot | undefined;
}

function decide(address: string, state: PolicyState | undefined): Decided {
  const literal = parseIpLiteral(address);
  if (literal === undefined) return final(refuse(REASON.notAnAddress));
  if (literal.zone !== undefined) return final(refuse(REASON.zoneId));

  if (state === undefined) throw new Error("the policy was not made by createNetworkPolicy");

  const raw: IpBytes = { version: literal.version, bytes: literal.bytes };
  const embedded = embeddedIPv4(raw);
  const forms = [raw, ...embedded];
  // The unspecified address names no host: a connection to 0.0.0.0 or :: (in any spelling) goes to this machine's
  // loopback interface, so the deny list judges it as loopback too. Without this, under allow-all, 0.0.0.0 reached
  // what --deny-network 127.0.0.0/8 was meant to keep out (a fetch platform connects to it; Node's hop refused it
  // only after connecting, when the socket's address did not match).
  const reached = forms.some(isUnspecified) ? [...forms, ...LOOPBACK] : forms;

  // Metadata and the deny list come before the allow list, and look at every spelling.
  if (forms.some((form) => METADATA.some((range) => inRange(form, range)))) return final(refuse(REASON.metadata));
  if (reached.some((form) => state.deny.some((range) => inRange(form, range)))) return final(refuse(REASON.denied));

  if (isAllowed(raw, embedded, state.allow)) return final({ ok: true });

  const { keys: localKeys, snapshot } = readLocalKeys(state);
  // Under a dynamic list the machine's addresses were read, and may differ next time.
  const keep = state.local.kind === "fixed";
  const decided = (verdict: AddressVerdict): Decided => ({ verdict, final: keep, snapshot });
  // An unreadable list is never kept in any form (readLocalKeys keeps no snapshot of it).
  if (localKeys === undefined) return decided(refuse(REASON.ownAddressesUnknown));
  if (forms.some((form) => localKeys.has(addressKey(form)))) return decided(refuse(REASON.ownAddress));

  const range: unknown = ipaddr.process(canonical(raw)).range();
  if (typeof range !== "string" || !/^[A-Za-z0-9]+$/.test(range))
    return { verdict: refuse(REASON.unclassifiable), final: false };
  if (range !== "unicast") return decided(refuse(`${range} address`));

  if (BLOCKED.some((blocked) => inRange(raw, blocked))) return decided(refuse(REASON.reserved));
  return decided({ ok: true });
}

function final(verdict: AddressVerdict): Decided {
  return { verdict, final: true };
}

// The raw address inside an allowPrivate range allows it. An address that embeds IPv4 is also allowed when
// every IPv4 address it may lead to is inside one. With a single embedded address (IPv4-mapped, NAT64,
// 6to4, ...) that is "any form is allowed"; it only makes a difference where the position is ambiguous
// (local-use NAT64) or there are two addresses (Teredo), where one matching guess must not open the others.
function isAllowed(raw: IpBytes, embedded: readonly IpBytes[], allow: readonly IpRange[]): boolean {
  if (allow.length === 0) return false;
  const inAllow = (form: IpBytes): boolean => allow.some((range) => inRange(form, range));
  return inAllow(raw) || (embedded.length > 0 && embedded.every(inAllow));
}

/** The snapshot of a dynamic list that is still young enough to answer, or null (it is then dropped). */
function liveSnapshot(state: PolicyState): LocalSnapshot | null {
  const current = state.snapshot.current;
  if (current === null || state.local.kind !== "dynamic") return null;
  const age = performance.now() - current.readAt;
  if (age >= 0 && age <= state.local.maxAgeMs) return current;
  state.snapshot.current = null;
  return null;
}

/**
 * This machine's addresses as keys (undefined when they cannot be read), and the snapshot they came from when
 * the read may be reused. Only a successful read is kept, so a failure is tried again at the next check.
 */
function readLocalKeys(state: PolicyState): { keys: ReadonlySet<string> | undefined; snapshot?: LocalSnapshot } {
  const local = state.local;
  if (local.kind === "fixed") return { keys: local.keys };
  const live = liveSnapshot(state);
  if (live !== null) return { keys: live.keys, snapshot: live };
  const readAt = performance.now();
  const keys = readDynamic(local);
  if (keys === undefined || local.maxAgeMs <= 0) return { keys };
  const snapshot: LocalSnapshot = { keys, readAt, verdicts: new Map() };
  state.snapshot.current = snapshot;
  return { keys, snapshot };
}

function readDynamic(local: Extract<LocalAddresses, { kind: "dynamic" }>): ReadonlySet<string> | undefined {
  let list: unknown;
  try {
    list = local.read();
  } catch {
    return undefined;
  }
  if (!Array.isArray(list)) return undefined;
  const keys = new Set<string>();
  for (const entry of list as unknown[]) {
    // An entry that cannot be read might be the very address being checked, so it makes the list unknown.
    const entryKeys = localAddressKeys(entry);
    if (entryKeys === undefined) return undefined;
    for (const key of entryKeys) keys.add(key);
  }
  if (local.emptyIsUnknown && keys.size === 0) return undefined;
  return keys;
}

interface OsModule {
  networkInterfaces(): Record<string, readonly { address: string }[] | undefined>;
}

// Reads this machine's addresses without a static import of node:os, so that a bundle of this module also
// loads where node:os does not exist. There the read fails and every address that needs this check is
// refused with REASON.ownAddressesUnknown. A machine always has at least a loopback address, so an empty
// list also means the real one could not be read.
function readSystemAddresses(): string[] {
  const processObject: unknown = Reflect.get(globalThis, "process");
  if (typeof processObject !== "object" || processObject === null) throw new Error("no process object");
  const getBuiltinModule: unknown = Reflect.get(processObject, "getBuiltinModule");
  if (typeof getBuiltinModule !== "function") throw new Error("process.getBuiltinModule is not available");
  const os = Reflect.apply(getBuiltinModule, processObject, ["node:os"]) as Partial<OsModule> | undefined;
  if (typeof os?.networkInterfaces !== "function") throw new Error("node:os is not available");
  const addresses: string[] = [];
  for (const list of Object.values(os.networkInterfaces())) {
    for (const info of list ?? []) addresses.push(info.address);
  }
  return addresses;
}

const HOST_NAME = /^[a-z0-9.-]+$/;
// The WHATWG URL "ends in a number" rule: such a host is an IPv4 address in some notation, never a name.
const ENDS_IN_NUMBER = /(?:^|\.)(?:[0-9]+|0x[0-9a-f]*)\.?$/;

/**
 * Classifies a URL hostname as `new URL(...).hostname` gives it: an IPv4 dotted quad, a bracketed IPv6
 * literal, or a name made of [a-z0-9.-]. IP literals still have to pass checkAddress; names are resolved and
 * each answer is checked.
 */
export function classifyHost(hostname: string): HostKind {
  // A pure function of the text, asked on every hop for the same few hosts: answers are kept (bounded).
  const kept = typeof hostname === "string" ? classified.get(hostname) : undefined;
  if (kept !== undefined) return kept;
  const kind = Object.freeze(classifyHostText(hostname));
  if (typeof hostname === "string") {
    if (classified.size >= MAX_KEPT_VERDICTS) classified.clear();
    classified.set(hostname, kind);
  }
  return kind;
}

const classified = new Map<string, HostKind>();

function classifyHostText(hostname: string): HostKind {
  const invalid: HostKind = { kind: "invalid", reason: REASON.invalidHostName };
  if (typeof hostname !== "string") return invalid;
  if (hostname.startsWith("[")) {
    if (!hostname.endsWith("]")) return invalid;
    const inner = hostname.slice(1, -1);
    return parseIpLiteral(inner)?.version === 6 ? { kind: "ip", address: inner } : invalid;
  }
  if (parseIpLiteral(hostname)?.version === 4) return { kind: "ip", address: hostname };
  if (!HOST_NAME.test(hostname) || ENDS_IN_NUMBER.test(hostname)) return invalid;
  return { kind: "name", name: hostname };
}

function refuse(reason: string): AddressVerdict {
  return { ok: false, reason };
}

// The compressed text form, which contains only hex groups, so ipaddr.js reads it exactly as written.
function canonical(address: IpBytes): string {
  return ipaddr.fromByteArray([...address.bytes]).toString();
}

function formatRange(range: IpRange): string {
  return `${canonical(range)}/${range.prefix}`;
}

// Values quoted in policy errors come from code or the command line, never from a spec or the model; they
// are still cut short so a huge value cannot flood the terminal.
function quote(value: string): string {
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, cutIndex(text, 77))}..."` : text;
}
