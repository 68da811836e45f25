/**
 * One build, five runtimes: the package built once from the contract spec runs the same contract (contract.ts)
 * on Node 20 (stdio and HTTP, `--disallow-code-generation-from-strings`), Node 24 (`--permission`, file reads
 * limited to the bundle), Deno (only the manifest's `--allow-net` and `--allow-env` for the declared secrets),
 * Bun, and workerd (the fetch handler without `nodejs_compat`), with the SDK v2 client (2026-07-28) and the SDK
 * v1 client (2025-11-25), and over HTTP with raw requests for the edges.
 *
 * Every command line is the one the generated README prints, read back from it; a test changes only the port
 * and adds what a test needs: the test CA, and the allowance for a loopback upstream, which the README's
 * production lines never carry (the Deno suite checks that they cannot).
 */
import { copyFile, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Era } from "../helpers/clients.ts";
import { kervanc, removeDir, tempDir } from "../helpers/kervanc.ts";
import { httpClient, stdioClient } from "../helpers/runtime-clients.ts";
import {
  freePort,
  readmeCommands,
  runtimeBinary,
  type Service,
  shellWords,
  startService,
} from "../helpers/runtimes.ts";
import { startUpstream, TEST_CA, type Upstream } from "../helpers/upstream.ts";
import { contractSpec, contractUpstream, runContract, runHttpEdges, TOKEN } from "./contract.ts";

const ERAS: readonly Era[] = ["modern", "legacy"];
/** The port the README's samples listen on. */
const SAMPLE_PORT = "3000";
const ALLOW_PRIVATE = "KERVANC_ALLOW_PRIVATE_NETWORK";

let upstream: Upstream;
let root: string;
let pkg: string;
let readme: string;
let manifest: { egress: { scheme: string; host: string; port: number }[]; secrets: { name: string }[] };

beforeAll(async () => {
  // Secrets travel only over https: the upstream serves the test CA's certificate for 127.0.0.1.
  upstream = await startUpstream(contractUpstream, { tls: true, hostname: "127.0.0.1" });
  root = await tempDir("runtimes");
  await mkdir(join(root, "specs"));
  await writeFile(join(root, "specs", "contract.yaml"), contractSpec(upstream.origin, `127.0.0.1:${upstream.port}`));
  const built = await kervanc(["build", join(root, "specs"), "-o", join(root, "out")]);
  expect(built.code, built.stderr).toBe(0);
  pkg = join(root, "out", "contract");
  readme = await readFile(join(pkg, "README.md"), "utf8");
  manifest = JSON.parse(await readFile(join(pkg, "manifest.json"), "utf8")) as typeof manifest;
}, 120_000);

afterAll(async () => {
  await upstream?.close();
  if (root) await removeDir(root);
});

/** Replaces the one word equal to `from` (or the `=from` suffix of one) and fails if there is none. */
function replaceWord(words: string[], from: string, to: string): string[] {
  let n = 0;
  const out = words.map((w) => {
    if (w === from) return (n++, to);
    if (w.endsWith(`=${from}`)) return (n++, `${w.slice(0, -from.length)}${to}`);
    return w;
  });
  expect(n, `the command line has ${from} once: ${words.join(" ")}`).toBe(1);
  return out;
}

/** The value of a `--flag=value` word, split at commas. */
function flagList(words: readonly string[], flag: string): string[] {
  const word = words.find((w) => w.startsWith(`${flag}=`));
  expect(word, `${flag} in ${words.join(" ")}`).toBeDefined();
  return word!.slice(flag.length + 1).split(",");
}

function setFlagList(words: readonly string[], flag: string, values: readonly string[]): string[] {
  return words.map((w) => (w.startsWith(`${flag}=`) ? `${flag}=${values.join(",")}` : w));
}

