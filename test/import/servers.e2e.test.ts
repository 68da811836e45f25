/**
 * `kervanc import` end to end, as a user runs it: each fixture document imported by the CLI (pointed at a local
 * upstream with --server-url), the specs built by the CLI, the generated servers spawned as processes and called
 * with the SDK clients. The upstreams implement the APIs minimally and record what they received, so each call
 * checks the method, path, query, headers and body the imported spec sends, and what the model gets back.
 *
 * The APIs with secrets run over HTTPS (localhost, the test CA): secrets never travel over plain http.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type TestClient } from "../helpers/clients.ts";
import { type CliResult, removeDir, tempDir } from "../helpers/kervanc.ts";
import { json, type RecordedRequest, startUpstream, TEST_CA, type Upstream } from "../helpers/upstream.ts";
import { call, importAndBuild } from "./imported-servers.ts";

const BEARER = "tk_live_0123456789abcdef";
const API_KEY = "pk-9f8e7d6c5b4a";
const PET_TOKEN = "oauth-access-7a6b5c4d3e";

let root: string;
let notesApi: Upstream;
let ticketsApi: Upstream;
let petsApi: Upstream;
let imports: Record<string, CliResult>;
let buildResult: CliResult;
const clients: TestClient[] = [];

const note = (id: number, body: Record<string, unknown> = {}) => ({
  id,
  version: `v${id}`,
  title: "Standup",
  text: "Notes from today.",
  pinned: false,
  labels: ["team"],
  updatedAt: "2026-12-01T09:00:00Z",
  internal: { shard: 3 },
  ...body,
});

function notesHandler(req: RecordedRequest, res: import("node:http").ServerResponse): void {
  const m = /^\/api\/workspaces\/([^/]+)\/(notes|search)(?:\/(\d+))?(\/copy)?$/.exec(req.path);
  if (m === null) return json(res, 404, { error: "no route" });
  const body = req.body === "" ? {} : (JSON.parse(req.body) as Record<string, unknown>);
  if (m[2] === "search")
    return json(res, 200, { hits: [{ noteId: 7, title: "Standup", score: 0.9, snippet: "…" }], took: 3 });
  if (m[4] !== undefined) return json(res, 201, note(8, { title: "Copy" }));
  if (m[3] === undefined)
    return req.method === "GET" ? json(res, 200, [note(1), note(2, { pinned: true })]) : json(res, 201, note(9, body));
  if (req.method === "DELETE") return void res.writeHead(204).end();
  return json(res, 200, note(Number(m[3]), body));
}

beforeAll(async () => {
  notesApi = await startUpstream(notesHandler);
  ticketsApi = await startUpstream(
    (req, res) => {
      if (req.path === "/v2/status")
        return void res.writeHead(200, { "content-type": "text/plain" }).end("all systems normal");
      if (req.path === "/v2/tickets") {
        const ticket = {
          id: "T-1",
          subject: "Printer on fire",
          status: "open",
          priority: 1,
          tags: ["hw"],
          created_at: "2026-11-30T10:00:00Z",
          _links: { self: "/t/1" },
          assignee: null,
        };
        return json(res, 200, {
          data: [ticket, { ...ticket, id: "T-2", status: "pending", priority: null }],
          next_cursor: "c2",
          total: 7,
        });
      }
      if (req.path === "/v2/tickets/T-1042")
        return json(res, 200, { id: "T-1042", subject: "VPN", status: "closed", tags: [], body: "long text" });
      if (req.path === "/v2/agents/me")
        return json(res, 200, { id: 7, email: "ada@example.com", name: null, permissions: ["all"] });
      json(res, 404, {});
    },
    { tls: true, hostname: "localhost" },
  );
  petsApi = await startUpstream(
    (req, res) => {
      const pet = {
        id: 5,
        name: "Rex",
        category: { id: 1, name: "Dogs" },
        photoUrls: ["https://img/1"],
        tags: [{ id: 2, name: "good" }],
        status: "available",
      };
      if (req.path === "/api/v3/pet/findByTags")
        return json(res, 200, [pet, { ...pet, id: 6, name: "Tom", status: null }]);
      if (req.path === "/api/v3/pet/5") return json(res, 200, pet);
      if (req.path === "/api/v3/pet" && req.method === "POST")
        return json(res, 200, { ...(JSON.parse(req.body) as object), id: 11 });
      if (req.path === "/api/v3/store/order/3")
        return json(res, 200, {
          id: 3,
          petId: 5,
          quantity: 1,
          shipDate: "2026-12-02T00:00:00Z",
          status: "placed",
          complete: false,
        });
      json(res, 404, {});
    },
    { tls: true, hostname: "localhost" },
  );

  root = await tempDir("import-e2e");
  ({ imports, built: buildResult } = await importAndBuild(root, [
    { name: "notes", document: "fixtures/openapi/notes.yaml", serverUrl: `${notesApi.origin}/api` },
    { name: "tickets", document: "fixtures/openapi/tickets.json", serverUrl: `${ticketsApi.origin}/v2` },
    { name: "petstore", document: "fixtures/openapi/petstore.yaml", serverUrl: `${petsApi.origin}/api/v3` },
  ]));
}, 180_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await Promise.all([notesApi?.close(), ticketsApi?.close(), petsApi?.close()]);
  if (root) await removeDir(root);
});

async function client(name: string, era: "modern" | "legacy", env: Record<string, string> = {}): Promise<TestClient> {
  const c = await connect(era, join(root, "out", name, "server.mjs"), {
    nodeArgs: ["--disallow-code-generation-from-strings"],
    serverArgs: ["--allow-private-network"],
    env: { NODE_EXTRA_CA_CERTS: TEST_CA, ...env },
  });
  clients.push(c);
  return c;
}

describe("import, then build", () => {
  it("imports each document and builds every spec unchanged", () => {
    for (const name of ["notes", "tickets", "petstore"]) expect(imports[name]!.code, imports[name]!.stderr).toBe(0);
    expect(imports["notes"]!.stderr).toContain(`--server-url "${notesApi.origin}/api" uses plain http`);
    expect(imports["tickets"]!.stderr).toContain(
      "The server reads these secrets from environment variables of the same name: BEARER_AUTH.",
    );
    expect(buildResult.code, buildResult.stderr).toBe(0);
    expect(buildResult.stderr).toMatch(/\nBuilt 3 servers \(21 tools\) into .* in \d+\.\d\d s\.\n$/);
    // Besides the summary, only the notes that notes and petstore use omit-absent (optional body fields).
    expect(
      buildResult.stderr
        .split("\n")
        .filter((l) => / - (info|warning|error) /.test(l))
        .map(
          (l) =>
            l
              .replace(/^.*\/specs\//, "")
              .replace(/:\d+:\d+ - /, " ")
              .split(":")[0],
        ),
    ).toEqual(["notes.yaml info KV8001", "petstore.yaml info KV8001"]);
    expect(
      buildResult.stdout
        .split("\n")
        .filter(Boolean)
        .map((l) => l.split(":")[0]),
    ).toEqual(["notes", "petstore", "tickets"]);
    expect(buildResult.stdout).toMatch(
      /^tickets: tools\/list has 4 tools in [\d,]+ characters, about [\d,]+ tokens \(budget 8,000\)\.$/m,
    );
  });

  it("binds the bearer secret to the upstream's host and port", async () => {
    const spec = await readFile(join(root, "specs", "tickets.yaml"), "utf8");
    expect(spec).toContain(`  - name: BEARER_AUTH\n    hosts: [ localhost:${ticketsApi.port} ]\n`);
  });
});

describe("path parameters and JSON bodies (notes.yaml, plain http)", () => {
  let c: TestClient;
  beforeAll(async () => {
    c = await client("notes", "modern");
  });

  it("creates a note: path parameter, renamed header, flat arguments rebuilt into the JSON body", async () => {
    const { result, request } = await call(c, notesApi, "createNote", {
      workspaceId: "team-a",
      idempotency_key: "retry-0001",
      title: "Standup",
      labels: ["x"],
      pinned: true,
    });
    expect(request.method).toBe("POST");
    expect(request.path).toBe("/api/workspaces/team-a/notes");
    expect(request.headers["idempotency-key"]).toBe("retry-0001");
    expect(request.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(request.body)).toEqual({ title: "Standup", labels: ["x"], pinned: true });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({
      title: "Standup",
      text: "Notes from today.",
      pinned: true,
      labels: ["x"],
      id: 9,
      version: "v9",
      updatedAt: "2026-12-01T09:00:00Z",
    });
  });

  it("refuses a body that misses a required field before sending anything", async () => {
    const before = notesApi.requests.length;
    const result = await c.callTool("createNote", {
      workspaceId: "team-a",
      idempotency_key: "retry-0002",
      labels: [],
    });
    expect(result.isError).toBe(true);
    expect(notesApi.requests.length).toBe(before);
  });

  it("replaces a note: PUT with a boolean query parameter", async () => {
    const { result, request } = await call(c, notesApi, "replaceNote", {
      workspaceId: "team-a",
      noteId: 7,
      notify: true,
      title: "New",
    });
    expect([request.method, request.path, request.query]).toEqual([
      "PUT",
      "/api/workspaces/team-a/notes/7",
      "notify=true",
    ]);
    expect(JSON.parse(request.body)).toEqual({ title: "New" });
    expect(result.structuredContent).toMatchObject({ id: 7, title: "New" });
  });

  it("patches a note with the document's merge-patch media type", async () => {
    const { request } = await call(c, notesApi, "updateNote", {
      workspaceId: "team-a",
      noteId: 7,
      body: { pinned: true, labels: null },
    });
    expect(request.method).toBe("PATCH");
    expect(request.headers["content-type"]).toBe("application/merge-patch+json");
    expect(JSON.parse(request.body)).toEqual({ pinned: true, labels: null });
  });

  it("sends the colliding names to their own places (path workspaceId, query workspaceId_query)", async () => {
    const { request } = await call(c, notesApi, "copyNote", {
      workspaceId: "team-a",
      noteId: 7,
      workspaceId_query: "team b",
    });
    expect([request.method, request.path, request.query]).toEqual([
      "POST",
      "/api/workspaces/team-a/notes/7/copy",
      "workspaceId=team+b",
    ]);
  });

  it("keeps the query parameter named body apart from the request body", async () => {
    const { result, request } = await call(c, notesApi, "searchNotes", {
      workspaceId: "team-a",
      body: true,
      query: "standup",
    });
    expect(request.query).toBe("body=true");
    expect(JSON.parse(request.body)).toEqual({ query: "standup" });
    expect(result.structuredContent).toEqual({ hits: [{ noteId: 7, title: "Standup", score: 0.9 }] });
  });

  it("lists notes with an optional query value left out, and wraps the list for structured content", async () => {
    const { result, request } = await call(c, notesApi, "listNotes", { workspaceId: "team-a", q: "stand up" });
    expect([request.method, request.path, request.query]).toEqual([
      "GET",
      "/api/workspaces/team-a/notes",
      "q=stand+up",
    ]);
    const items = (result.structuredContent as { items: Record<string, unknown>[] }).items;
    expect(items.map((n) => [n["id"], n["pinned"]])).toEqual([
      [1, false],
      [2, true],
    ]);
    expect(items[0]).not.toHaveProperty("internal");
  });

  it("deletes a note, and reports the bodiless 204 as a success (not an error that invites a retry)", async () => {
    const { result, request } = await call(c, notesApi, "deleteNote", {
      workspaceId: "team-a",
      noteId: 7,
      if_match: "v7",
    });
    expect([request.method, request.path, request.headers["if-match"]]).toEqual([
      "DELETE",
      "/api/workspaces/team-a/notes/7",
      "v7",
    ]);
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([
      { type: "text", text: "The call succeeded (upstream answered 204 No Content, with no content)." },
    ]);
  });
});

describe("a paginated list API with bearer auth (tickets.json, https)", () => {
  let c: TestClient;
  beforeAll(async () => {
    c = await client("tickets", "modern", { BEARER_AUTH: BEARER });
  });

  it("lists tickets: bracketed names on the wire, repeated array values, the token in Authorization", async () => {
    const { result, request } = await call(c, ticketsApi, "tickets_list", {
      page_size: 2,
      page_cursor: "c1",
      status: ["open", "pending"],
    });
    expect(request.path).toBe("/v2/tickets");
    expect(new URLSearchParams(request.query).getAll("page[size]")).toEqual(["2"]);
    expect(new URLSearchParams(request.query).getAll("page[cursor]")).toEqual(["c1"]);
    expect(new URLSearchParams(request.query).getAll("status")).toEqual(["open", "pending"]);
    expect(request.headers["authorization"]).toBe(`Bearer ${BEARER}`);
    // Every documented field of an item is kept (the select proposal keeps the payload: issue 36).
    const item = { subject: "Printer on fire", assignee: null, tags: ["hw"], created_at: "2026-11-30T10:00:00Z" };
    expect(result.structuredContent).toEqual({
      data: [
        { ...item, id: "T-1", status: "open", priority: 1 },
        { ...item, id: "T-2", status: "pending", priority: null },
      ],
      next_cursor: "c2",
      total: 7,
    });
  });

  it("sends a deepObject filter as filter[name]=value, and nothing for an omitted one", async () => {
    const { request } = await call(c, ticketsApi, "tickets_list", { filter: { assignee: "ada" } });
    expect(new URLSearchParams(request.query).get("filter[assignee]")).toBe("ada");
    const { request: without } = await call(c, ticketsApi, "tickets_list", {});
    expect([...new URLSearchParams(without.query).keys()]).not.toContain("filter[assignee]");
  });

  it("gets a ticket by a path parameter with a dash in its name, with the required header", async () => {
    const { result, request } = await call(c, ticketsApi, "tickets_get", {
      ticket_id: "T-1042",
      x_request_id: "6f1c2a34-5b6d-4e7f-8a9b-0c1d2e3f4a5b",
    });
    expect(request.path).toBe("/v2/tickets/T-1042");
    expect(request.headers["x-request-id"]).toBe("6f1c2a34-5b6d-4e7f-8a9b-0c1d2e3f4a5b");
    expect(result.structuredContent).toEqual({
      id: "T-1042",
      subject: "VPN",
      status: "closed",
      priority: null,
      assignee: null,
      tags: [],
      created_at: null,
    });
  });

  it("refuses arguments the converted schema rules out (pattern, format)", async () => {
    const before = ticketsApi.requests.length;
    expect(
      (await c.callTool("tickets_get", { ticket_id: "1042", x_request_id: "6f1c2a34-5b6d-4e7f-8a9b-0c1d2e3f4a5b" }))
        .isError,
    ).toBe(true);
    expect((await c.callTool("tickets_get", { ticket_id: "T-1", x_request_id: "not-a-uuid" })).isError).toBe(true);
    expect(ticketsApi.requests.length).toBe(before);
  });

  it("calls the public operation without the token, and returns its text", async () => {
    const { result, request } = await call(c, ticketsApi, "status", {});
    expect(request.headers["authorization"]).toBeUndefined();
    expect(result.content?.[0]?.text).toBe("all systems normal");
  });

  it("lists the imported tools with their schemas and hints", async () => {
    const { tools } = await c.listTools();
    expect(tools.map((t) => [t.name, (t["annotations"] as { readOnlyHint?: boolean }).readOnlyHint])).toEqual([
      ["tickets_list", true],
      ["tickets_get", true],
      ["agents_me", true],
      ["status", true],
    ]);
    expect(tools[0]!.inputSchema).toMatchObject({
      type: "object",
      additionalProperties: false,
      properties: { page_size: { type: "integer", maximum: 100 } },
    });
  });
});

describe("a petstore (petstore.yaml, https, legacy client)", () => {
  let c: TestClient;
  beforeAll(async () => {
    c = await client("petstore", "legacy", { API_KEY, PETSTORE_AUTH: PET_TOKEN });
  });

  it("finds pets by tags: an array query parameter and the API key header", async () => {
    const { result, request } = await call(c, petsApi, "findPetsByTags", { tags: ["good", "old"] });
    expect([request.method, request.path, request.query]).toEqual([
      "GET",
      "/api/v3/pet/findByTags",
      "tags=good&tags=old",
    ]);
    expect(request.headers["api_key"]).toBe(API_KEY);
    const pet = { category: { id: 1, name: "Dogs" }, photoUrls: ["https://img/1"], tags: [{ id: 2, name: "good" }] };
    expect(result.structuredContent).toEqual({
      items: [
        // x-internal-note is an extension field: left out of list items with the other plumbing. The nested
        // category and tags are payload, kept.
        { ...pet, id: 5, name: "Rex", status: "available" },
        { ...pet, id: 6, name: "Tom", status: null },
      ],
    });
  });

  it("gets a pet by the path-item parameter, with nested objects picked", async () => {
    const { result, request } = await call(c, petsApi, "getPetById", { petId: 5 });
    expect(request.path).toBe("/api/v3/pet/5");
    expect(result.structuredContent).toMatchObject({
      id: 5,
      category: { id: 1, name: "Dogs" },
      tags: [{ id: 2, name: "good" }],
    });
  });

  it("adds a pet with its oauth2 scheme's access token as Authorization: Bearer, sending the body as given", async () => {
    const { request } = await call(c, petsApi, "addPet", { name: "Bo", photoUrls: [], status: null });
    expect(request.method).toBe("POST");
    expect(request.headers["api_key"]).toBeUndefined();
    expect(request.headers["authorization"]).toBe(`Bearer ${PET_TOKEN}`);
    expect(JSON.parse(request.body)).toEqual({ name: "Bo", photoUrls: [], status: null });
  });

  it("gets an order; the 3.0 exclusiveMaximum became a number bound", async () => {
    const { result } = await call(c, petsApi, "getOrderById", { orderId: 3 });
    expect(result.structuredContent).toMatchObject({ id: 3, status: "placed" });
    const before = petsApi.requests.length;
    expect((await c.callTool("getOrderById", { orderId: 1_000_000 })).isError).toBe(true);
    expect(petsApi.requests.length).toBe(before);
  });
});
