// Tests for the address policy (docs/runtime.md, "The network policy"; the address-edges, metadata-embedded and
// network tests a compatible compiler must pass). Each table lists a spelling and the exact verdict, because the reason text is
// part of the observable behaviour. Addresses embedding IPv4 are written out by hand, with the bytes in a
// comment, so that the tests do not share a helper (and its bugs) with the code under test.

import { createRequire } from "node:module";
import os from "node:os";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  allowPrivateNetwork,
  checkAddress,
  classifyHost,
  createNetworkPolicy,
  LOCAL_ADDRESSES_MAX_AGE_MS,
  METADATA_RANGES,
  NetworkPolicyError,
  type AddressVerdict,
  type HostKind,
  type NetworkPolicy,
} from "../../packages/runtime/src/net/address.ts";

const OK: AddressVerdict = { ok: true };
const no = (reason: string): AddressVerdict => ({ ok: false, reason });

const METADATA = no("cloud metadata address");
const DENIED = no("address on the deny list");
const RESERVED = no("reserved or internal address");
const OWN = no("this machine's own address");
const OWN_UNKNOWN = no("this machine's own addresses could not be determined");
const INVALID = no("not a valid IP address");
const ZONE = no("IP address with a zone ID");
const UNCLASSIFIABLE = no("address could not be classified");

// Tests inject this machine's addresses, so that they do not depend on the machine they run on.
const strict = createNetworkPolicy({ localAddresses: [] });
const allowAll = createNetworkPolicy({ ...allowPrivateNetwork(), localAddresses: [] });

interface Case {
  given: string;
  want: AddressVerdict;
}

afterEach(() => {
  vi.restoreAllMocks();
});

// 169.254.169.254 is a9fe:a9fe, 100.100.100.200 is 6464:64c8, 168.63.129.16 is a83f:8110 and
// 192.0.0.192 is c000:c0.
const metadataSpellings: Case[] = [
  { given: "169.254.169.254", want: METADATA },
  { given: "169.254.0.1", want: METADATA },
  { given: "169.254.170.2", want: METADATA },
  { given: "100.100.100.200", want: METADATA }, // Alibaba
  { given: "168.63.129.16", want: METADATA }, // Azure
  { given: "192.0.0.192", want: METADATA }, // Oracle
  { given: "fd00:ec2::254", want: METADATA }, // AWS over IPv6
  { given: "FD00:EC2::254", want: METADATA },
  { given: "fd00:ec2:0:0:0:0:0:254", want: METADATA },
  // The other clouds' IPv6 metadata services: unique-local, so refused by default, but allow-all opened them.
  { given: "fd20:ce::254", want: METADATA }, // Google Compute Engine (IPv6-only instances)
  { given: "fd00:a9fe:a9fe::1", want: METADATA }, // Akamai (Linode)
  { given: "fd00:42::42", want: METADATA }, // Scaleway
  { given: "fe80::a9fe:a9fe", want: METADATA }, // OpenStack (link-local)
  // IPv4-mapped, dotted and hex.
  { given: "::ffff:169.254.169.254", want: METADATA },
  { given: "::ffff:a9fe:a9fe", want: METADATA },
  { given: "::FFFF:A9FE:A9FE", want: METADATA },
  { given: "0:0:0:0:0:ffff:a9fe:a9fe", want: METADATA },
  { given: "::ffff:6464:64c8", want: METADATA },
  { given: "::ffff:a83f:8110", want: METADATA },
  { given: "::ffff:192.0.0.192", want: METADATA },
  // SIIT (::ffff:0:0:0/96).
  { given: "::ffff:0:a9fe:a9fe", want: METADATA },
  { given: "::ffff:0:169.254.169.254", want: METADATA },
  // IPv4-compatible (::/96).
  { given: "::a9fe:a9fe", want: METADATA },
  { given: "::169.254.169.254", want: METADATA },
  { given: "::6464:64c8", want: METADATA },
  // NAT64 well-known prefix (64:ff9b::/96).
  { given: "64:ff9b::a9fe:a9fe", want: METADATA },
  { given: "64:ff9b::169.254.169.254", want: METADATA },
  { given: "64:ff9b::6464:64c8", want: METADATA }, // Alibaba
  { given: "64:ff9b::a83f:8110", want: METADATA }, // Azure
  { given: "64:ff9b::c000:c0", want: METADATA }, // Oracle
  // Local-use NAT64 (64:ff9b:1::/48) at each RFC 6052 prefix length. Byte 8 (the u octet) is skipped.
  { given: "64:ff9b:1:a9fe:a9:fe00::", want: METADATA }, // /48: bytes 6,7 = a9 fe; 9,10 = a9 fe
  { given: "64:ff9b:1:a9:fe:a9fe::", want: METADATA }, // /56: byte 7 = a9; 9,10,11 = fe a9 fe
  { given: "64:ff9b:1:0:a9:fea9:fe00:0", want: METADATA }, // /64: bytes 9..12 = a9 fe a9 fe
  { given: "64:ff9b:1::a9fe:a9fe", want: METADATA }, // /96: bytes 12..15
  // Alibaba's single address (6464:64c8) at each position, so that no other position can catch it by chance
  // the way the /16 of 169.254 can.
  { given: "64:ff9b:1:6464:64:c800::", want: METADATA }, // /48
  { given: "64:ff9b:1:64:64:64c8::", want: METADATA }, // /56
  { given: "64:ff9b:1:0:64:6464:c800:0", want: METADATA }, // /64
  { given: "64:ff9b:1::6464:64c8", want: METADATA }, // /96
  { given: "64:ff9b:1:0:a8:3f81:1000:0", want: METADATA }, // Azure at /64
  // A /32 or /40 prefix cannot lie inside the /48 (bytes 4 and 5 are 00 01 there), so those positions are
  // tested in the rest of 64:ff9b::/32, where a misused prefix could put them.
  { given: "64:ff9b:a9fe:a9fe::", want: METADATA }, // /32: bytes 4..7
  { given: "64:ff9b:a9:fea9:fe::", want: METADATA }, // /40: bytes 5,6,7 = a9 fe a9; 9 = fe
  { given: "64:ff9b:6464:64c8::", want: METADATA }, // Alibaba at /32
  { given: "64:ff9b:64:6464:c8::", want: METADATA }, // Alibaba at /40
  // 6to4 (2002::/16): bits 16 to 47.
  { given: "2002:a9fe:a9fe::", want: METADATA },
  { given: "2002:a9fe:a9fe:1::1", want: METADATA },
  { given: "2002:6464:64c8::1", want: METADATA },
  // Teredo (2001::/32): the server in bits 32 to 63, the client inverted in the last 32 bits.
  { given: "2001:0:a9fe:a9fe::1", want: METADATA },
  { given: "2001:0:4136:e378:8000:63bf:5601:5601", want: METADATA }, // a9fe:a9fe xor ffff:ffff
  { given: "2001:0:4136:e378::9b9b:9b37", want: METADATA }, // Alibaba client
];

