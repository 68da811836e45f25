/**
 * Secret declarations and their host bindings.
 *
 * A binding is an exact `hostname:port` after WHATWG normalization (case and IDNA folded, default port 443);
 * there are no wildcards, and a trailing dot makes a different name. A tool may send a bound secret only to a
 * host the binding names.
 */
import type { SecretDeclaration } from "@kervanc/runtime";
import { type Finding, report, type SpecPath } from "../../diagnostics/diagnostic.ts";
import type { Rule, SpecContext } from "./context.ts";

export type SecretEntry = string | { name: string; hosts: string[] };

export function normalizeHostPort(entry: string): string | null {
  try {
    const url = new URL(`https://${entry}/`);
    if (url.pathname !== "/" || url.username !== "" || url.password !== "" || url.search !== "" || url.hash !== "")
      return null;
    return `${url.hostname}:${url.port === "" ? "443" : url.port}`;
  } catch {
    return null;
  }
}

/** The proxy variables the Node server reads (runtime/net/proxy.ts); secret names are upper case. */
const PROXY_VARIABLES = new Set(["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"]);

/**
 * What a secret name would collide with, or null. A secret is read from the environment variable of its name,
 * so a secret named like the server's own settings (KERVANC_AUTH_TOKENS, the fetch handler's KERVANC_*), the
 * egress proxy's (HTTPS_PROXY with its credentials) or Node's (NODE_OPTIONS, NODE_ENV, ...) would make the
 * server send that setting's value to the secret's hosts, and the deploy files would list the variable twice.
 */
/** Whose variable a secret's name would be (KV4006 names it), or null when the name is the spec's to use. */
export function reservedSecretName(name: string): "serverSetting" | "proxySetting" | "nodeSetting" | null {
  if (name.startsWith("KERVANC_")) return "serverSetting";
  if (PROXY_VARIABLES.has(name)) return "proxySetting";
  if (name.startsWith("NODE_")) return "nodeSetting";
  return null;
}

export function checkSecretDeclarations(
  entries: readonly SecretEntry[],
  out: Finding[],
): { declarations: SecretDeclaration[]; paths: Map<string, SpecPath> } {
  const declarations: SecretDeclaration[] = [];
  const paths = new Map<string, SpecPath>();
  entries.forEach((entry, i) => {
    const path: SpecPath = ["secrets", i];
    const name = typeof entry === "string" ? entry : entry.name;
    if (paths.has(name)) {
      out.push(report("KV4001", path, (m) => m.declaredTwice({ name })));
      return;
    }
    paths.set(name, path);
    const reserved = reservedSecretName(name);
    if (reserved !== null)
      out.push(report("KV4006", typeof entry === "string" ? path : [...path, "name"], (m) => m[reserved]({ name })));
    if (typeof entry === "string") {
      declarations.push({ name });
      return;
    }
    const hosts: string[] = [];
    entry.hosts.forEach((host, j) => {
      const normalized = normalizeHostPort(host);
      if (normalized === null)
        out.push(report("KV4003", [...path, "hosts", j], (m) => m.notHost({ host: JSON.stringify(host) })));
      else if (!hosts.includes(normalized)) hosts.push(normalized);
    });
    declarations.push({ name, hosts });
  });
  return { declarations, paths };
}

/** The `secrets` list: names declared once, hosts that normalize, names that are not the server's own (KV4006). */
export const secretsRule: Rule<SpecContext> = {
  name: "secrets",
  codes: ["KV4001", "KV4003", "KV4006"],
  check(ctx) {
    const { declarations, paths } = checkSecretDeclarations((ctx.spec.secrets ?? []) as SecretEntry[], ctx.out);
    ctx.secrets = { declarations, paths, bindings: new Map(declarations.map((d) => [d.name, d.hosts])) };
  },
};
