/**
 * The committed output as a pull request sees it. A spec edit changes only the files whose content it changes
 * (the counts are in the test names), and `kervanc diff` / `kervanc check` summarise what an edit does to the
 * server (tools, egress, secrets, modes, limits) in text, Markdown and JSON, checked against goldens in
 * test/review/goldens/ (after an intended change: npm run accept, and review the diff).
 */
import { cp, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join, sep } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kervanc, REPO, removeDir, tempDir } from "../helpers/kervanc.ts";
import { kervancInProcess as inProcess } from "../helpers/kervanc-in-process.ts";

let root: string;
let specs: string;
let base: string;

beforeAll(async () => {
  root = await tempDir("review");
  specs = join(root, "specs");
  base = join(root, "base");
  await cp(join(REPO, "fixtures", "specs"), specs, { recursive: true });
  const r = await kervanc(["build", specs, "-o", base]);
  expect(r.code, r.stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  if (root) await removeDir(root);
});

let counter = 0;

/** Applies `edit` to a copy of the specs, builds into a copy of the base output, and returns the diff's JSON. */
async function afterEdit(edit: (dir: string) => Promise<void>): Promise<{ dir: string; review: Review[] }> {
  const dir = join(root, `edit-${counter++}`);
  await cp(specs, join(dir, "specs"), { recursive: true });
  await cp(base, join(dir, "out"), { recursive: true });
  await edit(join(dir, "specs"));
  const built = await kervanc(["build", join(dir, "specs"), "-o", join(dir, "out")]);
  expect(built.code, built.stderr).toBe(0);
  const diff = await kervanc(["diff", base, join(dir, "out"), "--format", "json"]);
  return { dir, review: (JSON.parse(diff.stdout) as { review: Review[] }).review };
}

interface Review {
  where: string;
  status: string;
  surface: { kind: string; subject: string; field: string | null; security: boolean; summary: string }[] | null;
  files: { path: string; status: string }[];
}

async function replaceIn(file: string, from: string, to: string): Promise<void> {
  const text = await readFile(file, "utf8");
  expect(text, `${file} holds ${from}`).toContain(from);
  await writeFile(file, text.replace(from, to));
}

const files = (review: Review[]): string[] =>
  review.flatMap((r) => r.files.map((f) => `${r.where}/${f.path} ${f.status}`));

describe("a spec edit changes only what it changes", () => {
  it("a description change touches 5 files: the tool's module, README.md, manifest.json and the two bundles", async () => {
    const { review } = await afterEdit((dir) =>
      replaceIn(join(dir, "hn.yaml"), "One story, comment, job or poll by id", "One story, comment or job by id"),
    );
    expect(files(review)).toEqual([
      "hn/README.md changed",
      "hn/manifest.json changed",
      "hn/server.mjs changed",
      "hn/src/tools/get_item.ts changed",
      "hn/worker.mjs changed",
    ]);
  });

  it("a select change touches 4 files: the tool's module, manifest.json (the spec's sha256) and the two bundles", async () => {
    const { review } = await afterEdit((dir) => replaceIn(join(dir, "hn.yaml"), "kids: kids[:20]", "kids: kids[:10]"));
    expect(files(review)).toEqual([
      "hn/manifest.json changed",
      "hn/server.mjs changed",
      "hn/src/tools/get_item.ts changed",
      "hn/worker.mjs changed",
    ]);
    expect(review[0]!.surface).toEqual([]);
  });

  it("a new tool adds its 3 files and changes the 5 that list it: src/server.ts, README.md, manifest.json and the two bundles", async () => {
    const tool = [
      "  - name: best_stories",
      "    description: The ids of the best stories.",
      "    annotations: { readOnlyHint: true }",
      "    http:",
      "      url: https://hacker-news.firebaseio.com/v0/beststories.json",
      "    output:",
      '      select: "[:10]"',
      "",
    ].join("\n");
    const { review } = await afterEdit(async (dir) =>
      writeFile(join(dir, "hn.yaml"), `${await readFile(join(dir, "hn.yaml"), "utf8")}\n${tool}`),
    );
    expect(files(review)).toEqual([
      "hn/README.md changed",
      "hn/manifest.json changed",
      "hn/server.mjs changed",
      "hn/src/server.ts changed",
      "hn/src/tools/best_stories.ts added",
      "hn/src/validators/best_stories.input.d.ts added",
      "hn/src/validators/best_stories.input.js added",
      "hn/worker.mjs changed",
    ]);
    expect(review[0]!.surface!.map((c) => c.summary)).toEqual([
      "tool best_stories added: GET https://hacker-news.firebaseio.com/v0/beststories.json",
    ]);
  });

  it("the runtime copy, the SBOM, the notices and unchanged validators stay byte-identical across all of the above", async () => {
    const { dir } = await afterEdit(async (d) => {
      await replaceIn(join(d, "posts.yaml"), "The newest posts", "The latest posts");
      await replaceIn(join(d, "posts.yaml"), "maxLength: 200", "maxLength: 300");
    });
    const { review } = {
      review: (
        JSON.parse((await kervanc(["diff", base, join(dir, "out"), "--format", "json"])).stdout) as { review: Review[] }
      ).review,
    };
    const changed = files(review);
    expect(changed).toContain("posts/src/validators/create_post.input.js changed");
    for (const path of changed)
      expect(path).not.toMatch(/src\/runtime\/|sbom\.cdx\.json|THIRD_PARTY_NOTICES|list_posts\.input|delete_post/);
  });
});

/** The table of edits whose summaries are kept as goldens. */
const EDITS: { name: string; edit: (dir: string) => Promise<void> }[] = [
  { name: "title", edit: (d) => replaceIn(join(d, "hn.yaml"), "title: Top stories", "title: Front page") },
  {
    name: "description",
    edit: (d) =>
      replaceIn(
        join(d, "posts.yaml"),
        "Publish a post. Returns its id and URL.",
        "Publish a post now. Returns its id and URL.",
      ),
  },
  { name: "input-schema", edit: (d) => replaceIn(join(d, "posts.yaml"), "maxLength: 200", "maxLength: 300") },
  {
    name: "output-schema",
    edit: (d) => replaceIn(join(d, "posts.yaml"), "url: { type: string, format: uri }", "url: { type: string }"),
  },
  {
    name: "destructive-flipped",
    edit: (d) =>
      replaceIn(
        join(d, "posts.yaml"),
        "annotations: { destructiveHint: false, idempotentHint: false }",
        "annotations: { destructiveHint: true, idempotentHint: false }",
      ),
  },
  { name: "method", edit: (d) => replaceIn(join(d, "posts.yaml"), "method: POST", "method: PUT") },
  {
    name: "url-new-host",
    edit: (d) =>
      replaceIn(
        join(d, "hn.yaml"),
        "https://hacker-news.firebaseio.com/v0/topstories.json",
        "https://hn.example.net/v0/topstories.json",
      ),
  },
  { name: "egress-removed", edit: (d) => rm(join(d, "open-meteo.yaml")) },
  {
    name: "secret-new-host",
    edit: (d) =>
      replaceIn(
        join(d, "posts.yaml"),
        "hosts: [api.posts.example.com]",
        "hosts: [api.posts.example.com, mirror.posts.example.com]",
      ),
  },
  {
    name: "select-to-raw",
    edit: (d) =>
      replaceIn(join(d, "posts.yaml"), 'select: "items[].{id: id, title: title, author: author}"', "raw: true"),
  },
  {
    name: "redirects-enabled",
    edit: (d) =>
      replaceIn(join(d, "hn.yaml"), "maxResponseBytes: 262144", "maxResponseBytes: 262144\n    followRedirects: 2"),
  },
  { name: "limits", edit: (d) => replaceIn(join(d, "hn.yaml"), "timeoutMs: 8000", "timeoutMs: 5000") },
];

/** The summary part of a text review: every line but the file listing and the diffs. */
function textSummary(stdout: string): string {
  const out: string[] = [];
  let inFiles = false;
  for (const line of stdout.split("\n")) {
    if (line === "  files:") inFiles = true;
    else if (/^\S/.test(line)) inFiles = false;
    if (!inFiles && !/^(---|\+\+\+|@@| |[-+])/.test(line)) out.push(line);
    else if (!inFiles && /^ {2}\S/.test(line)) out.push(line);
  }
  // The number of files depends on the runtime's layout, not on the edit: the file-size tests above count them.
  return out
    .filter((l) => l !== "")
    .join("\n")
    .replace(/\d+ files? differs?/g, "N files differ");
}

function markdownSummary(stdout: string): string {
  return stdout
    .replace(/<details>[\s\S]*?<\/details>/g, "<details>…</details>")
    .replace(/\d+ files? differs?/g, "N files differ");
}

// `kervanc build` and `kervanc diff` run in process here (helpers/kervanc-in-process.ts): the goldens are about
// what the review says, and the tests above and below run the same commands as processes. (As processes, the
// fourteen edits took about 100 s of the suite's time.)
describe("the surface summary, in three formats", () => {
  it.each(EDITS)("$name", async ({ name, edit }) => {
    const dir = join(root, `golden-${name}`);
    await cp(specs, join(dir, "specs"), { recursive: true });
    await edit(join(dir, "specs"));
    await mkdir(join(dir, "new"));
    const built = await inProcess(["build", join(dir, "specs"), "-o", join(dir, "new")]);
    expect(built.code, built.stderr).toBe(0);
    await linkBase(dir);
    // The review names the two folders as given; the goldens show them as a reviewer would type them.
    const run = async (format: string): Promise<string> =>
      (await inProcess(["diff", join(dir, "base"), join(dir, "new"), "--format", format])).stdout
        .split(`${dir}${sep}`)
        .join("");
    const json = JSON.parse(await run("json")) as { review: Review[] };
    const surfaces = json.review.map((r) => ({ where: r.where, status: r.status, surface: r.surface }));
    const stale = "The review differs from its golden: if the change is intended, run npm run accept";
    await expect(`${JSON.stringify(surfaces, null, 2)}\n`, stale).toMatchFileSnapshot(join("goldens", `${name}.json`));
    await expect(`${textSummary(await run("text"))}\n`, stale).toMatchFileSnapshot(join("goldens", `${name}.txt`));
    await expect(markdownSummary(await run("markdown")), stale).toMatchFileSnapshot(join("goldens", `${name}.md`));
  });

  async function linkBase(dir: string): Promise<string> {
    await cp(base, join(dir, "base"), { recursive: true, force: false, errorOnExist: false });
    return dir;
  }
});

describe("kervanc check explains", () => {
  it("a hand-edited generated file: no surface change, one file, with its diff", async () => {
    const out = join(root, "hand-edit");
    await cp(base, out, { recursive: true });
    await replaceIn(join(out, "posts", "src", "tools", "delete_post.ts"), '"method": "DELETE"', '"method": "GET"');
    const r = await kervanc(["check", specs, "-o", out]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`${join(out, "posts")}: 0 surface changes, 1 file differs\n`);
    expect(r.stdout).toMatch(/\n-\s+"method": "GET",\n\+\s+"method": "DELETE",/);
  });

  it("a deleted package: every tool, host and secret it would add, marked", async () => {
    const out = join(root, "deleted");
    await cp(base, out, { recursive: true });
    await rm(join(out, "posts"), { recursive: true });
    const r = await kervanc(["check", specs, "-o", out, "--format", "markdown"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("### `" + join(out, "posts") + "` (new package)");
    expect(r.stdout).toContain(
      "| ⚠️ **security** | egress added: https://api.posts.example.com:443 \\(DELETE, GET, POST\\) |",
    );
    expect(r.stdout).toContain("| ⚠️ **security** | secret POSTS\\_TOKEN added, sent to api.posts.example.com:443 |");
    expect(r.stdout).toContain(
      "| ⚠️ **security** | tool delete\\_post added: DELETE https://api.posts.example.com/v1/posts/\\{\\{input.id\\}\\}, sends POSTS\\_TOKEN |",
    );
  });

  it("a generated file of 160,000 lines: reports the drift instead of overflowing the stack", async () => {
    const out = join(root, "large");
    await cp(base, out, { recursive: true });
    const big = Array.from({ length: 160_000 }, (_, i) => `line ${i}`).join("\n");
    await writeFile(join(out, "hn", "README.md"), big);
    const r = await kervanc(["check", specs, "-o", out]);
    expect(r.stderr).not.toContain("RangeError");
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("    changed README.md\n");
    expect(r.stdout).toMatch(/\.\.\. \d+ more changed lines/);
  });
});