function describeHttp(label: string, start: () => Promise<Service>): void {
  describe(`${label} over Streamable HTTP`, () => {
    let service: Service;
    beforeAll(async () => {
      service = await start();
    }, 60_000);
    afterAll(async () => {
      await service?.stop();
    });
    for (const era of ERAS) {
      it(`passes the contract with the ${era} client`, async () => {
        const client = await httpClient(era, service.url);
        try {
          await runContract(client, upstream, `${label} HTTP ${era}`);
        } finally {
          await client.close();
        }
      });
    }
    it("answers raw requests at the edges (MCP headers, 405, 403, 413, 404)", async () => {
      await runHttpEdges(service.url, `${label} HTTP`);
    });
    it("never writes the secret to its log", () => {
      expect(service.output()).not.toContain(TOKEN);
    });
  });
}

describe("Node 20 (the Node running the tests) with --disallow-code-generation-from-strings", () => {
  const lines = (): { stdio: string[]; http: string[] } => {
    const [stdio, http] = readmeCommands(readme, "### Node.js 20.19 or newer").map(shellWords);
    expect(stdio).toEqual(["node", "--disallow-code-generation-from-strings", "server.mjs"]);
    return { stdio: stdio!, http: http! };
  };
  const env = { API_TOKEN: TOKEN, NODE_EXTRA_CA_CERTS: TEST_CA };

  it("is Node 20", () => {
    expect(process.versions.node).toMatch(/^20\./);
  });
  for (const era of ERAS) {
    it(`passes the contract over stdio with the ${era} client`, async () => {
      const [, ...args] = lines().stdio;
      const client = await stdioClient(era, {
        command: process.execPath,
        args: [...args, "--allow-private-network"],
        env,
        cwd: pkg,
      });
      try {
        await runContract(client, upstream, `node20 stdio ${era}`);
      } finally {
        await client.close();
      }
    });
  }
  describeHttp("Node 20", async () => {
    const port = String(await freePort());
    const [, ...args] = replaceWord(lines().http, SAMPLE_PORT, port);
    return startService(process.execPath, [...args, "--allow-private-network"], { env, cwd: pkg, port: Number(port) });
  });
});

describe("Node 24 with --permission, file reads limited to the bundle", () => {
  const lines = (): { stdio: string[]; http: string[] } => {
    const [stdio, http] = readmeCommands(readme, "### Node.js 24 with the permission model").map(shellWords);
    expect(stdio).toEqual([
      "node",
      "--permission",
      "--allow-fs-read=server.mjs",
      "--disallow-code-generation-from-strings",
      "server.mjs",
    ]);
    return { stdio: stdio!, http: http! };
  };
  const env = { API_TOKEN: TOKEN, NODE_EXTRA_CA_CERTS: TEST_CA };

  it("is Node 24, and the permission model is on", async () => {
    const node24 = runtimeBinary("node24");
    const { execFileSync } = await import("node:child_process");
    expect(execFileSync(node24, ["--version"], { encoding: "utf8" })).toMatch(/^v24\./);
    // The same flags refuse a read outside the bundle.
    const [, ...flags] = lines().stdio.slice(0, -1);
    const probe = execFileSync(
      node24,
      [
        ...flags,
        "-e",
        "try { require('node:fs').readFileSync('manifest.json'); console.log('read') } catch (e) { console.log(e.code) }",
      ],
      { cwd: pkg, encoding: "utf8" },
    );
    expect(probe.trim()).toBe("ERR_ACCESS_DENIED");
  });
  for (const era of ERAS) {
    it(`passes the contract over stdio with the ${era} client`, async () => {
      const [, ...args] = lines().stdio;
      const client = await stdioClient(era, {
        command: runtimeBinary("node24"),
        args: [...args, "--allow-private-network"],
        env,
        cwd: pkg,
      });
      try {
        await runContract(client, upstream, `node24 stdio ${era}`);
      } finally {
        await client.close();
      }
    });
  }
  describeHttp("Node 24", async () => {
    const port = String(await freePort());
    const [, ...args] = replaceWord(lines().http, SAMPLE_PORT, port);
    return startService(runtimeBinary("node24"), [...args, "--allow-private-network"], {
      env,
      cwd: pkg,
      port: Number(port),
    });
  });
});