describe("cloud metadata", () => {
  it.each(metadataSpellings)("refuses $given", ({ given, want }) => {
    expect(checkAddress(given, strict)).toEqual(want);
  });

  it.each(metadataSpellings)("refuses $given under allow-all", ({ given, want }) => {
    expect(checkAddress(given, allowAll)).toEqual(want);
  });

  it("refuses metadata even when an allow rule names it exactly", () => {
    const policy = createNetworkPolicy({
      allowPrivate: ["169.254.169.254/32", "fd00:ec2::/32", "64:ff9b::/96"],
      localAddresses: [],
    });
    expect(checkAddress("169.254.169.254", policy)).toEqual(METADATA);
    expect(checkAddress("fd00:ec2::254", policy)).toEqual(METADATA);
    expect(checkAddress("64:ff9b::a9fe:a9fe", policy)).toEqual(METADATA);
  });

  it("exports the metadata ranges, frozen", () => {
    expect(METADATA_RANGES).toEqual([
      "169.254.0.0/16",
      "fd00:ec2::/32",
      "100.100.100.200/32",
      "168.63.129.16/32",
      "192.0.0.192/32",
      "fd20:ce::254/128",
      "fd00:a9fe:a9fe::1/128",
      "fd00:42::42/128",
      "fe80::a9fe:a9fe/128",
    ]);
    expect(Object.isFrozen(METADATA_RANGES)).toBe(true);
  });
});

describe("internal and reserved addresses (strict policy)", () => {
  const cases: Case[] = [
    { given: "0.0.0.0", want: no("unspecified address") },
    { given: "0.1.2.3", want: no("unspecified address") },
    { given: "127.0.0.1", want: no("loopback address") },
    { given: "127.1.2.3", want: no("loopback address") },
    { given: "127.255.255.254", want: no("loopback address") },
    { given: "10.0.0.1", want: no("private address") },
    { given: "172.16.0.1", want: no("private address") },
    { given: "172.31.255.255", want: no("private address") },
    { given: "192.168.1.1", want: no("private address") },
    { given: "100.64.0.1", want: no("carrierGradeNat address") },
    { given: "198.18.0.1", want: no("reserved address") }, // benchmarking
    { given: "198.19.255.255", want: no("reserved address") },
    { given: "192.0.2.1", want: no("reserved address") },
    { given: "198.51.100.7", want: no("reserved address") },
    { given: "203.0.113.9", want: no("reserved address") },
    { given: "192.0.0.8", want: no("reserved address") },
    { given: "192.88.99.1", want: no("reserved address") },
    { given: "240.0.0.1", want: no("reserved address") },
    { given: "255.255.255.255", want: no("broadcast address") },
    { given: "224.0.0.1", want: no("multicast address") },
    { given: "239.255.255.250", want: no("multicast address") },
    { given: "::", want: no("unspecified address") },
    { given: "0:0:0:0:0:0:0:0", want: no("unspecified address") },
    { given: "::1", want: no("loopback address") },
    { given: "0:0:0:0:0:0:0:1", want: no("loopback address") },
    { given: "fe80::1", want: no("linkLocal address") },
    { given: "FE80::1", want: no("linkLocal address") },
    { given: "fe80::1%eth0", want: ZONE },
    { given: "fe80::1%25eth0", want: ZONE },
    { given: "fe80::1%1", want: ZONE },
    { given: "2606:4700::1111%eth0", want: ZONE },
    { given: "ff02::1", want: no("multicast address") },
    { given: "ff05::2", want: no("multicast address") },
    { given: "fc00::1", want: no("uniqueLocal address") },
    { given: "fd12:3456:789a::1", want: no("uniqueLocal address") },
    { given: "fec0::1", want: no("deprecatedSiteLocal address") },
    { given: "100::1", want: no("discard address") },
    { given: "2001:db8::", want: no("reserved address") },
    { given: "2001:db8::1", want: no("reserved address") },
    { given: "3fff::1", want: no("reserved address") },
    { given: "5f00::1", want: no("segmentRouting address") },
    { given: "2001:2::1", want: no("benchmarking address") },
    { given: "2001:100::1", want: no("reserved address") },
    // IPv4-mapped: unwrapped for the range check, and then refused as a whole even when public.
    { given: "::ffff:127.0.0.1", want: no("loopback address") },
    { given: "::ffff:7f00:1", want: no("loopback address") },
    { given: "::ffff:10.0.0.1", want: no("private address") },
    { given: "::ffff:93.184.216.34", want: RESERVED },
    { given: "::ffff:5db8:d822", want: RESERVED },
    // IPv4-compatible: "::127.0.0.1" is ::7f00:1, not the IPv4-mapped address some parsers read it as.
    { given: "::127.0.0.1", want: RESERVED },
    { given: "::7f00:1", want: RESERVED },
    { given: "::5db8:d822", want: RESERVED },
    // Translation and tunnel prefixes.
    { given: "64:ff9b::7f00:1", want: no("rfc6052 address") },
    { given: "64:ff9b::5db8:d822", want: no("rfc6052 address") },
    { given: "64:ff9b:1::5db8:d822", want: no("rfc6052 address") },
    { given: "64:ff9b:2::1", want: RESERVED },
    { given: "::ffff:0:7f00:1", want: no("rfc6145 address") },
    { given: "2002:7f00:1::", want: no("6to4 address") },
    { given: "2002:5db8:d822::1", want: no("6to4 address") },
    { given: "2001:0:4136:e378:8000:63bf:3fff:fdd2", want: no("teredo address") },
    // Outside 2000::/3.
    { given: "1000::1", want: RESERVED },
    { given: "4000::1", want: RESERVED },
    { given: "8000::1", want: RESERVED },
    { given: "e000::1", want: RESERVED },
  ];
  it.each(cases)("$given → $want.reason", ({ given, want }) => {
    expect(checkAddress(given, strict)).toEqual(want);
  });
});

