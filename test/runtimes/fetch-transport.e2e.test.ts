/**
 * The pieces behind the fetch-only platforms, in process: the fetch transport (content codings every platform
 * decodes, hidden redirects, resolver answers, streamed bodies) driven by Node's fetch against a local upstream
 * or by a stub, and the command lines and configuration the generated README gives (shell quoting, the Deno
 * deny list against the runtime's address policy, the settings the fetch handler reads).
 */
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileSpec } from "../../packages/compiler/src/compile.ts";
import {
  DENO_DENY_NET,
  FETCH_SETTINGS,
  FETCH_TEST_SETTING,
  runCommands,
} from "../../packages/compiler/src/emit/files/run-commands.ts";
import { shellWord } from "../../packages/compiler/src/emit/code/shell.ts";
import { workerdConfig } from "../../packages/compiler/src/emit/files/workerd-config.ts";
import {
  allowPrivateNetwork,
  checkAddress,
  createNetworkPolicy,
  METADATA_RANGES,
} from "../../packages/runtime/src/net/address.ts";
import { createFetchTransport, FETCH_ACCEPT_ENCODING } from "../../packages/runtime/src/net/fetch-transport.ts";
import type { Hop, HopResponse } from "../../packages/runtime/src/net/upstream.ts";
import { WORKER_ENV } from "../../packages/runtime/src/entry/fetch-main.ts";
import { shellWords } from "../helpers/runtimes.ts";
import { startUpstream, type Upstream } from "../helpers/upstream.ts";

let upstream: Upstream;
const payload = Buffer.from(JSON.stringify({ hello: "world" }));

beforeAll(async () => {
  upstream = await startUpstream((req, res) => {
    const coding = req.path.slice(1);
    const body =
      coding === "gzip"
        ? gzipSync(payload)
        : coding === "br"
          ? brotliCompressSync(payload)
          : coding === "deflate"
            ? deflateSync(payload)
            : payload;
    const headers: Record<string, string | number> = {
      "content-type": "application/json",
      "content-length": body.length,
    };
    if (coding === "redirect") return void res.writeHead(302, { location: "/identity" }).end();
    if (coding !== "identity") headers["content-encoding"] = coding;
    res.writeHead(200, headers).end(body);
  });
});
afterAll(async () => {
  await upstream.close();
});

const loopback = createNetworkPolicy({ ...allowPrivateNetwork(), localAddresses: [] });
const strict = createNetworkPolicy({ localAddresses: [] });
const hop = (url: string): Hop => ({
  method: "GET",
  url: new URL(url),
  headers: [
    ["accept-encoding", "gzip, deflate, br"],
    ["accept", "application/json"],
  ],
  body: null,
});
const ctx = { signal: AbortSignal.timeout(5000), sendsSecrets: false };

async function read(response: HopResponse): Promise<string> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of response.body) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf8");
}

