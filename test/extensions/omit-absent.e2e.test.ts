/**
 * The kervanc omit-absent extension (docs/extensions/omit-absent.md), end to end: a spec built by the CLI, the
 * generated server run as a process and called through the MCP SDK client, and the requests a local upstream
 * received. With `http.omitAbsent: true` an absent header argument leaves the header out and an absent body
 * argument its key (at any depth), while an explicit null stays null; the same tool without the field keeps
 * Kervan's behaviour (an error for the header, null in the body). --strict-kervan refuses the spec.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type TestClient } from "../helpers/clients.ts";
import { kervanc, removeDir, tempDir } from "../helpers/kervanc.ts";
import { json, startUpstream, type Upstream } from "../helpers/upstream.ts";

const tool = (name: string, omit: boolean, origin: string): string => `  - name: ${name}
    description: Change a ticket; fields not given are left as they are.
    input:
      type: object
      properties:
        id: { type: integer }
        title: { type: string }
        description: { type: [string, "null"] }
        assignee: { type: string }
        if_match: { type: string }
      required: [id]
      additionalProperties: false
    http:
      method: PATCH
      url: ${origin}/tickets/{{input.id}}
      allowInsecureHttp: true
      headers: { If-Match: "{{input.if_match}}", X-Client: kervanc }
      body:
        title: "{{input.title}}"
        description: "{{input.description}}"
        fields: { assignee: "{{input.assignee}}", team: support }
${omit ? "      omitAbsent: true\n" : ""}    output: { select: "{id: id}" }
`;

const spec = (origin: string): string => `specVersion: 1
kervancExtensions: [omit-absent]
name: tickets
version: "1.0"
tools:
${tool("update_ticket", true, origin)}${tool("update_ticket_kervan", false, origin)}`;

describe("a generated server with omitAbsent, against a local upstream", () => {
  let upstream: Upstream;
  let dir: string;
  let client: TestClient;
  let build: { code: number; stdout: string; stderr: string };
  let strict: { code: number; stdout: string; stderr: string };

  beforeAll(async () => {
    upstream = await startUpstream((req, res) => json(res, 200, { id: Number(req.path.split("/").pop()) }));
    dir = await tempDir("omit-absent");
    await writeFile(join(dir, "tickets.yaml"), spec(upstream.origin));
    [build, strict] = await Promise.all([
      kervanc(["build", join(dir, "tickets.yaml"), "-o", join(dir, "out")]),
      kervanc(["build", join(dir, "tickets.yaml"), "-o", join(dir, "strict-out"), "--strict-kervan"]),
    ]);
    client = await connect("modern", join(dir, "out", "tickets", "server.mjs"), {
      serverArgs: ["--allow-private-network"],
    });
  }, 180_000);

  afterAll(async () => {
    await client?.close();
    await upstream?.close();
    if (dir) await removeDir(dir);
  });

  it("builds, saying the spec is no longer portable; --strict-kervan refuses it and writes nothing", () => {
    expect(build.code, build.stderr).toBe(0);
    expect(build.stderr).toContain("info KV8001: kervancExtensions: This spec uses the kervanc extension omit-absent");
    expect(strict.code).toBe(1);
    expect(strict.stderr).toContain("error KV8001");
    expect(strict.stderr).toContain("Found 1 error; nothing was written.");
  });

  it("leaves out an absent header and absent body keys, at any depth", async () => {
    const before = upstream.requests.length;
    const result = await client.callTool("update_ticket", { id: 7, title: "Printer on fire" });
    expect(result.isError ?? false).toBe(false);
    expect(result.content).toEqual([{ type: "text", text: '{"id":7}' }]);
    expect(upstream.requests.length).toBe(before + 1);
    const request = upstream.requests.at(-1)!;
    expect(request.method).toBe("PATCH");
    expect(request.path).toBe("/tickets/7");
    expect(request.headers).not.toHaveProperty("if-match");
    expect(request.headers["x-client"]).toBe("kervanc");
    expect(JSON.parse(request.body)).toEqual({ title: "Printer on fire", fields: { team: "support" } });
  });

  it("sends the header and keys when given, and keeps an explicit null in the body", async () => {
    await client.callTool("update_ticket", { id: 8, description: null, assignee: "ada", if_match: '"v3"' });
    const request = upstream.requests.at(-1)!;
    expect(request.headers["if-match"]).toBe('"v3"');
    expect(request.body).toBe('{"description":null,"fields":{"assignee":"ada","team":"support"}}');
  });

  it("without the field, keeps Kervan's behaviour: an absent header argument is an error, absent body keys null", async () => {
    const before = upstream.requests.length;
    const failed = await client.callTool("update_ticket_kervan", { id: 9, title: "t" });
    expect(failed.isError).toBe(true);
    expect(failed.content).toEqual([{ type: "text", text: "Missing value for input.if_match." }]);
    expect(upstream.requests.length).toBe(before);
    await client.callTool("update_ticket_kervan", { id: 9, title: "t", if_match: "*" });
    const request = upstream.requests.at(-1)!;
    expect(request.headers["if-match"]).toBe("*");
    expect(JSON.parse(request.body)).toEqual({
      title: "t",
      description: null,
      fields: { assignee: null, team: "support" },
    });
  });
});
