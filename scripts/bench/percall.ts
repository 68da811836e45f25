/**
 * Per-call cost in process, run as its own process by run.ts (so the JIT state of the orchestrator does not
 * leak in), printing one JSON object on stdout.
 *
 * "stub" variants answer the upstream request at once, without a socket, so what is left is the per-call work:
 * validate the arguments, render the request, (send), read and parse the body, redact, select, check the output,
 * build the result, redact the result. The spec variant used here sends a secret (so redaction is real work),
 * which kervanc allows only over https: the stub never connects, so the https URL costs nothing.
 *   kervanc      the built package's own modules (plan texts, standalone validators, runtime copy), bundled and
 *                minified as its server.mjs is
 *   interpreted  the same runtime with the plan and Ajv validators made in process from the YAML
 *   handwritten  scripts/bench/handwritten/tool.ts
 *   handwritten-safe  scripts/bench/handwritten/tool-safe.ts: the same tool doing kervanc's safety work by hand
 *                (one deadline, byte cap, body redacted before selecting, output cap and schema check)
 * "socket" variants call the benchmark upstream (another process) over loopback, one call at a time:
 *   kervanc      the package's ToolRunner over its real Node transport (address check, pooled keep-alive
 *                connections), and the same with pooling off (a pinned fresh connection per call)
 *   handwritten  node:http with a keep-alive agent, and with a fresh connection per call
 *   handwritten-safe  tool-safe.ts through the same keep-alive agent (its body collected as chunks)
 *   ...-named    the same two keep-alive clients calling the upstream by host name (`localhost`), where a hop
 *                asks DNS when it opens a connection (kervanc) or Node's agent does (hand-written)
 *
 *   node --import tsx scripts/bench/percall.ts '<json config>'
 *   PERCALL_ONLY='^socket/kervanc$' node --import tsx --cpu-prof scripts/bench/percall.ts '<json config>'   # profile one variant
 */
import { readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { pathToFileURL } from "node:url";
import * as esbuild from "esbuild";
import { join } from "node:path";
import process from "node:process";
import { analyzeSpec } from "../../packages/compiler/src/analyze/analyze.ts";
import { loadSpec } from "../../packages/compiler/src/load/load.ts";
import { planServer } from "../../packages/compiler/src/plan/plan.ts";
import type { HopTransport } from "../../packages/runtime/src/net/upstream.ts";
import type * as NetAddress from "../../packages/runtime/src/net/address.ts";
import type * as LookupGateModule from "../../packages/runtime/src/net/lookup-gate.ts";
import type * as NodeTransport from "../../packages/runtime/src/net/node-transport.ts";
import type { CompiledServer, CompiledValidator } from "../../packages/runtime/src/plan.ts";
import type * as Runner from "../../packages/runtime/src/call/runner.ts";
import type * as Secrets from "../../packages/runtime/src/secrets/secrets.ts";
import type * as Define from "../../packages/runtime/src/define.ts";
import { PRIMARY_ARGS, PRIMARY_TOOL, SECRET_NAME, SECRET_VALUE, upstreamBody } from "./gen-specs.ts";
import { nodeSend, nodeSendBytes } from "./handwritten/send.ts";
import { callTool, type Send } from "./handwritten/tool.ts";
import { callToolSafely, tokenForms, type SendBytes } from "./handwritten/tool-safe.ts";

export interface PercallConfig {
  /** Built package of the 1-tool spec with a secret and an https origin (for the stub variants). */
  readonly stubPackage: string;
  /** That spec's YAML (for the interpreted variant). */
  readonly stubSpec: string;
  /** Built package of the 1-tool spec against the local upstream, or null to skip the socket variants. */
  readonly socketPackage: string | null;
  readonly upstreamOrigin: string | null;
  /** The same 1-tool spec built against the upstream by host name (`localhost`), and that origin. */
  readonly namedPackage: string | null;
  readonly namedOrigin: string | null;
  readonly rounds: number;
  readonly stubCalls: number;
  readonly socketCalls: number;
}

export interface PercallResult {
  /** Wall-clock microseconds per call, one sample per round, per variant. */
  readonly samples: Record<string, number[]>;
  /** CPU microseconds (user + system, this process) per call, likewise: steadier on a shared machine. */
  readonly cpu: Record<string, number[]>;
}

type Call = () => Promise<{ isError?: boolean; content?: unknown }>;

const config = JSON.parse(process.argv[2] ?? "{}") as PercallConfig;
const bodyBytes = new TextEncoder().encode(upstreamBody());
const noop = (): void => {};

/** A transport that answers every hop at once with the fixed body. */
const stubTransport: HopTransport = {
  decoders: new Map(),
  send: () =>
    Promise.resolve({
      status: 200,
      headers: new Map([["content-type", "application/json"]]),
      body: (async function* () {
        yield bodyBytes;
      })(),
      discard: noop,
    }),
};

const stubSend: Send = () =>
  Promise.resolve({ status: 200, contentType: "application/json", body: Buffer.from(bodyBytes).toString("utf8") });

/** The same answer as raw chunks, as the stub transport gives them to kervanc. */
const stubSendBytes: SendBytes = () =>
  Promise.resolve({
    status: 200,
    contentType: "application/json",
    chunks: (async function* () {
      yield bodyBytes;
    })(),
  });

interface RuntimeModules {
  readonly runner: typeof Runner;
  readonly secrets: typeof Secrets;
  readonly address: typeof NetAddress;
  readonly gate: typeof LookupGateModule;
  readonly transport: typeof NodeTransport;
  readonly define: typeof Define;
}

/**
 * The runtime modules (and the package's compiled server, if any) as one esbuild bundle, minified like the
 * shipped `server.mjs`: measuring the TypeScript sources through tsx would add its `keepNames` wrapper
 * (`__name(...)`) to every closure, which the shipped bundle does not have.
 */
async function runtimeAt(
  dir: string,
  serverModule: string | null = null,
): Promise<RuntimeModules & { server: CompiledServer | null }> {
  const names = {
    runner: "call/runner.ts",
    secrets: "secrets/secrets.ts",
    address: "net/address.ts",
    gate: "net/lookup-gate.ts",
    transport: "net/node-transport.ts",
    define: "define.ts",
  } as const;
  const lines = Object.entries(names).map(
    ([name, path]) => `export * as ${name} from ${JSON.stringify(join(dir, path))};`,
  );
  lines.push(
    serverModule === null ? "export const server = null;" : `export { server } from ${JSON.stringify(serverModule)};`,
  );
  const outfile = join(tmpdir(), `kervanc-percall-${process.pid}-${bundles++}.mjs`);
  await esbuild.build({
    stdin: { contents: lines.join("\n"), resolveDir: dir, loader: "ts" },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    // Minified as server.mjs is; PERCALL_READABLE=1 keeps the names, for reading a profile.
    minify: process.env["PERCALL_READABLE"] === undefined,
    outfile,
    nodePaths: [join(REPO, "node_modules")],
    logLevel: "silent",
  });
  const modules = (await import(pathToFileURL(outfile).href)) as RuntimeModules & { server: CompiledServer | null };
  // Loaded: the file is not needed any more, and runs must not pile them up in the temporary folder.
  rmSync(outfile, { force: true });
  return modules;
}

let bundles = 0;
const REPO = join(import.meta.dirname, "..", "..");

/**
 * A call through a package's ToolRunner, and `renew`, which starts a new runner before each batch (outside the
 * timed part). The runner's per-tool limit is the format's maximum of 100,000 calls a minute, and on a quiet
 * machine one runner's 42 batches of 3,000 stub calls came to more than that within a minute: a call refused by
 * the limiter measures the refusal, not the call. A batch stays far below the limit, and the limiter's work per
 * call (a fixed window's counter) is the same in a new runner as in an old one.
 */
function runnerCall(
  rt: RuntimeModules,
  server: CompiledServer,
  transport: HopTransport,
  withSecret: boolean,
): Pick<Variant, "call" | "renew"> {
  const signal = new AbortController().signal;
  let runner = newRunner();
  function newRunner(): Runner.ToolRunner {
    const made = new rt.runner.ToolRunner(server, {
      transport,
      secretSource: rt.secrets.envSecrets(withSecret ? { [SECRET_NAME]: SECRET_VALUE } : {}),
      vault: new rt.secrets.SecretVault(),
      allowSecretsOverHttp: false,
      log: noop,
    });
    const prepared = made.prepareSecrets();
    if (prepared.errors.length > 0 || prepared.warnings.length > 0)
      throw new Error([...prepared.errors, ...prepared.warnings].join("\n"));
    return made;
  }
  return {
    call: () => runner.call(PRIMARY_TOOL, PRIMARY_ARGS, signal),
    renew: () => {
      runner = newRunner();
    },
  };
}

/** The built package's runtime and compiled server, bundled together as its `server.mjs` bundles them. */
async function packageAt(pkg: string): Promise<RuntimeModules & { server: CompiledServer }> {
  const modules = await runtimeAt(join(pkg, "src", "runtime"), join(pkg, "src", "server.ts"));
  return { ...modules, server: modules.server! };
}

function interpretedServer(rt: RuntimeModules, specFile: string): CompiledServer {
  const loaded = loadSpec(specFile, readFileSync(specFile));
  if (!loaded.ok) throw new Error("the spec does not load");
  const checked = analyzeSpec(loaded.spec.value);
  if (checked.analyzed === null) throw new Error("the spec does not check");
  const planned = planServer(checked.analyzed);
  return rt.define.defineServer(
    planned.plan,
    planned.tools.map((t) => ({
      plan: t.plan,
      validateInput: t.input.validate as unknown as CompiledValidator,
      validateOutput: (t.output?.validate ?? null) as unknown as CompiledValidator | null,
    })),
  );
}

async function batch(call: Call, count: number): Promise<{ wall: number; cpu: number }> {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    const result = await call();
    if (result.isError) throw new Error(`a call failed: ${JSON.stringify(result.content)}`);
  }
  const cpu = process.cpuUsage(c0);
  return { wall: ((performance.now() - t0) * 1000) / count, cpu: (cpu.user + cpu.system) / count };
}

