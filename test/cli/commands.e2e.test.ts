/**
 * The command line a user meets: help for kervanc and for each command, the version, one-line usage errors in
 * kervanc's own words (never Node's parser's), kervanc init, and the refusal to write packages among the specs.
 */
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kervanc, REPO, removeDir, tempDir } from "../helpers/kervanc.ts";

const VERSION = (
  JSON.parse(await readFile(join(REPO, "packages", "compiler", "package.json"), "utf8")) as { version: string }
).version;
const COMMANDS = ["init", "build", "check", "import", "help"];
let dir: string;

beforeAll(async () => {
  dir = await tempDir("commands");
});

afterAll(async () => {
  if (dir) await removeDir(dir);
});

describe("help and version", () => {
  it.each([["--version"], ["-V"], ["-v"]])("%s prints the version", async (flag) => {
    const r = await kervanc([flag]);
    expect(r).toEqual({ code: 0, stdout: `kervanc ${VERSION}\n`, stderr: "" });
  });

  it.each([[["help"]], [["--help"]], [["-h"]]])("%j prints the overview of every command", async (args) => {
    const r = await kervanc(args);
    expect(r.code).toBe(0);
    for (const command of COMMANDS) expect(r.stdout).toMatch(new RegExp(`^  ${command} +\\w`, "m"));
  });

  it.each(COMMANDS)(
    "kervanc %s --help and kervanc help %s print the command's page with an example",
    async (command) => {
      const a = await kervanc([command, "--help"]);
      const b = await kervanc(["help", command]);
      expect(a.code).toBe(0);
      expect(a.stdout).toBe(b.stdout);
      expect(a.stdout).toMatch(new RegExp(`^Usage: kervanc ${command}`));
      expect(a.stdout).toMatch(/^Examples?:\n  kervanc /m);
      expect(a.stdout).toContain("-h, --help");
    },
  );
});

describe("usage errors: one line saying what is wrong, then where the help is, exit 2", () => {
  const cases: [string[], string][] = [
    [["buidl"], 'kervanc: unknown command "buidl". Did you mean "build"?\nSee kervanc --help.\n'],
    [["--frob"], "kervanc: unknown option --frob; options go after the command.\nSee kervanc --help.\n"],
    [["build", "specs", "-o"], "kervanc build: --out needs a value (<out>).\nSee kervanc build --help.\n"],
    [["build", "specs", "-o", "--force"], "kervanc build: --out needs a value (<out>).\nSee kervanc build --help.\n"],
    [
      ["build", "specs", "--force=yes", "-o", "x"],
      "kervanc build: --force takes no value.\nSee kervanc build --help.\n",
    ],
    [
      ["build", "specs", "-o", "a", "-o", "b"],
      "kervanc build: --out is given more than once.\nSee kervanc build --help.\n",
    ],
    [["build", "-o", "x"], "kervanc build: missing specs: name spec files or folders.\nSee kervanc build --help.\n"],
    [
      ["build", "specs", "-o", "x", "--format", "xml"],
      'kervanc build: --format must be text, json, github or sarif, not "xml".\nSee kervanc build --help.\n',
    ],
    [["init", "a", "b"], "kervanc init: init takes at most one folder.\nSee kervanc init --help.\n"],
    [["help", "nope"], 'kervanc help: unknown command "nope".\nSee kervanc help --help.\n'],
    // Control characters in arguments are shown escaped, never sent to the terminal raw.
    [
      ["build", "specs", "-o", "x", "--\u001b[2Jevil"],
      "kervanc build: unknown option --\\u001B[2Jevil.\nSee kervanc build --help.\n",
    ],
    [["b\nforged"], 'kervanc: unknown command "b\\u000Aforged".\nSee kervanc --help.\n'],
  ];
  it.each(cases)("%j", async (args, stderr) => {
    const r = await kervanc(args, { cwd: dir });
    expect(r).toEqual({ code: 2, stdout: "", stderr });
  });
});

describe("kervanc init", () => {
  it("writes a starter spec with a schema modeline that builds as it is, prints the next commands, and never overwrites", async () => {
    const project = join(dir, "init");
    await mkdir(project);
    const r = await kervanc(["init"], { cwd: project });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("npx kervanc build specs -o servers");
    const spec = await readFile(join(project, "specs", "example.yaml"), "utf8");
    const schema = /^# yaml-language-server: \$schema=(\S+)\n/.exec(spec)?.[1];
    expect(schema).toBeDefined();
    // From the repository, the modeline points at the repository's generated schema.
    expect(JSON.parse(await readFile(join(project, "specs", schema!), "utf8"))).toMatchObject({
      $id: `urn:kervanc:${VERSION}:kervan-spec.schema.json`,
    });
    const built = await kervanc(["build", "specs", "-o", "servers"], { cwd: project });
    expect(built.code, built.stderr).toBe(0);
    expect(existsSync(join(project, "servers", "example", "server.mjs"))).toBe(true);

    await writeFile(join(project, "specs", "example.yaml"), "# mine\n");
    const again = await kervanc(["init"], { cwd: project });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("already exists; nothing was written");
    expect(await readFile(join(project, "specs", "example.yaml"), "utf8")).toBe("# mine\n");
  });

  it("writes into a named folder, creating it", async () => {
    const r = await kervanc(["init", "fresh"], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("cd fresh");
    expect(existsSync(join(dir, "fresh", "specs", "example.yaml"))).toBe(true);
  });

  it("refuses a specs folder that is a link (a cloned repository's), writing nothing where it points", async () => {
    const elsewhere = join(dir, "elsewhere");
    await mkdir(elsewhere);
    const project = join(dir, "linked-specs");
    await mkdir(project);
    await symlink(elsewhere, join(project, "specs"));
    const r = await kervanc(["init"], { cwd: project });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "kervanc init: specs is a symbolic link, not a folder; nothing was written. Run kervanc init in another folder.\n",
    );
    expect(await readdir(elsewhere)).toEqual([]);
  });
});

describe("kervanc build into the specs folder", () => {
  it.each([
    [["build", "specs", "-o", "specs"]],
    [["build", "specs", "-o", "specs/"]],
    [["build", "specs/example.yaml", "-o", "specs"]],
    [["build", "specs", "-o", "./specs/../specs"]],
  ])("%j is refused and writes nothing", async (args) => {
    const project = join(dir, `into-specs-${Math.random().toString(36).slice(2)}`);
    await mkdir(project);
    expect((await kervanc(["init"], { cwd: project })).code).toBe(0);
    const r = await kervanc(args, { cwd: project });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^kervanc build: the output folder .* is where the specs are .*; write the packages to a folder of their own, such as -o servers\.\nSee kervanc build --help\.\n$/,
    );
    expect(existsSync(join(project, "specs", "example"))).toBe(false);
  });
});
