/**
 * Benchmark specs: N realistic tools against one local upstream, as a Kervan spec and as the equivalent
 * OpenAPI document (for the peer generator).
 *
 *   npx tsx scripts/bench/gen-specs.ts --tools 1,10,100,200 --origin http://127.0.0.1:8080 [--secrets] --out DIR
 *
 * Tools cycle through four shapes, so every size mixes path and query templates, a typed JSON body, headers,
 * filters and hashes in `select`, and structured output with an output schema:
 *   0 get_*     GET  /v1/<things>/{id}?fields&lang&include=owner   hash select + output schema (the measured tool)
 *   1 search_*  GET  /v1/<things>?q&limit&page                     filter + projection, text result
 *   2 create_*  POST /v1/<things>  {name, tags, priority, source}  hash select + output schema
 *   3 events_*  GET  /v1/<things>/{id}/events?since                functions in the hash + output schema
 * With `secrets: true` every tool also sends a bearer token from a declared secret, so each call pays for secret
 * handling and redaction of the result. kervanc sends secrets only over https, so that variant is used where the
 * upstream is a stub transport (the in-process per-call figures); the process benchmarks use a plain-http
 * upstream on loopback and no secret, so that they measure the servers rather than TLS handshakes.
 * The rate limit is raised to the format's maximum: the benchmarks make far more than 60 calls a minute to one
 * tool, and a limited call would measure the limiter's refusal instead of the call.
 *
 * Tool 0 is the tool the hand-written baseline implements (scripts/bench/handwritten/tool.ts); keep them in step.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import { parseArgs } from "node:util";

export const SECRET_NAME = "BENCH_API_TOKEN";
/** A token long enough for the vault (8+ characters); the upstream never echoes it. */
export const SECRET_VALUE = "bench-token-4f9c2e7a1d";

const ENTITIES = [
  "order",
  "invoice",
  "customer",
  "product",
  "shipment",
  "ticket",
  "project",
  "task",
  "user",
  "team",
  "repo",
  "issue",
  "build",
  "release",
  "document",
  "folder",
  "event",
  "booking",
  "payment",
  "refund",
  "account",
  "contact",
  "lead",
  "campaign",
  "report",
  "metric",
  "alert",
  "device",
  "sensor",
  "station",
  "route",
  "vehicle",
  "driver",
  "store",
  "warehouse",
  "supplier",
  "contract",
  "policy",
  "claim",
  "asset",
  "article",
  "comment",
  "review",
  "course",
  "lesson",
  "patient",
  "visit",
  "recipe",
  "playlist",
  "track",
];

const KINDS = ["get", "search", "create", "events"] as const;
export type ToolKind = (typeof KINDS)[number];

export interface GeneratedTool {
  readonly name: string;
  readonly kind: ToolKind;
  /** Valid arguments for one call. */
  readonly args: Record<string, unknown>;
}

export function toolKind(index: number): ToolKind {
  return KINDS[index % KINDS.length]!;
}

function entity(index: number): string {
  return ENTITIES[Math.floor(index / KINDS.length) % ENTITIES.length]!;
}

export function toolName(index: number): string {
  const kind = toolKind(index);
  const e = entity(index);
  // The index keeps names unique beyond the 50 entities; the primary tool keeps a stable name in every spec.
  return kind === "events" ? `list_${e}_events_${index}` : `${kind}_${e}_${index}`;
}

/** The tools of an N-tool spec, with arguments that pass validation. */
export function benchTools(count: number): GeneratedTool[] {
  const tools: GeneratedTool[] = [];
  for (let i = 0; i < count; i++) {
    const kind = toolKind(i);
    const args: Record<string, unknown> =
      kind === "get"
        ? { id: 4821 + i, fields: "name,status", lang: "en" }
        : kind === "search"
          ? { q: `blue widget ${i}`, limit: 20, page: 1 }
          : kind === "create"
            ? { name: `Widget ${i}`, tags: ["bench", "blue"], priority: 3 }
            : { id: 4821 + i, since: "2026-11-01T00:00:00Z" };
    tools.push({ name: toolName(i), kind, args });
  }
  return tools;
}

/** The first tool: what the hand-written baseline implements and what the per-call and HTTP figures call. */
export const PRIMARY_TOOL = toolName(0);
export const PRIMARY_ARGS = benchTools(1)[0]!.args;

function plural(e: string): string {
  return e.endsWith("y") ? `${e.slice(0, -1)}ies` : e.endsWith("s") || e.endsWith("ch") ? `${e}es` : `${e}s`;
}

