/**
 * Baseline (c), the peer: the server that openapi-mcp-generator (npm) generates for the OpenAPI document
 * equivalent to each benchmark spec (gen-specs.ts `generateOpenApi`).
 *
 * It is installed into a cache folder with `npm install --prefix`, not into the workspace: the generated servers
 * depend on the SDK v1, zod 3, axios and hono, which have no business in the workspace's lockfile. Projects are
 * built as the generator's README says (`npm install`, then `tsc`), with one shared node_modules above them, and
 * run with `node build/index.js` (its `npm start`, without the rebuild that `prestart` triggers).
 *
 * One edit is made to the generated Streamable HTTP project before it is compiled, and none to the stdio ones:
 * it listens on 127.0.0.1 instead of every interface (the benchmarks touch nothing beyond loopback). Its port
 * comes from PORT and its upstream from API_BASE_URL, both read by the generated code, so one cached build
 * serves every run.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { generateOpenApi } from "./gen-specs.ts";

const run = promisify(execFile);

export const PEER_PACKAGE = "openapi-mcp-generator";
export const PEER_VERSION = "4.0.1";
/** Baked into the documents; every run overrides it with API_BASE_URL. */
const PLACEHOLDER_ORIGIN = "http://127.0.0.1:9";
/**
 * Installed instead of the newest version the generated package.json allows (^1.14.1): from 1.19.12 on, the
 * generated Streamable HTTP server crashes after its first answer ("ReadableStream is locked": it reads the
 * request body with Hono, then hands the same, now locked, body to fetch-to-node). 1.19.11 is the newest
 * version in the range that runs it. The stdio servers do not use it.
 */
const HONO_NODE_SERVER = "@hono/node-server@1.19.11";

export interface PeerProject {
  readonly tools: number;
  readonly transport: "stdio" | "streamable-http";
  readonly dir: string;
  /** `node <entry>` starts it. */
  readonly entry: string;
}

export interface PeerSetup {
  readonly root: string;
  readonly stdio: ReadonlyMap<number, PeerProject>;
  readonly http: PeerProject;
  /** Versions of what the generated code runs on, as installed. */
  readonly versions: Readonly<Record<string, string>>;
}

interface CacheRecord {
  readonly key: string;
  readonly versions: Record<string, string>;
}

function projectName(tools: number, transport: PeerProject["transport"]): string {
  return transport === "stdio" ? `stdio-${tools}` : `http-${tools}`;
}

function project(root: string, tools: number, transport: PeerProject["transport"]): PeerProject {
  const dir = join(root, "projects", projectName(tools, transport));
  return { tools, transport, dir, entry: join(dir, "build", "index.js") };
}

