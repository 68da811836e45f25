/**
 * kervanc import flattens a JSON object body into the tool's arguments (import/request-body.ts), end to end: an
 * OpenAPI document imported by the CLI, the spec built, the generated server run as a process and called through the
 * MCP SDK client with one flat argument object, and the body and headers a local upstream received. Optional body
 * properties and an optional header are left out when absent (omit-absent), an explicit null is sent, and a body
 * property named like the path parameter is the argument body_name.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type TestClient } from "../helpers/clients.ts";
import { type CliResult, REPO, removeDir, tempDir } from "../helpers/kervanc.ts";
import { json, startUpstream, type Upstream } from "../helpers/upstream.ts";
import { call, importAndBuild } from "./imported-servers.ts";

const document = JSON.stringify({
  openapi: "3.1.0",
  info: { title: "Projects", version: "1.0" },
  servers: [{ url: "https://api.example.com" }],
  paths: {
    "/projects/{name}": {
      put: {
        operationId: "putProject",
        summary: "Create or replace a project",
        parameters: [
          { name: "name", in: "path", required: true, schema: { type: "string" } },
          { name: "X-Request-Id", in: "header", schema: { type: "string" } },
          { name: "Accept", in: "header", schema: { type: "string" } },
        ],
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["name", "owner"],
                properties: {
                  name: { type: "string", description: "The project's new display name." },
                  owner: { type: "string" },
                  description: { type: ["string", "null"] },
                  visibility: { type: "string", enum: ["private", "public"], default: "private" },
                  settings: { type: "object", properties: { archived: { type: "boolean" } } },
                },
              },
            },
          },
        },
        responses: {
          "200": {
            description: "The project.",
            content: {
              "application/json": {
                schema: { type: "object", properties: { id: { type: "integer" }, name: { type: "string" } } },
              },
            },
          },
        },
      },
    },
  },
});

describe("a flattened body, imported, built and called with flat arguments", () => {
  let upstream: Upstream;
  let root: string;
  let client: TestClient;
  let imports: Record<string, CliResult>;
  let built: CliResult;

  beforeAll(async () => {
    upstream = await startUpstream((req, res) => json(res, 200, { id: 1, name: (JSON.parse(req.body) as any).name }));
    root = await tempDir("import-flat-body");
    const file = join(root, "projects.json");
    await writeFile(file, document);
    ({ imports, built } = await importAndBuild(root, [
      { name: "projects", document: relative(REPO, file), serverUrl: `${upstream.origin}/v1` },
    ]));
    client = await connect("modern", join(root, "out", "projects", "server.mjs"), {
      serverArgs: ["--allow-private-network"],
    });
  }, 180_000);

  afterAll(async () => {
    await client?.close();
    await upstream?.close();
    if (root) await removeDir(root);
  });

  it("imports with omit-absent declared and builds", async () => {
    expect(imports["projects"]!.code, imports["projects"]!.stderr).toBe(0);
    expect(built.code, built.stderr).toBe(0);
    const spec = await readFile(join(root, "specs", "projects.yaml"), "utf8");
    expect(spec).toContain("kervancExtensions: [ omit-absent ]");
    expect(spec).toContain("omitAbsent: true");
    expect(spec).toContain("# body_name is the body's \"name\": the name name is a parameter's");
  });

  it("lists one flat input: the body's properties next to the parameters, with their schemas and required-ness", async () => {
    const { tools } = await client.listTools();
    expect(tools[0]!.inputSchema).toEqual({
      type: "object",
      properties: {
        name: { type: "string" },
        x_request_id: { type: "string" },
        body_name: { type: "string", description: "The project's new display name." },
        owner: { type: "string" },
        description: { type: ["string", "null"] },
        visibility: { type: "string", enum: ["private", "public"], default: "private" },
        settings: { type: "object", properties: { archived: { type: "boolean" } } },
      },
      required: ["name", "body_name", "owner"],
      additionalProperties: false,
    });
  });

  it("rebuilds the body from flat arguments, leaving out what was not given", async () => {
    const { result, request } = await call(client, upstream, "putProject", {
      name: "apollo",
      body_name: "Apollo",
      owner: "ada",
    });
    expect(result.isError ?? false).toBe(false);
    expect(request.method).toBe("PUT");
    expect(request.path).toBe("/v1/projects/apollo");
    expect(request.headers["content-type"]).toBe("application/json");
    expect(request.headers["accept"]).toBe("application/json");
    expect(request.headers).not.toHaveProperty("x-request-id");
    expect(request.body).toBe('{"name":"Apollo","owner":"ada"}');
  });

  it("sends the optional ones when given, an explicit null included, and the optional header", async () => {
    const { request } = await call(client, upstream, "putProject", {
      name: "apollo",
      body_name: "Apollo",
      owner: "ada",
      description: null,
      visibility: "public",
      settings: { archived: true },
      x_request_id: "req-1",
    });
    expect(request.headers["x-request-id"]).toBe("req-1");
    expect(JSON.parse(request.body)).toEqual({
      name: "Apollo",
      owner: "ada",
      description: null,
      visibility: "public",
      settings: { archived: true },
    });
  });

  it("refuses a nested body argument and a missing required body property before sending anything", async () => {
    const before = upstream.requests.length;
    const nested = await client.callTool("putProject", { name: "apollo", body: { name: "Apollo", owner: "ada" } });
    expect(nested.isError).toBe(true);
    const missing = await client.callTool("putProject", { name: "apollo", body_name: "Apollo" });
    expect(missing.isError).toBe(true);
    expect(missing.content![0]!.text).toContain("owner");
    expect(upstream.requests.length).toBe(before);
  });
});
