/**
 * Running kervanc as a user does (the installed `kervanc` bin, in a child process), and preparing specs that
 * point at a local upstream instead of the real API.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, writeFile, mkdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, extname, join, resolve } from "node:path";
import { promisify } from "node:util";
import { expect } from "vitest";
import { parseDocument } from "yaml";

export const REPO = resolve(import.meta.dirname, "..", "..");
export const FIXTURES = join(REPO, "fixtures");

const run = promisify(execFile);

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export async function kervanc(
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      [join(REPO, "packages", "compiler", "bin", "kervanc.js"), ...args],
      {
        cwd: options.cwd ?? REPO,
        env: options.env ?? process.env,
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === "number" ? e.code : -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

export async function tempDir(prefix: string): Promise<string> {
  return mkdtemp(join(tmpdir(), `kervanc-${prefix}-`));
}

/**
 * Rewrites a spec so every tool calls `origin` (keeping each URL's path), with plain http allowed: the tests'
 * upstream listens on 127.0.0.1 without TLS.
 */
export function pointSpecAt(yamlText: string, origin: string): string {
  const doc = parseDocument(yamlText);
  const tools = doc.get("tools") as { items: { getIn(p: string[]): unknown; setIn(p: string[], v: unknown): void }[] };
  for (const tool of tools.items) {
    const url = new URL(
      String(tool.getIn(["http", "url"]))
        .replace(/\{\{/g, "%7B%7B")
        .replace(/\}\}/g, "%7D%7D"),
    );
    const path = decodeURI(url.pathname)
      .replace(/%7B%7B/gi, "{{")
      .replace(/%7D%7D/gi, "}}");
    tool.setIn(["http", "url"], `${origin}${path}${url.search}`);
    tool.setIn(["http", "allowInsecureHttp"], true);
  }
  return doc.toString();
}

/** Copies fixture specs into a temp folder, pointed at `origin`, and builds them. */
export async function buildFixtures(
  specs: readonly string[],
  origin: string,
): Promise<{ specDir: string; outDir: string; result: CliResult }> {
  const root = await tempDir("build");
  const specDir = join(root, "specs");
  const outDir = join(root, "out");
  await mkdir(specDir);
  for (const spec of specs) {
    const text = await readFile(join(FIXTURES, "specs", spec), "utf8");
    await writeFile(join(specDir, spec), pointSpecAt(text, origin));
  }
  const result = await kervanc(["build", specDir, "-o", outDir]);
  return { specDir, outDir, result };
}

/**
 * A spec with one tool, `get`, whose upstream (api.example.test, a name that never resolves) is not reached: for
 * the suites about the server's own transport and limits, where what the tool would call does not matter.
 */
export function getThingSpec(name: string): string {
  return `specVersion: 1
name: ${name}
version: "1.0.0"
tools:
  - name: get
    description: Gets a thing.
    http: { url: "https://api.example.test/thing" }
    output: { select: "@" }
`;
}

/** Where {@link buildOneSpec} put things: the temp folder (the caller removes it), `out` and the one package. */
export interface OneSpecBuild {
  readonly root: string;
  readonly outDir: string;
  readonly packageDir: string;
  readonly serverPath: string;
}

/**
 * Writes `yamlText` as `<root>/specs/<fileName>` in a fresh temp folder and builds that folder with the CLI into
 * `<root>/out`, as a user would: the set-up of every suite that runs one spec's server as a process. The build
 * must exit 0; when it does not, the folder is removed (the caller never gets it) and the failure shows the CLI's
 * stderr. The package's folder is named after the file (build.ts), not the spec's `name`.
 */
export async function buildOneSpec(prefix: string, fileName: string, yamlText: string): Promise<OneSpecBuild> {
  const root = await tempDir(prefix);
  const outDir = join(root, "out");
  await mkdir(join(root, "specs"));
  await writeFile(join(root, "specs", fileName), yamlText);
  const built = await kervanc(["build", join(root, "specs"), "-o", outDir]);
  if (built.code !== 0) await removeDir(root);
  expect(built.code, built.stderr).toBe(0);
  const packageDir = join(outDir, basename(fileName, extname(fileName)));
  return { root, outDir, packageDir, serverPath: join(packageDir, "server.mjs") };
}

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/**
 * Text output without the code frames and documentation lines under each diagnostic (they are indented, or start
 * with "> "), for tests about the diagnostic lines themselves. test/cli/formats.test.ts tests the frames.
 */
export function withoutFrames(stderr: string): string {
  return stderr
    .split("\n")
    .filter((line) => !line.startsWith("  ") && !line.startsWith("> "))
    .join("\n");
}