describe("public addresses", () => {
  const publicAddresses = [
    "93.184.216.34",
    "8.8.8.8",
    "1.1.1.1",
    "11.0.0.1",
    "2606:4700::1111",
    "2606:4700:0:0:0:0:0:1111",
    "2001:4860:4860::8888",
    "2a00:1450:4001:81c::200e",
  ];
  it.each(publicAddresses)("accepts %s when it is not this machine's", (given) => {
    expect(checkAddress(given, strict)).toEqual(OK);
  });
});

describe("strict IP parsing", () => {
  const notAddresses = [
    "",
    " ",
    "1.2.3",
    "1.2.3.4.5",
    "01.2.3.4",
    "0177.0.0.1",
    "0x7f.0.0.1",
    "0x7f000001",
    "2130706433",
    "127.1",
    "256.1.1.1",
    "1.2.3.-4",
    " 1.2.3.4",
    "1.2.3.4 ",
    "1.2.3.4\n",
    "１２７.０.０.１",
    "1.2.3.4%eth0",
    "1.2.3.4/32",
    "[::1]",
    "::1::",
    ":::",
    ":1::",
    "1:2:3:4:5:6:7:8:9",
    "1:2:3:4:5:6:7:8::",
    "1:2:3:4::5:6:7:8",
    "12345::",
    "g::1",
    "::ffff:1.2.3",
    "::ffff:01.2.3.4",
    "1.2.3.4::",
    "1:2:3:4:5:6::1.2.3.4",
    "::1.2.3.4:5",
    "fe80::1%",
    "fe80::1%eth 0",
    "localhost",
    "example.com",
    "1".repeat(10_000),
  ];
  it.each(notAddresses)("refuses %j", (given) => {
    expect(checkAddress(given, strict)).toEqual(INVALID);
    expect(checkAddress(given, allowAll)).toEqual(INVALID);
  });

  it.each([42, null, undefined, {}])("refuses the non-string %j", (given) => {
    expect(checkAddress(given as unknown as string, allowAll)).toEqual(INVALID);
  });
});