/** One tool as YAML lines (indented for the `tools:` list). */
function toolYaml(index: number, origin: string, secrets: boolean): string {
  const kind = toolKind(index);
  const e = entity(index);
  const things = plural(e);
  const name = toolName(index);
  const auth = secrets ? `      headers:\n        Authorization: "Bearer {{secrets.${SECRET_NAME}}}"\n` : "";
  switch (kind) {
    case "get":
      return `  - name: ${name}
    title: Get a ${e}
    description: Get one ${e} by id, with its status, last update and owner.
    annotations: { readOnlyHint: true }
    input:
      type: object
      properties:
        id: { type: integer, minimum: 1, maximum: 2147483647, description: The ${e} id. }
        fields: { type: string, maxLength: 64, pattern: "^[a-z_,]*$", description: Comma-separated fields to include. }
        lang: { type: string, enum: [en, de, fr, tr] }
      required: [id]
      additionalProperties: false
    http:
      method: GET
      url: ${origin}/v1/${things}/{{input.id}}
      query:
        fields: "{{input.fields}}"
        lang: "{{input.lang}}"
        include: owner
${auth}    output:
      select: "{id: id, name: name, status: status, updated: meta.updated, owner: owner.name}"
      schema:
        type: object
        properties:
          id: { type: integer }
          name: { type: string }
          status: { type: string }
          updated: { type: string }
          owner: { type: string }
        required: [id, name]
`;
    case "search":
      return `  - name: ${name}
    description: Search ${things} by text; returns the best matches with their score.
    annotations: { readOnlyHint: true }
    input:
      type: object
      properties:
        q: { type: string, minLength: 1, maxLength: 200, description: Words to search for. }
        limit: { type: integer, minimum: 1, maximum: 100 }
        page: { type: integer, minimum: 1 }
      required: [q]
    http:
      method: GET
      url: ${origin}/v1/${things}
      query:
        q: "{{input.q}}"
        limit: "{{input.limit}}"
        page: "{{input.page}}"
${auth}    output:
      select: "items[?score > \`0.5\`].{id: id, name: name, score: score}"
`;
    case "create":
      return `  - name: ${name}
    description: Create a ${e} with a name, tags and a priority.
    annotations: { destructiveHint: false }
    input:
      type: object
      properties:
        name: { type: string, minLength: 1, maxLength: 100 }
        tags: { type: array, items: { type: string, maxLength: 32 }, maxItems: 10 }
        priority: { type: integer, minimum: 1, maximum: 5 }
      required: [name]
    http:
      method: POST
      url: ${origin}/v1/${things}
      body:
        name: "{{input.name}}"
        tags: "{{input.tags}}"
        priority: "{{input.priority}}"
        source: bench
${auth}    output:
      select: "{id: id, status: status, created: meta.created}"
      schema:
        type: object
        properties:
          id: { type: integer }
          status: { type: string }
          created: { type: string }
        required: [id]
`;
    case "events":
      return `  - name: ${name}
    description: List recent events of a ${e}.
    annotations: { readOnlyHint: true }
    input:
      type: object
      properties:
        id: { type: integer, minimum: 1 }
        since: { type: string, maxLength: 40 }
      required: [id]
    http:
      method: GET
      url: ${origin}/v1/${things}/{{input.id}}/events
      query:
        since: "{{input.since}}"
${auth}    output:
      select: "{count: length(events), latest: events[0].at, kinds: events[].kind}"
      schema:
        type: object
        properties:
          count: { type: integer }
          latest: { type: string }
          kinds: { type: array, items: { type: string } }
        required: [count]
`;
  }
}

export interface SpecOptions {
  /** Send a bearer token from a declared secret (needs an https origin). */
  readonly secrets?: boolean;
  readonly name?: string;
}

/** A Kervan spec with `count` tools calling `origin` (plain http is allowed, for the loopback upstream). */
export function generateSpec(count: number, origin: string, options: SpecOptions = {}): string {
  const secrets = options.secrets ?? false;
  const tools: string[] = [];
  for (let i = 0; i < count; i++) tools.push(toolYaml(i, origin, secrets));
  return `# Generated by scripts/bench/gen-specs.ts: ${count} tool(s) for the benchmarks.
specVersion: 1
name: ${options.name ?? `bench-${count}`}
version: "1.0.0"
description: Benchmark server with ${count} tool(s) against a local upstream.
${secrets ? `secrets: [${SECRET_NAME}]\n` : ""}defaults:
  http:
    allowInsecureHttp: true
  rateLimit:
    perMinute: 100000
    concurrency: 1000
tools:
${tools.join("")}`;
}

