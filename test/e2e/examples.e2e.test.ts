/**
 * The bundled example specs, end to end: every spec in fixtures/specs built by the CLI, pointed at local
 * upstreams (HTTPS with the test CA for the one that sends a token), and called through the generated servers.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseDocument } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type TestClient } from "../helpers/clients.ts";
import { FIXTURES, kervanc, removeDir, tempDir } from "../helpers/kervanc.ts";
import { json, startUpstream, TEST_CA, type Upstream } from "../helpers/upstream.ts";

const TOKEN = "posts-token-7c1e9a55";
let hn: Upstream;
let posts: Upstream;
let root: string;

/** Points every tool at `origin` (keeping paths) and binds every secret to the new host. */
function repoint(text: string, origin: string): string {
  const doc = parseDocument(text);
  const url = new URL(origin);
  for (const tool of (
    doc.get("tools") as { items: { getIn(p: string[]): unknown; setIn(p: string[], v: unknown): void }[] }
  ).items) {
    const old = String(tool.getIn(["http", "url"]));
    tool.setIn(["http", "url"], old.replace(/^https:\/\/[^/]+/, origin));
    if (url.protocol === "http:") tool.setIn(["http", "allowInsecureHttp"], true);
  }
  const secrets = doc.get("secrets") as { items: { setIn(p: string[], v: unknown): void }[] } | undefined;
  for (const secret of secrets?.items ?? []) secret.setIn(["hosts"], [url.host]);
  return doc.toString();
}

beforeAll(async () => {
  hn = await startUpstream((req, res) => {
    if (req.path === "/v0/topstories.json")
      json(
        res,
        200,
        Array.from({ length: 500 }, (_, i) => 40_000_000 + i),
      );
    else {
      const id = Number(/^\/v0\/item\/(\d+)\.json$/.exec(req.path)?.[1]);
      json(res, 200, {
        id,
        type: "story",
        by: "pg",
        title: `Story ${id}`,
        url: "https://example.com/",
        score: 42,
        time: 1_700_000_000,
        kids: Array.from({ length: 30 }, (_, i) => i),
      });
    }
  });
  posts = await startUpstream(
    (req, res) => {
      if (req.method === "GET")
        json(res, 200, { items: [{ id: 1, title: "Hello", author: "ada", body: "long text", views: 9 }] });
      else if (req.method === "POST")
        json(res, 201, { id: 7, url: "https://posts.example.com/7", echo: req.headers["authorization"] });
      else res.writeHead(200, { "content-type": "text/plain" }).end(`deleted ${req.path}`);
    },
    { tls: true, hostname: "localhost" },
  );
  root = await tempDir("examples");
  await mkdir(join(root, "specs"));
  for (const [file, upstream] of [
    ["hn.yaml", hn],
    ["posts.yaml", posts],
    ["open-meteo.yaml", hn],
  ] as const) {
    await writeFile(
      join(root, "specs", file),
      repoint(await readFile(join(FIXTURES, "specs", file), "utf8"), upstream.origin),
    );
  }
  const built = await kervanc(["build", join(root, "specs"), "-o", join(root, "out")]);
  expect(built.code, built.stderr).toBe(0);
  expect(built.stderr).toContain("Built 3 servers (6 tools)");
}, 120_000);

afterAll(async () => {
  await hn?.close();
  await posts?.close();
  if (root) await removeDir(root);
});

describe("hn.yaml", () => {
  let client: TestClient;
  beforeAll(async () => {
    client = await connect("modern", join(root, "out", "hn", "server.mjs"), {
      nodeArgs: ["--disallow-code-generation-from-strings"],
      serverArgs: ["--allow-private-network"],
    });
  });
  afterAll(async () => client?.close());

  it("selects the first ten story ids", async () => {
    const r = await client.callTool("top_stories", {});
    expect(JSON.parse(r.content?.[0]?.text ?? "null")).toEqual(Array.from({ length: 10 }, (_, i) => 40_000_000 + i));
  });

  it("puts the id in the path and keeps twenty replies", async () => {
    const before = hn.requests.length;
    const r = await client.callTool("get_item", { id: 8863 });
    expect(hn.requests[before]?.path).toBe("/v0/item/8863.json");
    const item = JSON.parse(r.content?.[0]?.text ?? "null");
    expect(item).toMatchObject({ id: 8863, by: "pg", title: "Story 8863", score: 42, text: null });
    expect(item.kids).toHaveLength(20);
  });
});

describe("posts.yaml", () => {
  let client: TestClient;
  beforeAll(async () => {
    client = await connect("legacy", join(root, "out", "posts", "server.mjs"), {
      serverArgs: ["--allow-private-network"],
      env: { POSTS_TOKEN: TOKEN, NODE_EXTRA_CA_CERTS: TEST_CA },
    });
  });
  afterAll(async () => client?.close());

  it("lists posts, dropping the omitted filter", async () => {
    const before = posts.requests.length;
    const r = await client.callTool("list_posts", { limit: 5 });
    expect(posts.requests[before]?.query).toBe("limit=5");
    expect(JSON.parse(r.content?.[0]?.text ?? "null")).toEqual([{ id: 1, title: "Hello", author: "ada" }]);
  });

  it("creates a post with a typed JSON body and the bearer token, over https", async () => {
    const before = posts.requests.length;
    const r = await client.callTool("create_post", { title: "T", body: "B", tags: ["a", "b"], draft: true });
    const sent = posts.requests[before]!;
    expect(sent.method).toBe("POST");
    expect(sent.headers["authorization"]).toBe(`Bearer ${TOKEN}`);
    expect(JSON.parse(sent.body)).toEqual({ title: "T", body: "B", tags: ["a", "b"], draft: true });
    expect(r.structuredContent).toEqual({ id: 7, url: "https://posts.example.com/7" });
  });

  it("refuses arguments the schema does not allow, sending nothing", async () => {
    const before = posts.requests.length;
    const r = await client.callTool("create_post", { title: "T", body: "B", extra: 1 });
    expect(r.isError).toBe(true);
    expect(r.content?.[0]?.text).toBe(
      "Input validation error: Invalid arguments for tool create_post: data must NOT have additional properties",
    );
    expect(posts.requests.length).toBe(before);
  });

  it("deletes by id and returns the raw answer", async () => {
    const r = await client.callTool("delete_post", { id: 7 });
    expect(r.content).toEqual([{ type: "text", text: "deleted /v1/posts/7" }]);
  });
});