describe("allowPrivate", () => {
  it.each<Case>([
    { given: "127.0.0.1", want: OK },
    { given: "10.1.2.3", want: OK },
    { given: "192.168.0.10", want: OK },
    { given: "::1", want: OK },
    { given: "fe80::1", want: OK },
    { given: "fd12::1", want: OK },
    { given: "::ffff:127.0.0.1", want: OK },
    { given: "::ffff:93.184.216.34", want: OK },
    { given: "0.0.0.0", want: OK },
    { given: "93.184.216.34", want: OK },
    { given: "fe80::1%eth0", want: ZONE },
    { given: "127.1", want: INVALID },
    { given: "169.254.169.254", want: METADATA },
  ])("allow-all: $given", ({ given, want }) => {
    expect(checkAddress(given, allowAll)).toEqual(want);
  });

  const tenOnly = createNetworkPolicy({ allowPrivate: ["10.0.0.0/8"], localAddresses: [] });
  it.each<Case>([
    { given: "10.1.2.3", want: OK },
    { given: "::ffff:10.1.2.3", want: OK },
    { given: "64:ff9b::a01:203", want: OK }, // NAT64 of 10.1.2.3
    { given: "127.0.0.1", want: no("loopback address") },
    { given: "172.16.0.1", want: no("private address") },
    { given: "::1", want: no("loopback address") },
    { given: "11.0.0.1", want: OK },
    // Teredo: server 10.1.2.3, client 10.0.0.1 (f5ff:fffe inverted) are both allowed...
    { given: "2001:0:a01:203::f5ff:fffe", want: OK },
    // ...but with the client at 93.184.216.34 (a247:27dd inverted) one allowed guess must not open it.
    { given: "2001:0:a01:203::a247:27dd", want: no("teredo address") },
    // Local-use NAT64 has 10.1.2.3 only at the /96 position; the /32 position reads 0.1.0.0.
    { given: "64:ff9b:1::a01:203", want: no("rfc6052 address") },
  ])("10.0.0.0/8 only: $given", ({ given, want }) => {
    expect(checkAddress(given, tenOnly)).toEqual(want);
  });

  it("is exact about its ranges", () => {
    const policy = createNetworkPolicy({ allowPrivate: ["127.0.0.1/32", "fc00::/8"], localAddresses: [] });
    expect(checkAddress("127.0.0.1", policy)).toEqual(OK);
    expect(checkAddress("127.0.0.2", policy)).toEqual(no("loopback address"));
    expect(checkAddress("fc00::5", policy)).toEqual(OK);
    expect(checkAddress("fd00::5", policy)).toEqual(no("uniqueLocal address"));
    expect(checkAddress("::1", policy)).toEqual(no("loopback address"));
  });

  it("allowPrivateNetwork() gives allow-all and a fresh object each time", () => {
    const first = allowPrivateNetwork();
    expect(first).toEqual({ allowPrivate: ["0.0.0.0/0", "::/0"] });
    first.allowPrivate?.push("10.0.0.0/8");
    expect(allowPrivateNetwork()).toEqual({ allowPrivate: ["0.0.0.0/0", "::/0"] });
  });
});

describe("deny list", () => {
  // 93.184.216.34 is 5db8:d822.
  const spellings: Case[] = [
    { given: "93.184.216.34", want: DENIED },
    { given: "93.184.216.1", want: DENIED },
    { given: "::ffff:93.184.216.34", want: DENIED },
    { given: "::ffff:5db8:d822", want: DENIED },
    { given: "::ffff:0:5db8:d822", want: DENIED }, // SIIT
    { given: "::5db8:d822", want: DENIED }, // IPv4-compatible
    { given: "::93.184.216.34", want: DENIED },
    { given: "64:ff9b::5db8:d822", want: DENIED }, // NAT64
    { given: "64:ff9b:1::5db8:d822", want: DENIED }, // local-use NAT64 at /96
    { given: "64:ff9b:1:0:5d:b8d8:2200:0", want: DENIED }, // local-use NAT64 at /64
    { given: "2002:5db8:d822::1", want: DENIED }, // 6to4
    { given: "2001:0:4136:e378:8000:63bf:a247:27dd", want: DENIED }, // Teredo client, inverted
    { given: "2001:0:5db8:d822::1", want: DENIED }, // Teredo server
    { given: "93.184.217.34", want: OK },
    { given: "2606:4700::1111", want: DENIED },
    { given: "2606:4701::1", want: OK },
  ];
  const denyOptions = { denyList: ["93.184.216.0/24", "2606:4700::/32"], localAddresses: [] };

  it.each(spellings)("denies $given in every spelling", ({ given, want }) => {
    expect(checkAddress(given, createNetworkPolicy(denyOptions))).toEqual(want);
  });

  it.each(spellings)("denies $given under allow-all too", ({ given, want }) => {
    expect(checkAddress(given, createNetworkPolicy({ ...allowPrivateNetwork(), ...denyOptions }))).toEqual(want);
  });

  // A connection to 0.0.0.0 or :: goes to this machine's loopback interface (Linux and macOS): the kernel reads
  // the unspecified address as "this host". Refused by default as unspecified; under allow-all, a deny list that
  // names loopback must refuse them too, or 0.0.0.0 reaches what 127.0.0.0/8 was meant to keep out.
  it.each([
    "0.0.0.0",
    "::",
    "0:0:0:0:0:0:0:0",
    "::ffff:0.0.0.0", // IPv4-mapped 0.0.0.0, which a dual-stack socket connects to 127.0.0.1
    "::ffff:0:0",
    "::ffff:0:0:0", // SIIT
  ])("judges %s as the loopback it connects to", (given) => {
    for (const denyList of [["127.0.0.0/8"], ["::1/128"]]) {
      const policy = createNetworkPolicy({ ...allowPrivateNetwork(), denyList, localAddresses: [] });
      expect(checkAddress(given, policy), denyList[0]).toEqual(DENIED);
    }
    // Without a loopback entry they stay allowed under allow-all, as before.
    const other = createNetworkPolicy({ ...allowPrivateNetwork(), denyList: ["10.0.0.0/8"], localAddresses: [] });
    expect(checkAddress(given, other)).toEqual(OK);
  });

  it("comes after metadata and before the allow list", () => {
    const policy = createNetworkPolicy({
      allowPrivate: ["10.0.0.0/8"],
      denyList: ["10.0.0.0/24", "169.254.0.0/16"],
      localAddresses: [],
    });
    expect(checkAddress("10.0.0.5", policy)).toEqual(DENIED);
    expect(checkAddress("10.0.1.5", policy)).toEqual(OK);
    expect(checkAddress("169.254.169.254", policy)).toEqual(METADATA);
  });
});

