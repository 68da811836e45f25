/**
 * `kervanc call --record` against what a cloned repository or a hostile API can hold: a test file that is a
 * symbolic link (the recording must not be written through it, outside the folder the user named), an API that
 * never answers (the relay must give up when the server does, and kervanc must exit), and an answer that never
 * ends or inflates without bound (the relay reads no more than the tool's maxResponseBytes).
 */
import { lstat, mkdir, readdir, readFile, readlink, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Readable } from "node:stream";
import { createGzip } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { kervanc, REPO, removeDir, tempDir } from "../helpers/kervanc.ts";
import { SECRET, weatherSpec } from "./specs.ts";
import { json, startUpstream, type Upstream } from "../helpers/upstream.ts";

let dir: string;
let upstream: Upstream;
let outside: string;
/** Upstream answers the test closed on its side, counted: each never-ending answer must have been cut. */
let cut = 0;

/** A tool that calls `origin` with a small maxResponseBytes and a short timeout, its answer returned as it is. */
function rawSpec(origin: string): string {
  return `specVersion: 1
name: hostile
version: "1.0.0"
tools:
  - name: fetch_it
    description: Fetch it.
    input:
      type: object
      properties:
        mode: { type: string }
      required: [mode]
    http:
      url: ${origin}/it
      query:
        mode: "{{input.mode}}"
      timeoutMs: 1500
      maxResponseBytes: 4096
    output:
      raw: true
`;
}

beforeAll(async () => {
  dir = await tempDir("record-hostile");
  outside = await tempDir("record-outside");
  upstream = await startUpstream((req, res) => {
    const mode = new URLSearchParams(req.query).get("mode");
    if (mode === "never") return; // no answer, ever
    if (mode === "endless") {
      // Zeros forever, gzipped: a few bytes on the wire, unbounded once inflated.
      const zeros = new Readable({ read: () => void zeros.push(Buffer.alloc(65536)) });
      res.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" });
      res.once("close", () => {
        cut++;
        zeros.destroy();
      });
      zeros.pipe(createGzip()).pipe(res);
      return;
    }
    json(res, 200, { ok: true });
  });
  await writeFile(join(dir, "hostile.yaml"), rawSpec(upstream.origin));
});

afterAll(async () => {
  await upstream.close();
  await removeDir(dir);
  await removeDir(outside);
});

const call = (mode: string, record: string): ReturnType<typeof kervanc> =>
  kervanc(["call", join(dir, "hostile.yaml"), "fetch_it", JSON.stringify({ mode }), "--record", record]);

describe("kervanc call --record and a test file that is a symbolic link", () => {
  it("refuses a link to a test file elsewhere and leaves that file as it was", async () => {
    const victim = join(outside, "victim.test.yaml");
    const before = "tests: []\n# someone else's file\n";
    await writeFile(victim, before);
    const link = join(dir, "linked.test.yaml");
    await symlink(victim, link);
    const r = await call("ok", link);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${link} is a symbolic link, not a test file; nothing was written.`);
    expect(await readFile(victim, "utf8")).toBe(before);
    expect(await readlink(link)).toBe(victim);
  });

  it("refuses a link to where no file is yet, and creates nothing there", async () => {
    const target = join(outside, "created.test.yaml");
    const link = join(dir, "dangling.test.yaml");
    await symlink(target, link);
    const r = await call("ok", link);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("is a symbolic link, not a test file; nothing was written.");
    await expect(lstat(target)).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("says so, without a stack trace, when the file's folder does not exist", async () => {
    const r = await call("ok", join(dir, "no-such-folder", "x.test.yaml"));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("could not be written (ENOENT); nothing was written.");
    expect(r.stderr).not.toContain("internal error");
  });

  it("still writes a plain file (the fix refuses links only)", async () => {
    const file = join(dir, "plain.test.yaml");
    const r = await call("ok", file);
    expect(r.code).toBe(0);
    expect(await readFile(file, "utf8")).toContain("name: fetch_it (recorded)");
  });
});

describe("kervanc call --record and a hostile upstream", () => {
  it("exits when the API never answers (the relay gives up with the server) and records nothing", async () => {
    const file = join(dir, "never.test.yaml");
    // Without the relay giving up, kervanc waits on the API forever and this test times out.
    const r = await call("never", file);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("timed out after 1500 ms");
    expect(r.stderr).toContain("the upstream request did not complete (the generated server gave up waiting)");
    await expect(lstat(file)).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("reads an endless, inflating answer only up to the tool's maxResponseBytes, and records nothing", async () => {
    const file = join(dir, "endless.test.yaml");
    const before = cut;
    // Without the cap, the relay inflates zeros until memory runs out and this test never ends.
    const r = await call("endless", file);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("is larger than 4096 bytes; it was not read.");
    expect(r.stderr).toContain("the upstream's answer is larger than the tool's maxResponseBytes");
    await expect(lstat(file)).rejects.toMatchObject({ code: "ENOENT" });
    expect(cut).toBe(before + 1);
  });
});

describe("the record folder", () => {
  it("is left with no temporary files", async () => {
    await mkdir(join(dir, "clean"));
    const file = join(dir, "clean", "x.test.yaml");
    expect((await call("ok", file)).code).toBe(0);
    expect(await readdir(join(dir, "clean"))).toEqual(["x.test.yaml"]);
  });
});

describe("kervanc call --record with secrets from a pipe", () => {
  it.skipIf(process.platform === "win32")(
    "masks the secret read from --secrets-file <(...) (the file is read once, not once by the server and again empty)",
    async () => {
      const folder = join(dir, "piped");
      await mkdir(folder);
      await writeFile(join(folder, "weather.yaml"), weatherSpec(upstream.origin));
      upstream.handle((req, res) => json(res, 200, { city: "Oslo", temp: 3, key: req.headers["x-api-key"] }));
      const file = join(folder, "weather.test.yaml");
      const bin = join(REPO, "packages", "compiler", "bin", "kervanc.js");
      // Process substitution, as a user feeds secrets from a password manager: /dev/fd/N, a pipe read once.
      const script = `"${process.execPath}" "${bin}" call "${join(folder, "weather.yaml")}" get_forecast '{"city":"Oslo"}' --secrets-file <(printf 'API_KEY=${SECRET}\\n') --record "${file}"`;
      const r = await promisify(execFile)("bash", ["-c", script], { cwd: REPO });
      expect(r.stderr).toContain("Recorded the case");
      expect(upstream.requests.at(-1)!.headers["x-api-key"]).toBe(SECRET);
      const text = await readFile(file, "utf8");
      expect(text).not.toContain(SECRET);
      expect(text).toContain('x-api-key: "{{secrets.API_KEY}}"');
    },
  );
});
