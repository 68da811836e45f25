/**
 * The egress list of a planned server: every (scheme, host, port) its tools call, with the methods used.
 *
 * It is written into each package's manifest.json for reviewers, and it is meant to be enforced at run time
 * (deny anything outside it), so it is a plain, stable structure: sorted by scheme, host and port, one entry
 * per destination, methods sorted and deduplicated. `host` is the WHATWG URL `hostname` of the tool's URL
 * (lower-case DNS name, IPv4 literal, or bracketed IPv6 literal such as `[::1]`), the same form
 * `new URL(u).hostname` gives at run time, so an enforcer can compare without normalizing.
 *
 * The runtime derives the same list from the tool plans (`egressCheck` in net/upstream.ts) and refuses every
 * hop outside it, redirects included; the two must agree, which test/emit/units.test.ts checks.
 */
import type { HttpMethod } from "@kervanc/runtime";
import type { PlannedServer } from "./plan.ts";

export interface EgressRule {
  readonly scheme: "https" | "http";
  readonly host: string;
  readonly port: number;
  readonly methods: readonly HttpMethod[];
}

/** Code-unit order, so the list does not depend on the locale (unlike `localeCompare`). */
const compareStrings = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export function egressOf(server: PlannedServer): EgressRule[] {
  const byKey = new Map<string, { scheme: "https" | "http"; host: string; port: number; methods: Set<HttpMethod> }>();
  // The upstream-auth extension's token endpoints: POSTed to by the server itself (never by a tool's request),
  // listed so that a reviewer and an egress firewall see every destination.
  const tokenEndpoints = (server.plan.credentials ?? []).flatMap((c) =>
    c.kind === "callerHeader"
      ? []
      : [{ protocol: c.protocol, hostPort: c.hostPort, method: "POST" as const, name: c.name }],
  );
  const destinations = [
    ...server.tools.map((tool) => ({ ...tool.plan.request, name: tool.plan.listing.name })),
    ...tokenEndpoints,
  ];
  for (const { protocol, hostPort, method, name } of destinations) {
    // hostPort is `${hostname}:${port}` with the default port filled in; an IPv6 hostname keeps its brackets,
    // so the port is always after the last colon.
    const colon = hostPort.lastIndexOf(":");
    const host = hostPort.slice(0, colon);
    const port = Number(hostPort.slice(colon + 1));
    if (colon <= 0 || !Number.isInteger(port) || port < 1 || port > 65535) {
      throw new Error(`egressOf(): unexpected hostPort ${JSON.stringify(hostPort)} in ${name}.`);
    }
    const scheme = protocol === "http:" ? "http" : "https";
    const key = `${scheme} ${host} ${port}`;
    let rule = byKey.get(key);
    if (rule === undefined) {
      rule = { scheme, host, port, methods: new Set() };
      byKey.set(key, rule);
    }
    rule.methods.add(method);
  }
  return [...byKey.values()]
    .sort((a, b) => compareStrings(a.scheme, b.scheme) || compareStrings(a.host, b.host) || a.port - b.port)
    .map((r) => ({ scheme: r.scheme, host: r.host, port: r.port, methods: [...r.methods].sort(compareStrings) }));
}
