/**
 * The generated Dockerfile builds Node's compile cache into the image (emit/files/deploy-files.ts), and the server
 * reads it at every start without being able to change it. There is no container runtime on the test machines,
 * so this test runs the Dockerfile's own instructions, as generated, in a temporary folder that stands for the
 * image's root filesystem: WORKDIR, COPY (with its --chown and --chmod), ENV, USER and RUN (through /bin/sh, as
 * the user in effect), with `/app` mapped into the folder and `node` being Node 22, then Node 24, copied to the
 * folder's /usr/local/bin as in the official images. It then starts the ENTRYPOINT's Node command over stdio as
 * the image's user and as another user id.
 *
 * Switching users needs root (as on CI); elsewhere these tests are reported as skipped.
 */
import { spawn } from "node:child_process";
import { chmod, chown, copyFile, mkdir, readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runtimeBinary } from "../helpers/runtimes.ts";
import { FIXTURES, removeDir, tempDir } from "../helpers/kervanc.ts";
import { requireNode22 } from "../helpers/node22.ts";

const PACKAGE = join(FIXTURES, "golden", "posts");
const IMAGE_ROOT_DIR = "/app";
const isRoot = process.getuid?.() === 0;
const LIST = `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" })}\n`;

interface Instruction {
  readonly op: string;
  readonly args: string;
}

/** Dockerfile instructions: comments dropped, continuations joined. */
function instructions(text: string): Instruction[] {
  return text
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const space = line.search(/\s/);
      return { op: line.slice(0, space).toUpperCase(), args: line.slice(space + 1).trim() };
    });
}

interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function run(
  command: string,
  args: readonly string[],
  options: { uid: number; cwd: string; env: Record<string, string>; input?: string },
): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...args], {
      cwd: options.cwd,
      env: options.env,
      uid: options.uid,
      gid: options.uid,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? "");
  });
}

/** The image after the Dockerfile's instructions ran: its root folder, environment and entry command. */
interface Image {
  readonly root: string;
  readonly workdir: string;
  readonly env: Record<string, string>;
  readonly user: number;
  readonly entrypoint: string[];
}

/** A USER or --chown value's user id: `root` or a number (the Dockerfile names its other user by number). */
function userId(spec: string): number {
  const user = spec.split(":")[0]!;
  const id = user === "root" ? 0 : Number(user);
  if (!Number.isInteger(id)) throw new Error(`The Dockerfile names a user this test cannot map: ${spec}`);
  return id;
}

/** Runs the Dockerfile's instructions with `node` (copied into the image's /usr/local/bin) as its Node. */
async function buildImage(root: string, dockerfile: string, node: string): Promise<Image> {
  const inImage = (path: string): string => path.replaceAll(IMAGE_ROOT_DIR, join(root, IMAGE_ROOT_DIR));
  const bin = join(root, "usr", "local", "bin");
  await mkdir(bin, { recursive: true });
  await copyFile(node, join(bin, "node"));
  await chmod(join(bin, "node"), 0o755);
  await chmod(root, 0o755);
  const env: Record<string, string> = { PATH: `${bin}:/usr/bin:/bin` };
  let workdir = root;
  let user = 0;
  let entrypoint: string[] = [];
  for (const { op, args } of instructions(dockerfile)) {
    if (op === "WORKDIR") {
      workdir = inImage(args);
      await mkdir(workdir, { recursive: true, mode: 0o755 });
    } else if (op === "ENV") {
      const [name, ...value] = args.split("=");
      env[name!] = inImage(value.join("="));
    } else if (op === "USER") {
      user = userId(args);
    } else if (op === "COPY") {
      const words = args.split(/\s+/);
      const flags = Object.fromEntries(
        words.filter((w) => w.startsWith("--")).map((w) => w.slice(2).split("=") as [string, string]),
      );
      const paths = words.filter((w) => !w.startsWith("--"));
      for (const source of paths.slice(0, -1)) {
        const target = join(workdir, source);
        await copyFile(join(PACKAGE, source), target);
        if (flags["chmod"] !== undefined) await chmod(target, parseInt(flags["chmod"], 8));
        if (flags["chown"] !== undefined) await chown(target, userId(flags["chown"]), userId(flags["chown"]));
      }
    } else if (op === "RUN") {
      const ran = await run("/bin/sh", ["-c", inImage(args)], { uid: user, cwd: workdir, env });
      expect(ran.code, `RUN ${args}\n${ran.stderr}`).toBe(0);
    } else if (op === "ENTRYPOINT") {
      entrypoint = JSON.parse(args) as string[];
    } else if (!["FROM", "EXPOSE", "HEALTHCHECK", "CMD"].includes(op)) {
      throw new Error(`The Dockerfile has an instruction this test does not run: ${op}`);
    }
  }
  return { root, workdir, env, user, entrypoint };
}

