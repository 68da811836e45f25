/**
 * What the address check costs a hop to a public upstream: `checkAddress` on public addresses under the default
 * policy, against the same policy reading this machine's interfaces at every check (what the default did until
 * it kept one read for up to LOCAL_ADDRESSES_MAX_AGE_MS), with a kept verdict (an allowed private address, as the
 * loopback benchmarks see it) for scale. The checks come back to back, as at a high call rate: the default reads
 * the interfaces at most once a second, so at one call a second every check still reads them (about 60 µs against
 * a public API's round trip of milliseconds). The main suite's upstream is on loopback under --allow-private-network,
 * where the own-address step never runs, so this cost is in none of its rows.
 *
 *   node --import tsx scripts/bench/address-check.ts [--rounds 21] [--checks 20000]
 *
 * Prints a Markdown table: µs per check (median, p90 and min of the rounds' means) and how many times the first
 * row's time each variant's is, paired round by round (median, p25-p75). Rounds interleave the variants so machine drift hits all alike.
 */
import { networkInterfaces } from "node:os";
import process from "node:process";
import { parseArgs } from "node:util";
import {
  allowPrivateNetwork,
  checkAddress,
  createNetworkPolicy,
  type NetworkPolicy,
} from "../../packages/runtime/src/net/address.ts";
import { formatNumber, pairedRatio, summarize } from "./stats.ts";

const { values } = parseArgs({
  options: { rounds: { type: "string", default: "21" }, checks: { type: "string", default: "20000" } },
});
const rounds = Number(values.rounds);
const checks = Number(values.checks);

/** What the default read before: every address of every interface, at every check. */
const everyCheck = (): string[] =>
  Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((info) => info.address));

// Public addresses (nothing is sent to them); the IPv6 one takes the longer parse.
const PUBLIC = ["93.184.216.34", "2606:4700::1111"];
const variants: { label: string; policy: NetworkPolicy; addresses: string[] }[] = [
  {
    label: "public address, interfaces read at every check (before)",
    policy: createNetworkPolicy({ localAddresses: everyCheck }),
    addresses: PUBLIC,
  },
  {
    label: "public address, default policy (one read kept up to 1 s)",
    policy: createNetworkPolicy(),
    addresses: PUBLIC,
  },
  {
    label: "allowed private address, a kept verdict (the loopback rows)",
    policy: createNetworkPolicy(allowPrivateNetwork()),
    addresses: ["10.0.0.1", "fd00::1"],
  },
];

for (const v of variants) {
  for (const address of v.addresses) {
    const verdict = checkAddress(address, v.policy);
    if (!verdict.ok) throw new Error(`${v.label}: ${address} was refused (${verdict.reason})`);
  }
}

const samples = variants.map(() => [] as number[]);
for (let round = 0; round < rounds + 2; round++) {
  for (let k = 0; k < variants.length; k++) {
    const i = (k + round) % variants.length;
    const { policy, addresses } = variants[i]!;
    const started = process.hrtime.bigint();
    for (let n = 0; n < checks; n++) checkAddress(addresses[n & 1]!, policy);
    const us = Number(process.hrtime.bigint() - started) / 1e3 / checks;
    if (round >= 2) samples[i]!.push(us); // two warm-up rounds for the JIT
  }
}

const lines = [
  `checkAddress, ${rounds} interleaved rounds of ${checks.toLocaleString("en-US")} checks, Node ${process.version} (µs per check)`,
  "",
  "| variant | median | p90 | min | the first row's time over this one's, paired (p25-p75) |",
  "| --- | ---: | ---: | ---: | ---: |",
  ...variants.map((v, i) => {
    const s = summarize(samples[i]!);
    const p = pairedRatio(samples[0]!, samples[i]!);
    const paired = `${formatNumber(p.median)}x (${formatNumber(p.p25)}-${formatNumber(p.p75)})`;
    return `| ${v.label} | ${formatNumber(s.median, 2)} | ${formatNumber(s.p90, 2)} | ${formatNumber(s.min, 2)} | ${paired} |`;
  }),
];
process.stdout.write(`${lines.join("\n")}\n`);