/** The upstream's fixed answer: every field any tool selects, about 1.6 KB of JSON. */
export function upstreamBody(): string {
  const items = Array.from({ length: 10 }, (_, i) => ({
    id: 100 + i,
    name: `Item ${i}`,
    score: Math.round(((i * 37) % 100) / 10) / 10,
    kind: i % 2 === 0 ? "a" : "b",
  }));
  const events = Array.from({ length: 8 }, (_, i) => ({
    at: `2026-11-${String(20 + i).padStart(2, "0")}T10:00:00Z`,
    kind: i % 3 === 0 ? "update" : "view",
    actor: { id: i, name: `user${i}` },
  }));
  return JSON.stringify({
    id: 4821,
    name: "Widget 4821",
    status: "active",
    meta: { created: "2026-01-02T03:04:05Z", updated: "2026-11-30T12:00:00Z", etag: 'W/"5d9942fe"' },
    owner: { id: 7, name: "Ada Lovelace", email: "ada@example.com" },
    tags: ["blue", "metal", "bench"],
    items,
    events,
    total: items.length,
    page: 1,
  });
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * The same tools as an OpenAPI 3.0 document, for openapi-mcp-generator: the same paths, parameters, body and
 * input constraints (and a bearer scheme when the spec sends a token). OpenAPI has no place for `select` or an output schema's
 * role, so the peer returns the whole upstream body as text (see BENCHMARKS.md).
 */
export function generateOpenApi(count: number, origin: string, options: { secrets?: boolean } = {}): Json {
  const paths: Record<string, Record<string, Json>> = {};
  const add = (path: string, method: string, op: Json): void => {
    (paths[path] ??= {})[method] = op;
  };
  const ok = { "200": { description: "OK", content: { "application/json": { schema: { type: "object" } } } } };
  for (let i = 0; i < count; i++) {
    const kind = toolKind(i);
    const e = entity(i);
    const things = plural(e);
    const operationId = toolName(i);
    const q = (name: string, schema: Json, required = false): Json => ({ name, in: "query", required, schema });
    switch (kind) {
      case "get":
        add(`/v1/${things}/{id}`, "get", {
          operationId,
          description: `Get one ${e} by id, with its status, last update and owner.`,
          parameters: [
            { name: "id", in: "path", required: true, schema: { type: "integer", minimum: 1, maximum: 2147483647 } },
            q("fields", { type: "string", maxLength: 64, pattern: "^[a-z_,]*$" }),
            q("lang", { type: "string", enum: ["en", "de", "fr", "tr"] }),
          ],
          responses: ok,
        });
        break;
      case "search":
        add(`/v1/${things}`, "get", {
          operationId,
          description: `Search ${things} by text; returns the best matches with their score.`,
          parameters: [
            q("q", { type: "string", minLength: 1, maxLength: 200 }, true),
            q("limit", { type: "integer", minimum: 1, maximum: 100 }),
            q("page", { type: "integer", minimum: 1 }),
          ],
          responses: ok,
        });
        break;
      case "create":
        add(`/v1/${things}`, "post", {
          operationId,
          description: `Create a ${e} with a name, tags and a priority.`,
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  properties: {
                    name: { type: "string", minLength: 1, maxLength: 100 },
                    tags: { type: "array", items: { type: "string", maxLength: 32 }, maxItems: 10 },
                    priority: { type: "integer", minimum: 1, maximum: 5 },
                  },
                  required: ["name"],
                },
              },
            },
          },
          responses: ok,
        });
        break;
      case "events":
        add(`/v1/${things}/{id}/events`, "get", {
          operationId,
          description: `List recent events of a ${e}.`,
          parameters: [
            { name: "id", in: "path", required: true, schema: { type: "integer", minimum: 1 } },
            q("since", { type: "string", maxLength: 40 }),
          ],
          responses: ok,
        });
        break;
    }
  }
  return {
    openapi: "3.0.3",
    info: { title: `bench-${count}`, version: "1.0.0" },
    servers: [{ url: origin }],
    ...(options.secrets
      ? { security: [{ bearer: [] }], components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } } }
      : {}),
    paths,
  };
}

/** What the peer takes as arguments: its create tools nest the JSON body under `requestBody`. */
export function peerArgs(tool: GeneratedTool): Record<string, unknown> {
  return tool.kind === "create" ? { requestBody: tool.args } : tool.args;
}

async function cli(): Promise<void> {
  const { values } = parseArgs({
    options: {
      tools: { type: "string", default: "1,10,100,200" },
      origin: { type: "string", default: "http://127.0.0.1:8080" },
      secrets: { type: "boolean", default: false },
      out: { type: "string" },
    },
  });
  if (!values.out) throw new Error("--out DIR is required.");
  await mkdir(values.out, { recursive: true });
  for (const n of values.tools.split(",").map(Number)) {
    await writeFile(join(values.out, `bench-${n}.yaml`), generateSpec(n, values.origin, { secrets: values.secrets }));
    await writeFile(
      join(values.out, `bench-${n}.openapi.json`),
      `${JSON.stringify(generateOpenApi(n, values.origin, { secrets: values.secrets }), null, 2)}\n`,
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await cli();
