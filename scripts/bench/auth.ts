/**
 * What authentication costs a generated server over Streamable HTTP: the server's CPU per tool call without
 * authentication (the baseline), with a static bearer token (--auth-tokens-file) and with OAuth (an ES256 JWT
 * verified against a key set served on 127.0.0.1), all three the same 1-tool bench package calling the bench
 * upstream over loopback, under the same load (10 connections, one call at a time each). A client sends the same
 * token with every request, as MCP clients do, so what OAuth costs per call is mostly whether each request's
 * token is verified again (auth.ts keeps verified tokens for up to a minute).
 *
 *   node --import tsx scripts/bench/auth.ts [--windows 9] [--calls 2000]
 *
 * Prints a Markdown table: server CPU µs per call (median, p90 and min over the windows, CPU of all the server's
 * threads from /proc) and how many times the baseline's each row's is, paired window by window (median,
 * p25-p75). Windows rotate the order of the servers so machine drift hits all alike.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { parseArgs } from "node:util";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { REPO } from "./bundles.ts";
import { generateSpec, PRIMARY_ARGS, PRIMARY_TOOL } from "./gen-specs.ts";
import { type LoadTarget, modernTarget, runLoad } from "./loadgen.ts";
import { formatNumber, formatPaired, pairedRatio, summarize } from "./stats.ts";
import { killAll, startHttp, startUpstream } from "./processes.ts";
import { cpuMs } from "./stdio.ts";

const { values } = parseArgs({
  options: { windows: { type: "string", default: "9" }, calls: { type: "string", default: "2000" } },
});
const windows = Number(values.windows);
const calls = Number(values.calls);
const ISSUER = "https://auth.bench.test";
const AUDIENCE = "https://mcp.bench.test/mcp";
const STATIC_TOKEN = "bench-static-token-0123456789abcdef";

const work = mkdtempSync(join(tmpdir(), "kervanc-bench-auth-"));
const keySet = http.createServer();
try {
  const upstream = await startUpstream(process.execPath);
  writeFileSync(join(work, "bench-auth.yaml"), generateSpec(1, upstream.origin));
  execFileSync(
    process.execPath,
    [join(REPO, "packages", "compiler", "bin", "kervanc.js"), "build", work, "-o", join(work, "out")],
    {
      cwd: REPO,
      stdio: "ignore",
    },
  );
  const server = join(work, "out", "bench-auth", "server.mjs");

  const pair = await generateKeyPair("ES256", { extractable: true });
  const published = JSON.stringify({ keys: [{ ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "ES256" }] });
  keySet.on("request", (_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(published));
  await new Promise<void>((done) => keySet.listen(0, "127.0.0.1", done));
  const jwksUrl = `http://127.0.0.1:${(keySet.address() as AddressInfo).port}/jwks.json`;
  const jwt = await new SignJWT({})
    .setProtectedHeader({ alg: "ES256", kid: "k1" })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject("bench-user")
    .setExpirationTime("2h")
    .sign(pair.privateKey);
  writeFileSync(join(work, "tokens.txt"), `${STATIC_TOKEN}\n`);

  const serve = async (args: string[]): Promise<{ pid: number; url: string }> => {
    const { child, url } = await startHttp(
      process.execPath,
      [server, "--http", "--port", "0", "--allow-private-network", "--client-rate-limit", "0", ...args],
      { urlPattern: /Serving \S+ on (\S+)/ },
    );
    return { pid: child.pid!, url };
  };
  const rows = [
    { name: "no authentication (baseline)", server: await serve([]), token: null },
    {
      name: "static bearer token (--auth-tokens-file)",
      server: await serve(["--auth-tokens-file", join(work, "tokens.txt")]),
      token: STATIC_TOKEN,
    },
    {
      name: "OAuth, ES256 JWT (the same token on every request)",
      server: await serve(["--oauth-issuer", ISSUER, "--oauth-jwks-url", jwksUrl, "--oauth-audience", AUDIENCE]),
      token: jwt,
    },
  ];
  const mix = [{ tool: PRIMARY_TOOL, args: PRIMARY_ARGS }];
  const target = (url: string, token: string | null): LoadTarget => {
    const base = modernTarget(url);
    return token === null
      ? base
      : { ...base, headers: (tool) => ({ ...base.headers(tool), authorization: `Bearer ${token}` }) };
  };
  // Warm-up: every server reaches steady JIT state (and fetches its key set) before anything is recorded.
  for (const row of rows) await runLoad(target(row.server.url, row.token), { connections: 10, calls: 1000, mix });
  const cpu: number[][] = rows.map(() => []);
  for (let w = 0; w < windows; w++) {
    for (let i = 0; i < rows.length; i++) {
      const at = (i + w) % rows.length;
      const row = rows[at]!;
      const before = cpuMs(row.server.pid);
      const result = await runLoad(target(row.server.url, row.token), { connections: 10, calls, mix });
      if (result.errors > 0) throw new Error(`${row.name}: ${result.firstError ?? "errors"}`);
      cpu[at]!.push(((cpuMs(row.server.pid) - before) * 1000) / calls);
    }
  }
  const lines = [
    `Server CPU per tool call over Streamable HTTP (µs; ${windows} windows of ${calls} calls, 10 connections, interleaved)`,
    "",
    "| server | median | p90 | min | vs no authentication, paired (p25-p75) |",
    "| --- | --- | --- | --- | --- |",
  ];
  rows.forEach((row, i) => {
    const s = summarize(cpu[i]!);
    const paired = i === 0 ? "1.00x" : formatPaired(pairedRatio(cpu[i]!, cpu[0]!));
    lines.push(
      `| ${row.name} | ${formatNumber(s.median, 0)} | ${formatNumber(s.p90, 0)} | ${formatNumber(s.min, 0)} | ${paired} |`,
    );
  });
  process.stdout.write(`${lines.join("\n")}\n`);
} finally {
  killAll();
  keySet.closeAllConnections();
  keySet.close();
  rmSync(work, { recursive: true, force: true });
}