describe("Deno running server.mjs over stdio with --allow-net and --allow-env alone", () => {
  // `Requires sys access to "uid"` stopped it at start, though NODE_COMPILE_CACHE was not set: the compile-cache
  // check asks for the user id only when a cache is configured. No --allow-sys, no --allow-read: the contract
  // (a list, a structured call, an invalid call, a secret sent and redacted) runs with the upstream's host alone.
  // What the tests add is the test CA (a trust setting, not a permission) and the loopback allowance.
  for (const era of ERAS) {
    it(`runs the contract (${era})`, async () => {
      const client = await stdioClient(era, {
        command: runtimeBinary("deno"),
        args: [
          "run",
          `--allow-net=${new URL(upstream.origin).host}`,
          "--allow-env",
          `--cert=${TEST_CA}`,
          "server.mjs",
          "--allow-private-network",
        ],
        env: { API_TOKEN: TOKEN, DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" },
        cwd: pkg,
      });
      try {
        await runContract(client, upstream, `deno server.mjs stdio ${era}`);
      } finally {
        await client.close();
      }
    });
  }
});

describe("Deno serving worker.mjs with only the README's permissions", () => {
  let denoDir: string;
  beforeAll(async () => {
    denoDir = await tempDir("deno-dir");
  });
  afterAll(async () => {
    if (denoDir) await removeDir(denoDir);
  });
  const production = (): string[] => {
    const [line] = readmeCommands(readme, "### Deno");
    return shellWords(line!);
  };
  const env = (): Record<string, string> => ({
    API_TOKEN: TOKEN,
    [ALLOW_PRIVATE]: "1",
    DENO_DIR: denoDir,
    DENO_NO_UPDATE_CHECK: "1",
    NO_COLOR: "1",
  });
  /** The README's line on another port, trusting the test CA; `forTests` adds the loopback allowance. */
  const command = (port: string, forTests: boolean): string[] => {
    let words = replaceWord(production(), SAMPLE_PORT, port);
    words = setFlagList(
      words,
      "--allow-net",
      flagList(words, "--allow-net").map((a) => (a === `127.0.0.1:${SAMPLE_PORT}` ? `127.0.0.1:${port}` : a)),
    );
    if (forTests) words = setFlagList(words, "--allow-env", [...flagList(words, "--allow-env"), ALLOW_PRIVATE]);
    const script = words.pop()!;
    return [...words, `--cert=${TEST_CA}`, script];
  };

  it("prints exactly the manifest's egress and the declared secrets as permissions", () => {
    const words = production();
    expect(words.slice(0, 2)).toEqual(["deno", "serve"]);
    expect(words.at(-1)).toBe("worker.mjs");
    expect(flagList(words, "--allow-net")).toEqual([
      `127.0.0.1:${SAMPLE_PORT}`,
      ...manifest.egress.map((e) => `${e.host}:${e.port}`),
    ]);
    expect(flagList(words, "--allow-env")).toEqual([
      ...manifest.secrets.map((s) => s.name),
      "KERVANC_ALLOWED_HOSTS",
      "KERVANC_DENY_NETWORK",
      // Authentication settings (issue 15); never the test-only KERVANC_ALLOW_PRIVATE_NETWORK.
      "KERVANC_AUTH_TOKENS",
      "KERVANC_OAUTH_ISSUER",
      "KERVANC_OAUTH_JWKS_URL",
      "KERVANC_OAUTH_AUDIENCE",
      "KERVANC_INSECURE_NO_AUTH",
      // Serving some of the tools, discovery, schema profiles (docs/runtime.md).
      "KERVANC_TOOLS",
      "KERVANC_TOOLSETS",
      "KERVANC_READ_ONLY",
      "KERVANC_DISCOVERY",
      "KERVANC_SCHEMA_PROFILE",
      // Where upstream requests carry traceparent (docs/runtime.md, "Telemetry").
      "KERVANC_OTEL_PROPAGATE_TO",
    ]);
    expect(flagList(words, "--deny-net")).toContain("169.254.0.0/16");
    expect(words.some((w) => /^--allow-(read|write|run|ffi|sys|all)|^-A$/.test(w))).toBe(false);
  });

  it("refuses the loopback upstream with the README's flags: the test-only allowance cannot even be read", async () => {
    const port = await freePort();
    const service = await startService(runtimeBinary("deno"), command(String(port), false).slice(1), {
      env: env(),
      cwd: pkg,
      port,
    });
    try {
      const client = await httpClient("modern", service.url);
      try {
        const before = upstream.requests.length;
        const result = await client.callTool("get_item", { id: 1 });
        expect(result).toMatchObject({
          isError: true,
          content: [
            {
              type: "text",
              text: `Request to 127.0.0.1:${upstream.port} was blocked: it resolves to a disallowed address (loopback address).`,
            },
          ],
        });
        expect(upstream.requests.length).toBe(before);
      } finally {
        await client.close();
      }
    } finally {
      await service.stop();
    }
  });

  describeHttp("Deno", async () => {
    const port = await freePort();
    return startService(runtimeBinary("deno"), command(String(port), true).slice(1), { env: env(), cwd: pkg, port });
  });
});

describe("Bun serving worker.mjs", () => {
  describeHttp("Bun", async () => {
    const [line] = readmeCommands(readme, "### Bun");
    const port = String(await freePort());
    const words = replaceWord(shellWords(line!), SAMPLE_PORT, port);
    expect(words[0]).toBe("bun");
    return startService(runtimeBinary("bun"), words.slice(1), {
      env: { API_TOKEN: TOKEN, [ALLOW_PRIVATE]: "1", NODE_EXTRA_CA_CERTS: TEST_CA, DO_NOT_TRACK: "1", NO_COLOR: "1" },
      cwd: pkg,
      port: Number(port),
    });
  });
});

describe("workerd serving worker.mjs without nodejs_compat", () => {
  describeHttp("workerd", async () => {
    const [line] = readmeCommands(readme, "### Cloudflare Workers (workerd)");
    expect(shellWords(line!)).toEqual(["workerd", "serve", "workerd.capnp"]);
    const port = String(await freePort());
    // The package's sample configuration, changed only where a test must: the port, loopback for the upstream,
    // the test CA, and the test-only allowance.
    let config = await readFile(join(pkg, "workerd.capnp"), "utf8");
    expect(config).not.toContain("nodejs_compat");
    const edits: [string, string][] = [
      [`address = "127.0.0.1:${SAMPLE_PORT}"`, `address = "127.0.0.1:${port}"`],
      ['allow = ["public"]', 'allow = ["public", "local"]'],
      [
        "tlsOptions = (trustBrowserCas = true)",
        'tlsOptions = (trustBrowserCas = true, trustedCertificates = [embed "test-ca.pem"])',
      ],
      ["  bindings = [\n", `  bindings = [\n    (name = "${ALLOW_PRIVATE}", text = "1"),\n`],
    ];
    for (const [from, to] of edits) {
      expect(config, `the sample configuration has ${from}`).toContain(from);
      config = config.replace(from, to);
    }
    await copyFile(TEST_CA, join(pkg, "test-ca.pem"));
    await writeFile(join(pkg, "test.capnp"), config);
    return startService(runtimeBinary("workerd"), ["serve", "test.capnp"], {
      env: { API_TOKEN: TOKEN },
      cwd: pkg,
      port: Number(port),
    });
  });
});
