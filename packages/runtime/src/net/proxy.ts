/**
 * Which upstream requests go through an egress proxy, from the usual environment variables.
 *
 * `proxy-from-env` decides by `HTTPS_PROXY`/`https_proxy`, `HTTP_PROXY`/`http_proxy`, `ALL_PROXY` and
 * `NO_PROXY`/`no_proxy` (lower case first; `NO_PROXY` entries are exact names, `.suffix` or `*.suffix`
 * suffixes, an optional `:port`, and `*` for everything), the same reading curl, axios and most npm tooling
 * use. It knows no IP ranges, so `NO_PROXY` entries that are CIDR ranges (`10.0.0.0/8`, `fd00::/8`) are
 * matched here against IP-literal upstreams. The variables are read from the process environment, once, at
 * start-up.
 *
 * The proxy's own address is operator configuration: it is not subject to the address policy (proxies often
 * sit on private addresses). Only `http://` proxy URLs are accepted; HTTPS upstreams go through a CONNECT
 * tunnel, so TLS still runs end to end with the upstream and the proxy sees no plaintext.
 */
import { getProxyForUrl } from "proxy-from-env";
import { inRange, parseCidr, parseIpLiteral, type IpRange } from "./ip.ts";

export interface EgressProxy {
  /** `host:port` of the proxy, for logs (never its credentials). */
  readonly hostPort: string;
  readonly hostname: string;
  readonly port: number;
  /** The `Proxy-Authorization` value from the proxy URL's userinfo, or null. */
  readonly authorization: string | null;
}

export interface ProxySettings {
  /** The proxy to use for this upstream URL, or null to connect directly. */
  forUrl(url: URL): EgressProxy | null;
  /** Every proxy credential (`user:password` and the password), for the redaction vault. */
  readonly credentials: readonly string[];
  /** What start-up logs: one line per configured variable, without credentials. */
  readonly summary: readonly string[];
}

export class ProxyConfigError extends Error {
  override readonly name = "ProxyConfigError";
}

const PROXY_VARIABLES = ["https_proxy", "HTTPS_PROXY", "http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"];

function parseProxy(raw: string, variable: string): EgressProxy & { readonly credentials: string[] } {
  let url: URL;
  try {
    url = new URL(raw.includes("://") ? raw : `http://${raw}`);
  } catch {
    throw new ProxyConfigError(`${variable} is not a valid URL.`);
  }
  if (url.protocol !== "http:")
    throw new ProxyConfigError(`${variable} must be an http:// proxy URL (HTTPS upstreams are tunnelled through it).`);
  if (url.pathname !== "/" && url.pathname !== "")
    throw new ProxyConfigError(`${variable} must name only a proxy's host and port.`);
  const hostname = url.hostname.replace(/^\[|\]$/g, "");
  const port = url.port === "" ? 80 : Number(url.port);
  const user = safeDecode(url.username);
  const password = safeDecode(url.password);
  const credentials: string[] = [];
  let authorization: string | null = null;
  if (user !== "" || password !== "") {
    const pair = `${user}:${password}`;
    authorization = `Basic ${Buffer.from(pair, "utf8").toString("base64")}`;
    credentials.push(pair);
    if (password !== "") credentials.push(password);
  }
  return { hostPort: url.host, hostname, port, authorization, credentials };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The CIDR ranges among the NO_PROXY entries. */
function noProxyRanges(env: Readonly<Record<string, string | undefined>>): IpRange[] {
  const raw = env["no_proxy"] || env["NO_PROXY"] || "";
  const ranges: IpRange[] = [];
  for (const entry of raw.split(/[,\s]/)) {
    if (!entry.includes("/")) continue;
    const parsed = parseCidr(entry.trim());
    if (parsed.ok) ranges.push(parsed.range);
  }
  return ranges;
}

/**
 * Reads the proxy variables. Throws ProxyConfigError for a malformed proxy URL, so a typo stops the server at
 * start-up instead of sending every request directly. `env` must be the environment proxy-from-env reads
 * (process.env); it is passed in for the checks made here.
 */
export function proxySettingsFromEnv(env: Readonly<Record<string, string | undefined>>): ProxySettings | null {
  const configured = PROXY_VARIABLES.filter((name) => (env[name] ?? "") !== "");
  if (configured.length === 0) return null;
  const parsed = new Map<string, ReturnType<typeof parseProxy>>();
  const summary: string[] = [];
  for (const name of configured) {
    const proxy = parseProxy(env[name]!, name);
    parsed.set(env[name]!, proxy);
    summary.push(`${name}=http://${proxy.hostPort}${proxy.authorization !== null ? " (with credentials)" : ""}`);
  }
  const ranges = noProxyRanges(env);
  return {
    credentials: [...new Set([...parsed.values()].flatMap((p) => p.credentials))],
    summary,
    forUrl(url) {
      const literal = parseIpLiteral(url.hostname.replace(/^\[|\]$/g, ""));
      if (literal !== undefined && ranges.some((range) => inRange(literal, range))) return null;
      const chosen = getProxyForUrl(url.href);
      if (chosen === "") return null;
      // proxy-from-env hands back the variable's value (adding a scheme when it has none).
      const proxy = parsed.get(chosen) ?? parsed.get(chosen.replace(/^[a-z]+:\/\//, ""));
      return proxy ?? parseProxy(chosen, "the proxy variable");
    },
  };
}