describe("this machine's addresses", () => {
  const local = ["93.184.216.34", "2606:4700::1111", "fe80::1%eth0", "10.0.0.5", "::ffff:8.8.4.4"];
  const policy = createNetworkPolicy({ localAddresses: local });

  it.each<Case>([
    { given: "93.184.216.34", want: OWN },
    { given: "::ffff:93.184.216.34", want: OWN },
    { given: "64:ff9b::5db8:d822", want: OWN },
    { given: "2606:4700::1111", want: OWN },
    { given: "2606:4700:0:0:0:0:0:1111", want: OWN },
    { given: "2606:4700::1112", want: OK },
    { given: "8.8.4.4", want: OWN }, // listed IPv4-mapped, compared unwrapped
    { given: "10.0.0.5", want: OWN }, // before the range check
    { given: "fe80::1", want: OWN }, // the zone is stripped from the list
    { given: "93.184.216.35", want: OK },
  ])("$given → $want.reason", ({ given, want }) => {
    expect(checkAddress(given, policy)).toEqual(want);
  });

  it("reads a function at every check", () => {
    let current = ["93.184.216.34"];
    const dynamic = createNetworkPolicy({ localAddresses: () => current });
    expect(checkAddress("93.184.216.34", dynamic)).toEqual(OWN);
    current = ["93.184.216.35"];
    expect(checkAddress("93.184.216.34", dynamic)).toEqual(OK);
    current = [];
    expect(checkAddress("93.184.216.34", dynamic)).toEqual(OK);
  });

  it.each<{ name: string; read: () => string[] }>([
    {
      name: "throws",
      read: () => {
        throw new Error("no access");
      },
    },
    { name: "returns a non-list", read: () => "93.184.216.34" as unknown as string[] },
    { name: "returns a non-address", read: () => ["93.184.216.35", "not an address"] },
    { name: "returns a non-string", read: () => [42] as unknown as string[] },
  ])("fails closed when the function $name", ({ read }) => {
    const policy = createNetworkPolicy({ localAddresses: read });
    expect(checkAddress("93.184.216.34", policy)).toEqual(OWN_UNKNOWN);
    // Metadata and the deny list are decided before the list is needed.
    expect(checkAddress("169.254.169.254", policy)).toEqual(METADATA);
  });

  it("is not consulted under allow-all, which comes first in the reference order", () => {
    const policy = createNetworkPolicy({ ...allowPrivateNetwork(), localAddresses: local });
    expect(checkAddress("93.184.216.34", policy)).toEqual(OK);
    const unreadable = createNetworkPolicy({
      ...allowPrivateNetwork(),
      localAddresses: () => {
        throw new Error("no access");
      },
    });
    expect(checkAddress("127.0.0.1", unreadable)).toEqual(OK);
  });

  // One interface list as os.networkInterfaces() gives it.
  const interfaces = (...addresses: string[]): ReturnType<typeof os.networkInterfaces> => ({
    eth0: addresses.map((address) => ({
      address,
      netmask: "255.255.255.0",
      family: "IPv4" as const,
      mac: "00:00:00:00:00:00",
      internal: false,
      cidr: `${address}/24`,
    })),
  });

  it("defaults to os.networkInterfaces(), read again once the last read is more than a second old", () => {
    let now = 1_000;
    vi.spyOn(performance, "now").mockImplementation(() => now);
    const read = vi.spyOn(os, "networkInterfaces").mockReturnValue(interfaces("93.184.216.34"));
    const policy = createNetworkPolicy();
    expect(checkAddress("93.184.216.34", policy)).toEqual(OWN);
    expect(checkAddress("93.184.216.35", policy)).toEqual(OK);
    now += LOCAL_ADDRESSES_MAX_AGE_MS;
    expect(checkAddress("93.184.216.34", policy)).toEqual(OWN);
    expect(checkAddress("93.184.216.36", policy)).toEqual(OK);
    expect(read).toHaveBeenCalledTimes(1);

    // The machine takes another address: past the age, the list is read again and every verdict that read the
    // old one is gone with it, the refusal and the permission alike.
    read.mockReturnValue(interfaces("93.184.216.35"));
    now += 1;
    expect(checkAddress("93.184.216.35", policy)).toEqual(OWN);
    expect(checkAddress("93.184.216.34", policy)).toEqual(OK);
    expect(read).toHaveBeenCalledTimes(2);
  });

  it("reads the interfaces again when the clock goes back", () => {
    let now = 5_000;
    vi.spyOn(performance, "now").mockImplementation(() => now);
    const read = vi.spyOn(os, "networkInterfaces").mockReturnValue(interfaces("93.184.216.34"));
    const policy = createNetworkPolicy();
    expect(checkAddress("93.184.216.35", policy)).toEqual(OK);
    read.mockReturnValue(interfaces("93.184.216.35"));
    now -= 1;
    expect(checkAddress("93.184.216.35", policy)).toEqual(OWN);
  });

  it("keeps no failed read: the next check reads again", () => {
    vi.spyOn(performance, "now").mockReturnValue(1_000);
    const read = vi.spyOn(os, "networkInterfaces").mockImplementation(() => {
      throw new Error("EACCES");
    });
    const policy = createNetworkPolicy();
    expect(checkAddress("93.184.216.34", policy)).toEqual(OWN_UNKNOWN);
    read.mockReturnValue(interfaces("93.184.216.35"));
    expect(checkAddress("93.184.216.34", policy)).toEqual(OK);
    expect(checkAddress("93.184.216.35", policy)).toEqual(OWN);
    read.mockReturnValue({});
    // Within the age the good read answers; an empty list read now would have meant "unknown".
    expect(checkAddress("93.184.216.35", policy)).toEqual(OWN);
  });

  it("keeps each policy's read to itself", () => {
    vi.spyOn(performance, "now").mockReturnValue(1_000);
    const read = vi.spyOn(os, "networkInterfaces").mockReturnValue(interfaces("93.184.216.34"));
    const first = createNetworkPolicy();
    expect(checkAddress("93.184.216.35", first)).toEqual(OK);
    read.mockReturnValue(interfaces("93.184.216.35"));
    expect(checkAddress("93.184.216.35", createNetworkPolicy())).toEqual(OWN);
    expect(checkAddress("93.184.216.35", first)).toEqual(OK);
  });

  it("refuses this machine's real addresses by default", () => {
    const policy = createNetworkPolicy();
    const real = Object.values(os.networkInterfaces())
      .flatMap((list) => list ?? [])
      .map((info) => info.address);
    expect(real.length).toBeGreaterThan(0);
    for (const address of real) expect(checkAddress(address, policy)).toEqual(OWN);
  });

  it.each<{ name: string; arrange: () => void }>([
    {
      name: "networkInterfaces() throws",
      arrange: () =>
        vi.spyOn(os, "networkInterfaces").mockImplementation(() => {
          throw new Error("EACCES");
        }),
    },
    { name: "networkInterfaces() is empty", arrange: () => vi.spyOn(os, "networkInterfaces").mockReturnValue({}) },
    { name: "node:os is missing", arrange: () => vi.spyOn(process, "getBuiltinModule").mockReturnValue(undefined) },
  ])("fails closed by default when $name", ({ arrange }) => {
    arrange();
    expect(checkAddress("93.184.216.34", createNetworkPolicy())).toEqual(OWN_UNKNOWN);
  });
});