describe("the fetch transport", () => {
  it("asks only for the codings every fetch platform decodes, and gets gzip and br decoded", async () => {
    const transport = createFetchTransport({ policy: loopback });
    for (const coding of ["identity", "gzip", "br"]) {
      const before = upstream.requests.length;
      const response = await transport.send(hop(`${upstream.origin}/${coding}`), ctx);
      expect(await read(response), coding).toBe(payload.toString());
      expect(upstream.requests.slice(before).map((r) => r.headers["accept-encoding"])).toEqual([FETCH_ACCEPT_ENCODING]);
    }
    expect(FETCH_ACCEPT_ENCODING).toBe("gzip, br");
  });

  it("refuses deflate, which Deno and workerd hand over still compressed", async () => {
    const transport = createFetchTransport({ policy: loopback });
    await expect(transport.send(hop(`${upstream.origin}/deflate`), ctx)).rejects.toThrow(
      `The response from 127.0.0.1:${upstream.port} uses an unsupported encoding.`,
    );
  });

  it("hands a redirect over unfollowed (the hop loop checks and follows it)", async () => {
    const response = await createFetchTransport({ policy: loopback }).send(hop(`${upstream.origin}/redirect`), ctx);
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("/identity");
    response.discard();
  });

  it("refuses an opaque redirect, whose status and location a platform hides", async () => {
    const opaque = Object.assign(new Response(null, { status: 200 }), {});
    Object.defineProperty(opaque, "type", { value: "opaqueredirect" });
    const transport = createFetchTransport({ policy: loopback, fetch: async () => opaque });
    await expect(transport.send(hop("https://api.example.com/x"), ctx)).rejects.toThrow(
      "Request to api.example.com was redirected, and this platform does not show where to; not followed.",
    );
  });

  it("checks every resolver answer, and refuses when the resolver fails or finds nothing", async () => {
    let fetched = 0;
    const fetchStub = async (): Promise<Response> => (
      fetched++,
      new Response("{}", { headers: { "content-type": "application/json" } })
    );
    const withAnswers = (answers: string[] | Error) =>
      createFetchTransport({
        policy: strict,
        fetch: fetchStub,
        resolve: async () => (answers instanceof Error ? Promise.reject(answers) : answers),
      });
    await expect(
      withAnswers(["93.184.215.14", "169.254.169.254"]).send(hop("https://api.example.com/x"), ctx),
    ).rejects.toThrow(
      "Request to api.example.com was blocked: it resolves to a disallowed address (cloud metadata address).",
    );
    await expect(withAnswers(["10.0.0.1"]).send(hop("https://api.example.com/x"), ctx)).rejects.toThrow(
      /was blocked: it resolves to a disallowed address/,
    );
    await expect(withAnswers([]).send(hop("https://api.example.com/x"), ctx)).rejects.toThrow(
      "Request to api.example.com was blocked: the host name resolved to no addresses.",
    );
    await expect(withAnswers(new Error("SERVFAIL")).send(hop("https://api.example.com/x"), ctx)).rejects.toThrow(
      "Request to api.example.com was blocked: the host name could not be resolved.",
    );
    expect(fetched).toBe(0);
    await withAnswers(["93.184.215.14"]).send(hop("https://api.example.com/x"), ctx);
    expect(fetched).toBe(1);
  });

  it("checks IP-literal hosts without a resolver", async () => {
    const transport = createFetchTransport({ policy: strict, fetch: async () => new Response("") });
    await expect(transport.send(hop(`${upstream.origin}/identity`), ctx)).rejects.toThrow(/\(loopback address\)/);
    await expect(transport.send(hop("http://[::ffff:10.0.0.1]/x"), ctx)).rejects.toThrow(/was blocked/);
  });

  it("refuses 0.0.0.0 and :: where the deny list keeps loopback out: the platform would connect them to it", async () => {
    const port = new URL(upstream.origin).port;
    const transport = createFetchTransport({
      policy: createNetworkPolicy({
        ...allowPrivateNetwork(),
        denyList: ["127.0.0.0/8", "::1/128"],
        localAddresses: [],
      }),
    });
    const before = upstream.requests.length;
    for (const host of ["0.0.0.0", "[::ffff:0.0.0.0]", "[::]"]) {
      await expect(transport.send(hop(`http://${host}:${port}/identity`), ctx), host).rejects.toThrow(
        "it resolves to a disallowed address (address on the deny list)",
      );
    }
    expect(upstream.requests.length).toBe(before);
  });

  it("cancels the body when the reader stops early", async () => {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      pull: (controller) => controller.enqueue(new Uint8Array(1024)),
      cancel: () => {
        cancelled = true;
      },
    });
    const transport = createFetchTransport({ policy: strict, fetch: async () => new Response(stream) });
    const response = await transport.send(hop("https://93.184.215.14/x"), ctx);
    for await (const chunk of response.body) {
      expect(chunk.byteLength).toBe(1024);
      break;
    }
    expect(cancelled).toBe(true);
  });
});

