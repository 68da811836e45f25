/**
 * Where a tool's secrets and credentials may go: a secret bound to hosts only to those (KV4004), a credential
 * whose audience or resource names an API's URL only to that host (KV8015): a token for one API is not meant
 * for another.
 */
import { report } from "../../diagnostics/diagnostic.ts";
import type { Rule, ToolContext } from "./context.ts";
import { intendedHost } from "./credentials.ts";

export const hostsRule: Rule<ToolContext> = {
  name: "hosts",
  codes: ["KV4004", "KV8015"],
  check(ctx) {
    const url = ctx.request?.url;
    if (!url) return;
    const { out } = ctx.spec;
    const urlAt = [...ctx.at, "http", "url"];
    for (const name of ctx.credentials) {
      const plan = ctx.spec.credentials.plans.get(name);
      const intended = plan !== undefined ? intendedHost(plan) : null;
      if (intended !== null && intended.host !== url.hostname)
        out.push(
          report("KV8015", urlAt, (m) =>
            m.otherHost({ name, meant: intended.host, what: intended.what, host: url.hostname }),
          ),
        );
    }
    for (const name of ctx.secrets) {
      const hosts = ctx.spec.secrets.bindings.get(name);
      // A binding whose every host was refused (KV4003) already has its error; a second one would only confuse.
      if (hosts !== undefined && hosts.length > 0 && !hosts.includes(url.hostPort))
        out.push(report("KV4004", urlAt, (m) => m.otherHost({ name, hosts: hosts.join(", "), host: url.hostPort })));
    }
  },
};