async function npm(args: readonly string[], cwd: string): Promise<void> {
  const npmCli = process.env["npm_execpath"];
  // Under `npm run`, npm_execpath names npm's own CLI script; otherwise use npm from PATH.
  const [cmd, pre] = npmCli && npmCli.endsWith(".js") ? [process.execPath, [npmCli]] : ["npm", []];
  await run(cmd, [...pre, ...args, "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd,
    maxBuffer: 16 * 1024 * 1024,
    timeout: 300_000,
  });
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/**
 * Patches the Streamable HTTP project to listen on loopback only, and checks that it takes its port from PORT
 * (it does when generated without --port). Fails loudly if the generated code has moved, rather than start a
 * server listening on every interface.
 */
async function patchHttpProject(dir: string): Promise<void> {
  const httpFile = join(dir, "src", "streamable-http.ts");
  const indexFile = join(dir, "src", "index.ts");
  const httpSource = await readFile(httpFile, "utf8");
  const serveCall = /serve\(\{\s*fetch: app\.fetch,\s*port\s*\}/;
  if (!serveCall.test(httpSource))
    throw new Error(`${httpFile}: the serve() call moved; check the peer's listening address before running it.`);
  await writeFile(httpFile, httpSource.replace(serveCall, 'serve({ fetch: app.fetch, port, hostname: "127.0.0.1" }'));
  const indexSource = await readFile(indexFile, "utf8");
  if (!indexSource.includes("setupStreamableHttpServer(server, Number(process.env.PORT) || 3000)")) {
    throw new Error(`${indexFile}: the generated server no longer takes its port from PORT.`);
  }
}

/**
 * Installs the generator, generates the stdio projects for `sizes` and one Streamable HTTP project (1 tool),
 * installs their dependencies and compiles them. Cached under `cacheDir`, keyed by the generator's version and
 * the documents; a second call returns at once.
 */
export async function setupPeer(
  cacheDir: string,
  sizes: readonly number[],
  log: (line: string) => void,
): Promise<PeerSetup> {
  const docs = new Map(sizes.map((n) => [n, JSON.stringify(generateOpenApi(n, PLACEHOLDER_ORIGIN), null, 2)]));
  const key = createHash("sha256")
    .update(`${PEER_PACKAGE}@${PEER_VERSION}\n${HONO_NODE_SERVER}\n${[...docs.values()].join("\n")}`)
    .digest("hex")
    .slice(0, 16);
  const root = join(cacheDir, `peer-${PEER_VERSION}-${key}`);
  const record = join(root, "ready.json");
  const setup = (r: CacheRecord): PeerSetup => ({
    root,
    stdio: new Map(sizes.map((n) => [n, project(root, n, "stdio")])),
    http: project(root, 1, "streamable-http"),
    versions: r.versions,
  });
  if (await exists(record)) return setup(JSON.parse(await readFile(record, "utf8")) as CacheRecord);

  log(`Setting up the peer (${PEER_PACKAGE}@${PEER_VERSION}) in ${root}: npm install, generate, tsc...`);
  const staging = `${root}.tmp-${process.pid}`;
  try {
    return setup(await createPeer(staging, root, sizes, docs, key));
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

async function createPeer(
  staging: string,
  root: string,
  sizes: readonly number[],
  docs: ReadonlyMap<number, string>,
  key: string,
): Promise<CacheRecord> {
  await rm(staging, { recursive: true, force: true });
  await mkdir(join(staging, "projects"), { recursive: true });
  await writeFile(
    join(staging, "package.json"),
    `${JSON.stringify({ name: "kervanc-bench-peer", private: true, type: "module" }, null, 2)}\n`,
  );
  await npm(["install", "--save-exact", `${PEER_PACKAGE}@${PEER_VERSION}`], staging);

  for (const n of sizes) await writeFile(join(staging, `bench-${n}.openapi.json`), docs.get(n)!);
  for (const n of sizes) await generatePeer(staging, n, "stdio", join(staging, "projects", projectName(n, "stdio")));
  await generatePeer(staging, 1, "streamable-http", join(staging, "projects", projectName(1, "streamable-http")));
  await patchHttpProject(join(staging, "projects", projectName(1, "streamable-http")));

  // One install for every project: the union of what their package.json files ask for, as they ask for it.
  const wanted = new Map<string, string>();
  for (const name of [...sizes.map((n) => projectName(n, "stdio")), projectName(1, "streamable-http")]) {
    const pkg = JSON.parse(await readFile(join(staging, "projects", name, "package.json"), "utf8")) as {
      dependencies?: Record<string, string>;
      devDependencies?: Record<string, string>;
    };
    for (const [dep, range] of Object.entries({ ...pkg.dependencies, ...pkg.devDependencies })) wanted.set(dep, range);
  }
  await npm(
    [
      "install",
      ...[...wanted].filter(([dep]) => dep !== "@hono/node-server").map(([dep, range]) => `${dep}@${range}`),
      HONO_NODE_SERVER,
    ],
    staging,
  );

  for (const name of [...sizes.map((n) => projectName(n, "stdio")), projectName(1, "streamable-http")])
    await compilePeer(staging, join(staging, "projects", name));
  const versions: Record<string, string> = {};
  for (const dep of [PEER_PACKAGE, ...wanted.keys()].sort()) {
    versions[dep] = (
      JSON.parse(await readFile(join(staging, "node_modules", dep, "package.json"), "utf8")) as { version: string }
    ).version;
  }
  const done: CacheRecord = { key, versions };
  await writeFile(join(staging, "ready.json"), `${JSON.stringify(done, null, 2)}\n`);
  await rm(root, { recursive: true, force: true });
  await rename(staging, root);
  return done;
}

async function generatePeer(
  root: string,
  tools: number,
  transport: PeerProject["transport"],
  out: string,
): Promise<void> {
  const generator = join(root, "node_modules", PEER_PACKAGE, "bin", "openapi-mcp-generator.js");
  const doc = join(root, `bench-${tools}.openapi.json`);
  await run(process.execPath, [generator, "--input", doc, "--output", out, `--transport=${transport}`, "--force"], {
    cwd: root,
    maxBuffer: 16 * 1024 * 1024,
  });
}

async function compilePeer(root: string, dir: string): Promise<void> {
  await run(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", dir], {
    cwd: root,
    maxBuffer: 16 * 1024 * 1024,
  });
}

/**
 * One build of the peer's `tools`-tool stdio server as its README describes it, dependencies already installed:
 * generate the project, then compile it with tsc. Returns the milliseconds of each step.
 */
export async function buildPeerOnce(
  setup: PeerSetup,
  tools: number,
): Promise<{ generateMs: number; compileMs: number }> {
  const out = join(setup.root, "projects", `build-${process.pid}-${Date.now()}`);
  try {
    const t0 = performance.now();
    await generatePeer(setup.root, tools, "stdio", out);
    const t1 = performance.now();
    await compilePeer(setup.root, out);
    return { generateMs: t1 - t0, compileMs: performance.now() - t1 };
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

/** The peer's answer to a successful call starts like this (it never sets isError). */
export function peerCallSucceeded(text: string): boolean {
  return text.startsWith("API Response (Status: 200)");
}