describe("classification failures", () => {
  it("refuses under a policy not made by createNetworkPolicy", () => {
    const forged = { allowPrivate: ["0.0.0.0/0"], denyList: [] } as NetworkPolicy;
    expect(checkAddress("93.184.216.34", forged)).toEqual(UNCLASSIFIABLE);
    expect(checkAddress("93.184.216.34", { ...allowAll })).toEqual(UNCLASSIFIABLE);
  });

  it("refuses when the range classifier throws", () => {
    // The ipaddr.js the runtime resolves (the workspace root may hold an older copy for other packages).
    const requireFromRuntime = createRequire(new URL("../../packages/runtime/package.json", import.meta.url));
    const ipaddr = requireFromRuntime("ipaddr.js") as { process: (address: string) => unknown };
    vi.spyOn(ipaddr, "process").mockImplementation(() => {
      throw new Error("classifier failure");
    });
    // A fresh policy: one that already decided this address keeps its verdict (see "kept verdicts" below).
    expect(checkAddress("93.184.216.34", createNetworkPolicy({ localAddresses: [] }))).toEqual(UNCLASSIFIABLE);
  });

  it("refuses when the range classifier answers something unexpected", () => {
    const requireFromRuntime = createRequire(new URL("../../packages/runtime/package.json", import.meta.url));
    const ipaddr = requireFromRuntime("ipaddr.js") as { process: (address: string) => unknown };
    vi.spyOn(ipaddr, "process").mockReturnValue({ range: () => "unicast (93.184.216.34)" });
    const policy = createNetworkPolicy({ localAddresses: [] });
    expect(checkAddress("93.184.216.34", policy)).toEqual(UNCLASSIFIABLE);
    // A failed classification is not kept: once the classifier answers again, so does the policy.
    vi.restoreAllMocks();
    expect(checkAddress("93.184.216.34", policy)).toEqual(OK);
  });
});

describe("kept verdicts", () => {
  it("are kept per policy: one policy's verdict never answers for another", () => {
    const open = createNetworkPolicy({ ...allowPrivateNetwork(), localAddresses: [] });
    const closed = createNetworkPolicy({ localAddresses: [] });
    for (let round = 0; round < 3; round++) {
      expect(checkAddress("10.1.2.3", open)).toEqual(OK);
      expect(checkAddress("10.1.2.3", closed)).toEqual(no("private address"));
      expect(checkAddress("169.254.169.254", open)).toEqual(METADATA);
    }
  });

  it("are the same answer as a first decision, and cannot be changed by the caller", () => {
    const policy = createNetworkPolicy({ localAddresses: [] });
    const first = checkAddress("127.0.0.1", policy);
    const again = checkAddress("127.0.0.1", policy);
    expect(again).toEqual(first);
    expect(again.ok).toBe(false);
    expect(() => Object.assign(again, { ok: true })).toThrow(TypeError);
    expect(checkAddress("127.0.0.1", policy).ok).toBe(false);
  });

  it("answer the same over many addresses (past its bound the memory starts over)", () => {
    const policy = createNetworkPolicy({ localAddresses: [] });
    for (let i = 0; i < 2000; i++) {
      const address = `93.184.${i >> 8}.${i & 255}`;
      expect(checkAddress(address, policy)).toEqual(OK);
      expect(checkAddress("10.0.0.1", policy)).toEqual(no("private address"));
    }
  });
});

