/**
 * Incremental builds: a package built by this kervanc version from the same spec bytes is skipped (and left
 * alone), a changed spec or another kervanc version rebuilds it, and --force rebuilds everything. The summary
 * stays one line.
 */
import { createHash } from "node:crypto";
import { copyFile, mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kervanc, REPO, removeDir, tempDir } from "../helpers/kervanc.ts";

const SPECS = [join(REPO, "fixtures", "specs", "open-meteo.yaml"), join(REPO, "test", "emit", "specs", "catalog.yaml")];
const KERVANC_VERSION = (
  JSON.parse(await readFile(join(REPO, "packages", "compiler", "package.json"), "utf8")) as { version: string }
).version;

const sha256 = (data: string | Uint8Array): string => createHash("sha256").update(data).digest("hex");

let root: string;

afterAll(async () => {
  if (root) await removeDir(root);
});

describe("incremental builds", () => {
  let specDir: string;
  let out: string;
  const build = async (...extra: string[]): Promise<string> => {
    const r = await kervanc(["build", specDir, "-o", out, ...extra]);
    expect(r.code, r.stderr).toBe(0);
    // Only the summary line, but for catalog.yaml's KV2015 (Lookup.Place, a dot some clients refuse) when it is built.
    const lines = r.stderr.trim().split("\n");
    const summary = lines.at(-1)!;
    const rest = lines.slice(0, -1).join("\n");
    if (rest !== "") expect(rest.match(/ - (error|warning|info) KV\d+/g)).toEqual([" - warning KV2015"]);
    return `${summary}\n`;
  };

  beforeAll(async () => {
    root = await tempDir("incremental");
    specDir = join(root, "specs");
    out = join(root, "out");
    await mkdir(specDir);
    for (const spec of SPECS) await copyFile(spec, join(specDir, spec.split("/").pop()!));
    await build();
  });

  it("skips specs whose package was built by this version from the same bytes", async () => {
    // A file the build would remove if it rewrote the package.
    await writeFile(join(out, "open-meteo", "marker"), "x");
    expect(await build()).toMatch(/^Built 0 servers \(0 tools\), skipped 2 unchanged, into .* in \d+\.\d\d s\.\n$/);
    expect((await stat(join(out, "open-meteo", "marker"))).isFile()).toBe(true);
  });

  it("rebuilds a changed spec only", async () => {
    const file = join(specDir, "catalog.yaml");
    await writeFile(
      file,
      (await readFile(file, "utf8")).replace("A product catalog, for tests.", "A product catalog."),
    );
    expect(await build()).toMatch(/^Built 1 server \(4 tools\), skipped 1 unchanged, into /);
    expect(await readFile(join(out, "catalog", "manifest.json"), "utf8")).toContain(sha256(await readFile(file)));
    expect((await stat(join(out, "open-meteo", "marker"))).isFile()).toBe(true);
  });

  it("rebuilds everything with --force", async () => {
    expect(await build("--force")).toMatch(/^Built 2 servers \(5 tools\) into /);
    await expect(stat(join(out, "open-meteo", "marker"))).rejects.toThrow();
  });

  it("rebuilds a package whose manifest names another kervanc version", async () => {
    const path = join(out, "open-meteo", "manifest.json");
    await writeFile(
      path,
      (await readFile(path, "utf8")).replace(`"kervancVersion": "${KERVANC_VERSION}"`, '"kervancVersion": "0.0.1-old"'),
    );
    expect(await build()).toMatch(/^Built 1 server \(1 tool\), skipped 1 unchanged, into /);
  });

  it("rebuilds a package written by a different kervanc under the same version (another content identity)", async () => {
    const path = join(out, "open-meteo", "manifest.json");
    const text = await readFile(path, "utf8");
    const identity = /"kervancContentSha256": "([0-9a-f]{64})"/.exec(text)?.[1];
    expect(identity).toBeDefined();
    await writeFile(path, text.replace(identity!, "0".repeat(64)));
    await writeFile(join(out, "open-meteo", "marker"), "x");
    expect(await build()).toMatch(/^Built 1 server \(1 tool\), skipped 1 unchanged, into /);
    expect(await readFile(path, "utf8")).toContain(identity!);
    await expect(stat(join(out, "open-meteo", "marker"))).rejects.toThrow();
  });

  it("does not skip an unchanged spec under --strict-kervan, which refuses what its build accepted", async () => {
    const dir = join(root, "strict");
    await mkdir(join(dir, "specs"), { recursive: true });
    const spec = `specVersion: 1
kervancExtensions: [omit-absent]
name: tickets
version: "1.0"
tools:
  - name: update_ticket
    description: Change a ticket.
    input:
      type: object
      properties: { id: { type: integer }, title: { type: string } }
      required: [id]
    http:
      method: PATCH
      url: https://api.example.com/tickets/{{input.id}}
      body: { title: "{{input.title}}" }
      omitAbsent: true
    output: { select: "{id: id}" }
`;
    await writeFile(join(dir, "specs", "tickets.yaml"), spec);
    const first = await kervanc(["build", join(dir, "specs"), "-o", join(dir, "out")]);
    expect(first.code, first.stderr).toBe(0);
    const strict = await kervanc(["build", join(dir, "specs"), "-o", join(dir, "out"), "--strict-kervan"]);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toMatch(/ - error KV8001/);
    // Without it, the unchanged spec is skipped, and its size comes from its manifest.
    const again = await kervanc(["build", join(dir, "specs"), "-o", join(dir, "out")]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/skipped 1 unchanged/);
    expect(again.stdout).toBe(first.stdout);
  });

  it("records the identity of this kervanc's compiler and runtime content, which changes when the runtime does", async () => {
    const { contentIdentity } = await import("../../packages/compiler/src/emit/versions.ts");
    const dir = join(root, "identity");
    await mkdir(join(dir, "runtime"), { recursive: true });
    await writeFile(join(dir, "runtime", "a.ts"), "export const a = 1;\n");
    const pins = { "@modelcontextprotocol/server": "2.4.0" };
    const first = contentIdentity([{ label: "runtime", dir: join(dir, "runtime") }], pins);
    expect(contentIdentity([{ label: "runtime", dir: join(dir, "runtime") }], pins)).toBe(first);
    await writeFile(join(dir, "runtime", "a.ts"), "export const a = 2;\n");
    const edited = contentIdentity([{ label: "runtime", dir: join(dir, "runtime") }], pins);
    expect(edited).not.toBe(first);
    expect(
      contentIdentity([{ label: "runtime", dir: join(dir, "runtime") }], { "@modelcontextprotocol/server": "2.4.1" }),
    ).not.toBe(edited);
  });
});
