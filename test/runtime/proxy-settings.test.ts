/**
 * Which requests go through the egress proxy: proxy-from-env's reading of the variables (names, suffixes,
 * ports, `*`, lower case first), plus the IP ranges the runtime adds, and the refusal of malformed proxy URLs.
 * proxy-from-env reads process.env itself, so each case sets it and puts it back.
 */
import { afterEach, describe, expect, it } from "vitest";
import { ProxyConfigError, proxySettingsFromEnv } from "../../packages/runtime/src/net/proxy.ts";

const NAMES = [
  "https_proxy",
  "HTTPS_PROXY",
  "http_proxy",
  "HTTP_PROXY",
  "all_proxy",
  "ALL_PROXY",
  "no_proxy",
  "NO_PROXY",
];
const saved = Object.fromEntries(NAMES.map((name) => [name, process.env[name]]));

function withEnv(vars: Record<string, string>): ReturnType<typeof proxySettingsFromEnv> {
  for (const name of NAMES) delete process.env[name];
  Object.assign(process.env, vars);
  return proxySettingsFromEnv(process.env);
}

afterEach(() => {
  for (const name of NAMES) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

const via = (settings: ReturnType<typeof proxySettingsFromEnv>, url: string): string | null =>
  settings?.forUrl(new URL(url))?.hostPort ?? null;

describe("proxy variables", () => {
  it("are off when none is set", () => {
    expect(withEnv({})).toBeNull();
  });

  it("use HTTPS_PROXY for https and HTTP_PROXY for http, lower case first", () => {
    const s = withEnv({ HTTPS_PROXY: "http://upper:1", https_proxy: "http://lower:2", HTTP_PROXY: "plain:3" });
    expect(via(s, "https://api.example.com/x")).toBe("lower:2");
    expect(via(s, "http://api.example.com/x")).toBe("plain:3");
  });

  it("honour NO_PROXY names, suffixes, ports and *", () => {
    const s = withEnv({
      HTTPS_PROXY: "http://p:1",
      NO_PROXY: "exact.example.com, .internal.test,*.corp.test,api.example.com:8443",
    });
    expect(via(s, "https://exact.example.com/")).toBeNull();
    expect(via(s, "https://a.b.internal.test/")).toBeNull();
    expect(via(s, "https://x.corp.test/")).toBeNull();
    expect(via(s, "https://api.example.com:8443/")).toBeNull();
    expect(via(s, "https://api.example.com/")).toBe("p:1");
    expect(via(s, "https://other.example.com/")).toBe("p:1");
    expect(via(withEnv({ HTTPS_PROXY: "http://p:1", no_proxy: "*" }), "https://anything.test/")).toBeNull();
  });

  it("honour NO_PROXY IP ranges for IP-literal upstreams", () => {
    const s = withEnv({ HTTPS_PROXY: "http://p:1", NO_PROXY: "10.0.0.0/8,fd00::/8,192.0.2.7" });
    expect(via(s, "https://10.1.2.3/")).toBeNull();
    expect(via(s, "https://[fd12::1]/")).toBeNull();
    expect(via(s, "https://192.0.2.7/")).toBeNull();
    expect(via(s, "https://11.1.2.3/")).toBe("p:1");
    expect(via(s, "https://[2001:db8::1]/")).toBe("p:1");
  });

  it("take credentials from the userinfo, percent-decoded, for the vault and the header", () => {
    const s = withEnv({ HTTPS_PROXY: "http://us%40er:p%3Ass-word@proxy.local:3128" });
    const proxy = s?.forUrl(new URL("https://api.example.com/"));
    expect(proxy?.authorization).toBe(`Basic ${Buffer.from("us@er:p:ss-word").toString("base64")}`);
    expect(s?.credentials).toEqual(["us@er:p:ss-word", "p:ss-word"]);
    expect(s?.summary.join(" ")).not.toContain("p%3Ass");
    expect(s?.summary.join(" ")).toContain("(with credentials)");
  });

  it("refuse a proxy URL that is not http://", () => {
    expect(() => withEnv({ HTTPS_PROXY: "https://proxy.local:3128" })).toThrow(ProxyConfigError);
    expect(() => withEnv({ HTTPS_PROXY: "socks5://proxy.local:1080" })).toThrow(ProxyConfigError);
    expect(() => withEnv({ HTTPS_PROXY: "http://proxy.local:3128/path" })).toThrow(ProxyConfigError);
  });
});