describe("createNetworkPolicy", () => {
  it("normalizes and freezes the ranges", () => {
    const policy = createNetworkPolicy({
      allowPrivate: ["0.0.0.0/0", "::/0", "FC00:0:0::/7"],
      denyList: ["2606:4700:0:0::/32", "93.184.216.0/24"],
      localAddresses: [],
    });
    expect(policy.allowPrivate).toEqual(["0.0.0.0/0", "::/0", "fc00::/7"]);
    expect(policy.denyList).toEqual(["2606:4700::/32", "93.184.216.0/24"]);
    expect(Object.isFrozen(policy)).toBe(true);
    expect(Object.isFrozen(policy.allowPrivate)).toBe(true);
    expect(Object.isFrozen(policy.denyList)).toBe(true);
  });

  it("does not see later changes to the options", () => {
    const options = { denyList: ["93.184.216.0/24"], localAddresses: ["8.8.8.8"] };
    const policy = createNetworkPolicy(options);
    options.denyList.length = 0;
    options.localAddresses.length = 0;
    expect(checkAddress("93.184.216.34", policy)).toEqual(DENIED);
    expect(checkAddress("8.8.8.8", policy)).toEqual(OWN);
  });

  const malformed: { given: string; message: string }[] = [
    { given: "10.0.0.0", message: 'allowPrivate entry "10.0.0.0" is not a CIDR range' },
    { given: "10.0.0.0/8/8", message: "is not a CIDR range" },
    { given: "", message: "is not a CIDR range" },
    { given: "/8", message: "does not start with a plain IPv4 or IPv6 address" },
    { given: "10.1/16", message: "does not start with a plain IPv4 or IPv6 address" },
    { given: "0x0a.0.0.0/8", message: "does not start with a plain IPv4 or IPv6 address" },
    { given: "010.0.0.0/8", message: "does not start with a plain IPv4 or IPv6 address" },
    { given: " 10.0.0.0/8", message: "does not start with a plain IPv4 or IPv6 address" },
    { given: "example.com/24", message: "does not start with a plain IPv4 or IPv6 address" },
    { given: "[::1]/128", message: "does not start with a plain IPv4 or IPv6 address" },
    { given: "10.0.0.0/33", message: "has an invalid prefix length (use 0 to 32 for IPv4)" },
    { given: "::/129", message: "has an invalid prefix length (use 0 to 128 for IPv6)" },
    { given: "10.0.0.0/08", message: "has an invalid prefix length" },
    { given: "10.0.0.0/ 8", message: "has an invalid prefix length" },
    { given: "10.0.0.0/-1", message: "has an invalid prefix length" },
    { given: "10.0.0.0/", message: "has an invalid prefix length" },
    { given: "10.0.0.0/8.0", message: "has an invalid prefix length" },
    { given: "10.0.0.1/8", message: "has bits set after its prefix length" },
    { given: "192.168.1.0/16", message: "has bits set after its prefix length" },
    { given: "fe80::%eth0/64", message: "has a zone ID" },
  ];
  it.each(malformed)("refuses the allowPrivate entry $given", ({ given, message }) => {
    expect(() => createNetworkPolicy({ allowPrivate: [given] })).toThrow(NetworkPolicyError);
    expect(() => createNetworkPolicy({ allowPrivate: [given] })).toThrow(message);
  });
  it.each(malformed)("refuses the denyList entry $given", ({ given }) => {
    expect(() => createNetworkPolicy({ denyList: ["10.0.0.0/8", given] })).toThrow(/^denyList entry ".*"/);
  });

  it.each<{ name: string; options: unknown }>([
    { name: "allowPrivate as a string", options: { allowPrivate: "10.0.0.0/8" } },
    { name: "a number in denyList", options: { denyList: [10] } },
    { name: "localAddresses as a string", options: { localAddresses: "127.0.0.1" } },
    { name: "a shorthand local address", options: { localAddresses: ["127.1"] } },
    { name: "a CIDR as a local address", options: { localAddresses: ["10.0.0.0/8"] } },
    { name: "a number as a local address", options: { localAddresses: [1] } },
    { name: "options that are not an object", options: "allow everything" },
  ])("refuses $name", ({ options }) => {
    expect(() => createNetworkPolicy(options as never)).toThrow(NetworkPolicyError);
  });

  it("names the error and keeps long values short", () => {
    const long = `${"1".repeat(500)}/8`;
    let error: unknown;
    try {
      createNetworkPolicy({ denyList: [long] });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(NetworkPolicyError);
    expect((error as Error).name).toBe("NetworkPolicyError");
    expect((error as Error).message.length).toBeLessThan(250);
  });

  it("keeps long values short without cutting a surrogate pair in half", () => {
    // The quoted value is `"` + 75 ones + emoji...: the cut at 77 code units falls inside the first emoji.
    const long = `${"1".repeat(75)}${"\u{1F600}".repeat(20)}`;
    expect(() => createNetworkPolicy({ denyList: [long] })).toThrow(`denyList entry "${"1".repeat(75)}..." `);
  });
});

describe("classifyHost", () => {
  const ip = (address: string): HostKind => ({ kind: "ip", address });
  const name = (host: string): HostKind => ({ kind: "name", name: host });
  const invalid: HostKind = { kind: "invalid", reason: "the host name is not valid" };

  // What `new URL("http://<given>/").hostname` gives, and what happens to it.
  const urlCases: { given: string; host: string; want: HostKind; verdict?: AddressVerdict }[] = [
    { given: "0177.0.0.1", host: "127.0.0.1", want: ip("127.0.0.1"), verdict: no("loopback address") },
    { given: "0x7f.1", host: "127.0.0.1", want: ip("127.0.0.1"), verdict: no("loopback address") },
    { given: "0x7f.0.0.1.", host: "127.0.0.1", want: ip("127.0.0.1"), verdict: no("loopback address") },
    { given: "2130706433", host: "127.0.0.1", want: ip("127.0.0.1"), verdict: no("loopback address") },
    { given: "127.1", host: "127.0.0.1", want: ip("127.0.0.1"), verdict: no("loopback address") },
    { given: "１２７.０.０.１", host: "127.0.0.1", want: ip("127.0.0.1"), verdict: no("loopback address") },
    { given: "%31%32%37.0.0.1", host: "127.0.0.1", want: ip("127.0.0.1"), verdict: no("loopback address") },
    { given: "127.0.0.1.", host: "127.0.0.1", want: ip("127.0.0.1"), verdict: no("loopback address") },
    { given: "0", host: "0.0.0.0", want: ip("0.0.0.0"), verdict: no("unspecified address") },
    { given: "0xa9fea9fe", host: "169.254.169.254", want: ip("169.254.169.254"), verdict: METADATA },
    { given: "0251.0376.0251.0376", host: "169.254.169.254", want: ip("169.254.169.254"), verdict: METADATA },
    {
      given: "[::ffff:127.0.0.1]",
      host: "[::ffff:7f00:1]",
      want: ip("::ffff:7f00:1"),
      verdict: no("loopback address"),
    },
    {
      given: "[0:0:0:0:0:ffff:a9fe:a9fe]",
      host: "[::ffff:a9fe:a9fe]",
      want: ip("::ffff:a9fe:a9fe"),
      verdict: METADATA,
    },
    {
      given: "[64:ff9b::169.254.169.254]",
      host: "[64:ff9b::a9fe:a9fe]",
      want: ip("64:ff9b::a9fe:a9fe"),
      verdict: METADATA,
    },
    { given: "[::1]", host: "[::1]", want: ip("::1"), verdict: no("loopback address") },
    { given: "[2606:4700::1111]", host: "[2606:4700::1111]", want: ip("2606:4700::1111"), verdict: OK },
    { given: "93.184.216.34", host: "93.184.216.34", want: ip("93.184.216.34"), verdict: OK },
    { given: "example.com", host: "example.com", want: name("example.com") },
    { given: "EXAMPLE.com", host: "example.com", want: name("example.com") },
    { given: "example.com.", host: "example.com.", want: name("example.com.") },
    { given: "%65xample.com", host: "example.com", want: name("example.com") },
    { given: "bücher.de", host: "xn--bcher-kva.de", want: name("xn--bcher-kva.de") },
    { given: "localhost", host: "localhost", want: name("localhost") },
    { given: "my-host.internal", host: "my-host.internal", want: name("my-host.internal") },
    { given: "a_b.com", host: "a_b.com", want: invalid },
    { given: "a*b.com", host: "a*b.com", want: invalid },
    { given: "a!b.com", host: "a!b.com", want: invalid },
    { given: "a$b", host: "a$b", want: invalid },
    { given: "a'b", host: "a'b", want: invalid },
    { given: "a(b)", host: "a(b)", want: invalid },
    { given: "a~b", host: "a~b", want: invalid },
    { given: "a=b", host: "a=b", want: invalid },
    { given: "a&b", host: "a&b", want: invalid },
    { given: "a;b", host: "a;b", want: invalid },
    { given: "a,b", host: "a,b", want: invalid },
    { given: "a+b", host: "a+b", want: invalid },
    { given: "a{b}", host: "a{b}", want: invalid },
    { given: "a`b", host: "a`b", want: invalid },
    { given: 'a"b', host: 'a"b', want: invalid },
  ];
  it.each(urlCases)("URL host $given", ({ given, host, want, verdict }) => {
    const hostname = new URL(`http://${given}/`).hostname;
    expect(hostname).toBe(host);
    const kind = classifyHost(hostname);
    expect(kind).toEqual(want);
    if (verdict !== undefined && kind.kind === "ip") expect(checkAddress(kind.address, strict)).toEqual(verdict);
  });

  // Strings that no WHATWG URL hostname looks like. They are refused rather than sent to DNS, where a
  // resolver might read "127.1" as an IPv4 address.
  it.each<{ given: string; want: HostKind }>([
    { given: "", want: invalid },
    { given: "127.1", want: invalid },
    { given: "0x7f.1", want: invalid },
    { given: "2130706433", want: invalid },
    { given: "1.2.3.4.5", want: invalid },
    { given: "127.0.0.01", want: invalid },
    { given: "example.0x", want: invalid },
    { given: "example.123.", want: invalid },
    { given: "EXAMPLE.com", want: invalid },
    { given: "bücher.de", want: invalid },
    { given: "exa mple.com", want: invalid },
    { given: "example.com:443", want: invalid },
    { given: "::1", want: invalid },
    { given: "[::1", want: invalid },
    { given: "[127.0.0.1]", want: invalid },
    { given: "[example.com]", want: invalid },
    { given: "[fe80::1%eth0]", want: ip("fe80::1%eth0") },
    { given: "1example.com", want: name("1example.com") },
    { given: "123.example", want: name("123.example") },
    { given: "0xg", want: name("0xg") },
  ])("raw string $given", ({ given, want }) => {
    expect(classifyHost(given)).toEqual(want);
  });

  it("leaves a zone ID to checkAddress, which refuses it", () => {
    const kind = classifyHost("[fe80::1%eth0]");
    expect(kind.kind === "ip" && checkAddress(kind.address, allowAll)).toEqual(ZONE);
  });
});