interface Variant {
  readonly name: string;
  readonly call: Call;
  readonly calls: number;
  /** Called before each batch, outside its timing. */
  readonly renew?: () => void;
}

const variants: Variant[] = [];
const token = SECRET_VALUE;
const stubPackage = await packageAt(config.stubPackage);
const repoRuntime = await runtimeAt(join(REPO, "packages", "runtime", "src"));
variants.push({
  name: "stub/handwritten",
  call: () => callTool(PRIMARY_ARGS, { send: stubSend, token, timeoutMs: 10_000 }),
  calls: config.stubCalls,
});
const safe = {
  send: stubSendBytes,
  token,
  forms: tokenForms(token),
  timeoutMs: 10_000,
  maxResponseBytes: 1_048_576,
  maxOutputChars: 20_000,
};
variants.push({
  name: "stub/handwritten-safe",
  call: () => callToolSafely(PRIMARY_ARGS, safe),
  calls: config.stubCalls,
});
variants.push({
  name: "stub/kervanc",
  ...runnerCall(stubPackage, stubPackage.server, stubTransport, true),
  calls: config.stubCalls,
});
variants.push({
  name: "stub/interpreted",
  ...runnerCall(repoRuntime, interpretedServer(repoRuntime, config.stubSpec), stubTransport, true),
  calls: config.stubCalls,
});

if (config.socketPackage !== null && config.upstreamOrigin !== null) {
  const origin = new URL(config.upstreamOrigin);
  const rt = await packageAt(config.socketPackage);
  const transport = rt.transport.createNodeTransport({
    policy: rt.address.createNetworkPolicy(rt.address.allowPrivateNetwork()),
    gate: new rt.gate.LookupGate(4),
  });
  const unpooled = rt.transport.createNodeTransport({
    policy: rt.address.createNetworkPolicy(rt.address.allowPrivateNetwork()),
    gate: new rt.gate.LookupGate(4),
    pool: false,
  });
  const keepAlive = nodeSend(origin, false);
  const fresh = nodeSend(origin, true);
  variants.push({
    name: "socket/handwritten",
    call: () => callTool(PRIMARY_ARGS, { send: keepAlive, token: undefined, timeoutMs: 10_000 }),
    calls: config.socketCalls,
  });
  const keepAliveBytes = nodeSendBytes(origin, safe.maxResponseBytes);
  variants.push({
    name: "socket/handwritten-safe",
    call: () => callToolSafely(PRIMARY_ARGS, { ...safe, send: keepAliveBytes, token: undefined, forms: [] }),
    calls: config.socketCalls,
  });
  variants.push({
    name: "socket/handwritten-fresh",
    call: () => callTool(PRIMARY_ARGS, { send: fresh, token: undefined, timeoutMs: 10_000 }),
    calls: config.socketCalls,
  });
  variants.push({
    name: "socket/kervanc",
    ...runnerCall(rt, rt.server, transport, false),
    calls: config.socketCalls,
  });
  variants.push({
    name: "socket/kervanc-unpooled",
    ...runnerCall(rt, rt.server, unpooled, false),
    calls: config.socketCalls,
  });
  if (config.namedPackage !== null && config.namedOrigin !== null) {
    const named = await packageAt(config.namedPackage);
    const namedTransport = named.transport.createNodeTransport({
      policy: named.address.createNetworkPolicy(named.address.allowPrivateNetwork()),
      gate: new named.gate.LookupGate(4),
    });
    const namedKeepAlive = nodeSend(new URL(config.namedOrigin), false);
    variants.push({
      name: "socket/handwritten-named",
      call: () => callTool(PRIMARY_ARGS, { send: namedKeepAlive, token: undefined, timeoutMs: 10_000 }),
      calls: config.socketCalls,
    });
    variants.push({
      name: "socket/kervanc-named",
      ...runnerCall(named, named.server, namedTransport, false),
      calls: config.socketCalls,
    });
  }
}

// PERCALL_ONLY=<regexp> keeps only the variants whose names match (for profiling one path with --cpu-prof).
const only = process.env["PERCALL_ONLY"];
if (only !== undefined) variants.splice(0, variants.length, ...variants.filter((v) => new RegExp(only).test(v.name)));
// Warm-up: let every variant reach steady JIT state before anything is recorded.
for (const v of variants) {
  v.renew?.();
  await batch(v.call, v.calls);
}
const samples: Record<string, number[]> = {};
const cpu: Record<string, number[]> = {};
for (let round = 0; round < config.rounds; round++) {
  // Rotate the order every round, so no variant always runs right after the same other one.
  for (let i = 0; i < variants.length; i++) {
    const v = variants[(i + round) % variants.length]!;
    v.renew?.();
    const b = await batch(v.call, v.calls);
    (samples[v.name] ??= []).push(b.wall);
    (cpu[v.name] ??= []).push(b.cpu);
  }
}
const result: PercallResult = { samples, cpu };
process.stdout.write(`${JSON.stringify(result)}\n`);