describe("the README's command lines", () => {
  const server = (() => {
    const compiled = compileSpec(
      "s.yaml",
      new TextEncoder().encode(`
specVersion: 1
name: s
version: "1.0.0"
secrets: [API_KEY, OTHER_KEY]
tools:
  - name: a
    description: a
    http: { url: "https://api.example.com/a", headers: { X-Key: "{{secrets.API_KEY}}" } }
    output: { select: "@" }
  - name: b
    description: b
    http: { url: "https://[2001:db8::1]:8443/b", headers: { X-Key: "{{secrets.OTHER_KEY}}" } }
    output: { select: "@" }
  - name: c
    description: c
    http: { url: "http://api.example.com:443/c", allowInsecureHttp: true }
    output: { select: "@" }
`),
    );
    if (!compiled.planned) throw new Error(JSON.stringify(compiled.diagnostics));
    return compiled.planned;
  })();

  it("quote for the shell only what needs it, and split back to the same words", () => {
    expect(shellWord("--allow-net=a.example:443,127.0.0.1:3000")).toBe("--allow-net=a.example:443,127.0.0.1:3000");
    expect(shellWord("--deny-net=[::1]")).toBe("'--deny-net=[::1]'");
    expect(shellWord("it's $(x)")).toBe("'it'\\''s $(x)'");
    for (const line of Object.values(runCommands(server))) expect(shellWords(line).map(shellWord).join(" ")).toBe(line);
  });

  it("give Deno the egress hosts (one entry per host:port) and the secrets, and nothing else", () => {
    const words = shellWords(runCommands(server).deno);
    const list = (flag: string): string[] =>
      words
        .find((w) => w.startsWith(`${flag}=`))!
        .slice(flag.length + 1)
        .split(",");
    expect(list("--allow-net")).toEqual(["127.0.0.1:3000", "api.example.com:443", "[2001:db8::1]:8443"]);
    expect(list("--allow-env")).toEqual(["API_KEY", "OTHER_KEY", ...FETCH_SETTINGS]);
    expect(list("--allow-env")).not.toContain(FETCH_TEST_SETTING);
  });

  it("name the settings the fetch handler reads", () => {
    expect([...FETCH_SETTINGS, FETCH_TEST_SETTING].sort()).toEqual(Object.values(WORKER_ENV).sort());
  });

  it("deny in Deno only addresses the runtime's policy refuses, the metadata ones included, never the listening one", () => {
    const ipv4 = DENO_DENY_NET.filter((r) => !r.startsWith("["));
    for (const range of DENO_DENY_NET) {
      const address = range.startsWith("[") ? range.slice(1, -1) : range.split("/")[0]!;
      expect(checkAddress(address, strict), range).toMatchObject({ ok: false });
    }
    const toInt = (ip: string): number => ip.split(".").reduce((n, part) => n * 256 + Number(part), 0);
    const covers = (range: string, inner: string): boolean => {
      const [base, bits] = range.split("/");
      const [innerBase, innerBits] = inner.split("/");
      const size = 2 ** (32 - Number(bits));
      const start = Math.floor(toInt(base!) / size) * size;
      return Number(innerBits) >= Number(bits) && toInt(innerBase!) >= start && toInt(innerBase!) < start + size;
    };
    for (const metadata of METADATA_RANGES.filter((r) => !r.includes(":"))) {
      expect(
        ipv4.some((r) => covers(r, metadata)),
        metadata,
      ).toBe(true);
    }
    expect(DENO_DENY_NET).toContain("[fd00:ec2::254]");
    // Every IPv6 metadata service that is a single address (Deno takes only single IPv6 addresses).
    for (const metadata of METADATA_RANGES.filter((r) => r.endsWith("/128"))) {
      expect(DENO_DENY_NET, metadata).toContain(`[${metadata.slice(0, -"/128".length)}]`);
    }
    expect(DENO_DENY_NET.some((r) => r.startsWith("127."))).toBe(false);
  });

  it("bind workerd's secrets from its environment, with no nodejs_compat and public addresses only", () => {
    const config = workerdConfig(server);
    expect(config).toContain('(name = "API_KEY", fromEnvironment = "API_KEY"),');
    expect(config).toContain('(name = "OTHER_KEY", fromEnvironment = "OTHER_KEY"),');
    expect(config).toContain('allow = ["public"]');
    expect(config).not.toContain("nodejs_compat");
    expect(config).toContain('esModule = embed "worker.mjs"');
  });
});