/** Every file and folder under `dir`, with its owner, mode, size and modification time. */
async function listing(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true });
  return Promise.all(
    [".", ...entries.sort()].map(async (entry) => {
      const s = await stat(join(dir, entry));
      return `${entry} ${s.uid} ${(s.mode & 0o7777).toString(8)} ${s.size} ${s.mtimeMs}`;
    }),
  );
}

let scratch: string;
beforeAll(async () => {
  scratch = await tempDir("dockerfile-cache");
  // The image's users must reach its root folder, as they reach / in a container.
  await chmod(scratch, 0o755);
});
afterAll(async () => {
  if (scratch) await removeDir(scratch);
});

const NODES: [string, () => string][] = [
  ["Node 22", requireNode22],
  ["Node 24", () => runtimeBinary("node24")],
];

describe.runIf(isRoot).each(NODES)(
  "the Dockerfile's compile cache, built and used as the image does (%s)",
  (name, node) => {
    let image: Image;
    let cache: string;
    /** The ENTRYPOINT's Node command (its Node flags and the bundle), served over stdio. */
    const start = (uid: number, debug: boolean) => {
      const [command, ...args] = image.entrypoint;
      const stdioArgs = args.slice(0, args.indexOf("server.mjs") + 1);
      return run(command === "node" ? join(image.root, "usr", "local", "bin", "node") : command!, stdioArgs, {
        uid,
        cwd: image.workdir,
        env: { ...image.env, ...(debug ? { NODE_DEBUG_NATIVE: "COMPILE_CACHE" } : {}) },
        input: LIST,
      });
    };

    beforeAll(async () => {
      const root = join(scratch, name.replace(" ", ""));
      await mkdir(root);
      image = await buildImage(root, await readFile(join(PACKAGE, "deploy", "Dockerfile"), "utf8"), node());
      cache = image.env["NODE_COMPILE_CACHE"]!;
    }, 120_000);

    it("leaves a cache that root owns and no one else can write, and runs as the unprivileged user", async () => {
      expect(image.user).toBe(1000);
      expect(cache.startsWith(image.root)).toBe(true);
      const files = await readdir(cache, { recursive: true, withFileTypes: true });
      expect(files.some((f) => f.isFile())).toBe(true);
      for (const entry of [cache, ...files.map((f) => join(f.parentPath, f.name))]) {
        const s = await stat(entry);
        expect(s.uid, entry).toBe(0);
        expect(s.mode & 0o022, entry).toBe(0);
        expect(s.mode & 0o004, entry).toBe(0o004);
      }
    });

    it("serves from the cache at start (Node accepts it) and writes nothing into it", async () => {
      const before = await listing(cache);
      const started = await start(image.user, true);
      expect(started.code, started.stderr).toBe(0);
      expect(started.stdout).toContain('"name":"list_posts"');
      expect(started.stderr).toMatch(/\[compile cache\].*server\.mjs was accepted/);
      expect(started.stderr).not.toMatch(/^Error/m);
      expect(await listing(cache)).toEqual(before);
    });

    it("starts without the cache, and without a word of error, under another user id", async () => {
      const before = await listing(cache);
      const started = await start(1001, true);
      expect(started.code, started.stderr).toBe(0);
      expect(started.stdout).toContain('"name":"list_posts"');
      expect(started.stderr).not.toMatch(/was accepted/);
      expect(started.stderr).not.toMatch(/^Error/m);
      expect(await listing(cache)).toEqual(before);
    });
  },
);
