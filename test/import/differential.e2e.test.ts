/**
 * The differential suite of `kervanc import` (issue 36): every real document in fixtures/openapi/real (each with
 * its source and licence in `x-fixture`) is imported by the CLI, built, and its server spawned once; every tool is
 * called with the SDK client, with arguments generated from its input schema (optional ones too), against a
 * recording https upstream on 127.0.0.1 that answers each request with an answer generated from the schema of the
 * operation it reaches. Each request is checked against the document (check-request.ts), each result against the
 * answer (check-result.ts). The verdicts, one per operation of each document (ok, a request defect, a result
 * defect, or left out at import and why), are compared to fixtures/openapi/differential.baseline.json
 * (update with `npx vitest run test/import/differential.e2e.test.ts -u`), and no request may be a defect.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import { readdirSync, readFileSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type TestClient, type ToolResult } from "../helpers/clients.ts";
import { type CliResult, REPO, removeDir, tempDir } from "../helpers/kervanc.ts";
import { type RecordedRequest, startUpstream, TEST_CA, type Upstream } from "../helpers/upstream.ts";
import { checkRequest } from "./differential/check-request.ts";
import { checkResult } from "./differential/check-result.ts";
import { Document, type Operation } from "./differential/document.ts";
import { exampleOf, type Schema } from "./differential/values.ts";
import { importAndBuild } from "./imported-servers.ts";

const REAL = join(REPO, "fixtures", "openapi", "real");
/** KERVANC_DIFFERENTIAL_ONLY=jira,stripe-core runs those documents only (and skips the baseline), printing defects. */
const ONLY = process.env["KERVANC_DIFFERENTIAL_ONLY"]?.split(",");
const NAMES = readdirSync(REAL)
  .filter((f) => f.endsWith(".json"))
  .map((f) => f.slice(0, -5))
  .filter((n) => ONLY === undefined || ONLY.includes(n))
  .sort();
const documents = new Map(
  NAMES.map((n) => [n, new Document(JSON.parse(readFileSync(join(REAL, `${n}.json`), "utf8")))]),
);

let upstream: Upstream;
let root: string;
let imports: Record<string, CliResult>;
let built: CliResult;
/** The verdict of each operation, by document and route. */
const verdicts: Record<string, Record<string, string>> = {};
const answers = new Map<Operation, { body?: unknown; text?: string }>();

function answerOf(doc: Document, op: Operation): { body?: unknown; text?: string } {
  let a = answers.get(op);
  if (a === undefined) {
    const { mediaType, schema } = op.success;
    // 204, 205 and 304 carry no content (RFC 9110), whatever the document says (Jira documents JSON on its 204s).
    if (mediaType === undefined || [204, 205, 304].includes(op.success.status)) a = {};
    else if (/json/i.test(mediaType) || (mediaType.includes("*") && schema?.["type"] !== "string"))
      a = { body: exampleOf(schema, { resolve: doc.resolve, mode: "response" }) };
    else a = { text: `answer text of ${op.route}` };
    answers.set(op, a);
  }
  return a;
}

function answer(req: RecordedRequest, res: ServerResponse): void {
  const name = req.path.split("/")[1] ?? "";
  const doc = documents.get(name);
  const matched = doc?.match(req.method, req.path.slice(name.length + 1));
  if (doc === undefined || matched === undefined) {
    res.writeHead(404, { "content-type": "application/json" }).end('{"error":"no such operation"}');
    return;
  }
  const { op } = matched;
  const a = answerOf(doc, op);
  const type = op.success.mediaType;
  if (type === undefined || (a.body === undefined && a.text === undefined))
    return void res.writeHead(op.success.status === 200 ? 204 : op.success.status).end();
  const body = a.text ?? JSON.stringify(a.body);
  res.writeHead(op.success.status, {
    "content-type": type.includes("*") ? "application/json" : type,
    "content-length": Buffer.byteLength(body),
  });
  res.end(body);
}

/** Each tool of a spec the import wrote, with the route its comment names. */
function toolsOf(spec: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of spec.matchAll(
    /^ {2}# (GET|POST|PUT|PATCH|DELETE) (\S+)(?: \(operationId .*\))?\n {2}- name: (\S+)$/gm,
  ))
    out.set(m[3]!, `${m[1]} ${m[2]}`);
  return out;
}

/** Why the import left an operation out: the diagnostic that names it, reduced to its reason. */
function leftOutReason(stderr: string, op: Operation): string {
  const lines = stderr.split("\n").filter((l) => / - (warning|error) KV\d+: /.test(l));
  const line = lines.find(
    (l) =>
      (op.operationId !== undefined &&
        (l.includes(`(${op.operationId})`) ||
          l.includes(` ${op.operationId} `) ||
          l.includes(`operation ${op.operationId}`))) ||
      (l.includes(`paths["${op.path}"].${op.method.toLowerCase()}`) && /left out|Skipped/.test(l)),
  );
  if (line === undefined) return "left out: not named by a diagnostic";
  const code = / (KV\d+): /.exec(line)![1]!;
  if (/recursive/.test(line)) return `left out: ${code} a recursive input schema`;
  if (/cannot return/.test(line)) return `left out: ${code} a binary answer (without --binary-output)`;
  if (/request body is/.test(line))
    return `left out: ${code} a body a spec cannot send (${/body is (\S+?);/.exec(line)?.[1]})`;
  if (/part cannot carry/.test(line)) return `left out: ${code} a multipart field a part cannot carry`;
  return `left out: ${code} ${line.replace(/^.* - (warning|error) KV\d+: /, "").slice(0, 120)}`;
}

function secretsOf(spec: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const m of spec.matchAll(/^ {2}- name: ([A-Z0-9_]+)\n {4}hosts:/gm))
    env[m[1]!] = `secret-${m[1]!.toLowerCase()}`;
  return env;
}

/** Where the security schemes of an operation (any of its alternatives) put their credentials. */
function credentialsOf(doc: Document, op: Operation): { headers: Set<string>; query: Set<string> } {
  const headers = new Set(["authorization", "cookie"]);
  const query = new Set<string>();
  const schemes = (doc.doc["components"]?.["securitySchemes"] ?? {}) as Record<string, Schema>;
  const used = new Set(op.security.flatMap((alternative) => Object.keys(alternative)));
  for (const [name, raw] of Object.entries(schemes)) {
    if (!used.has(name)) continue;
    const s = doc.deref(raw);
    if (s["type"] === "apiKey" && s["in"] === "header") headers.add(String(s["name"]).toLowerCase());
    if (s["type"] === "apiKey" && s["in"] === "query") query.add(String(s["name"]));
  }
  return { headers, query };
}

const validator = new Ajv2020({ strict: false, logger: false, validateFormats: false });

/** Arguments from the tool's input schema: every optional one too, else only the required ones. */
function argumentsFor(inputSchema: unknown): Record<string, unknown> {
  const check = validator.compile(inputSchema as object);
  const full = exampleOf(inputSchema, { mode: "request" }) as Record<string, unknown>;
  if (check(full)) return full;
  for (const optional of [true, false])
    for (const branch of [0, 1, 2, 3]) {
      const args = exampleOf(inputSchema, { mode: "request", optional, branch }) as Record<string, unknown>;
      if (check(args)) return args;
    }
  return full;
}

beforeAll(async () => {
  upstream = await startUpstream(answer, { tls: true, hostname: "localhost" });
  root = await tempDir("import-differential");
  ({ imports, built } = await importAndBuild(
    root,
    NAMES.map((name) => ({
      name,
      document: `fixtures/openapi/real/${name}.json`,
      serverUrl: `${upstream.origin}/${name}`,
      args: ["--skip-invalid"],
    })),
  ));
}, 240_000);

afterAll(async () => {
  await upstream?.close();
  if (root) await removeDir(root);
});

describe("the differential suite over real documents", () => {
  it("imports every document and builds every spec", () => {
    for (const [name, r] of Object.entries(imports)) expect(r.code, `${name}: ${r.stderr.slice(-2000)}`).toBe(0);
    expect(built.code, built.stderr).toBe(0);
    if (ONLY === undefined) expect(NAMES.length).toBeGreaterThanOrEqual(12);
  });

  for (const name of NAMES) {
    it(`calls every tool of ${name} and checks each request and result`, async () => {
      const doc = documents.get(name)!;
      const spec = readFileSync(join(root, "specs", `${name}.yaml`), "utf8");
      const tools = toolsOf(spec);
      const table: Record<string, string> = {};
      const imported = new Set(tools.values());
      for (const op of doc.operations)
        if (!imported.has(op.route)) table[op.route] = leftOutReason(imports[name]!.stderr, op);
      const client: TestClient = await connect("modern", join(root, "out", name, "server.mjs"), {
        serverArgs: ["--allow-private-network"],
        env: { NODE_EXTRA_CA_CERTS: TEST_CA, ...secretsOf(spec) },
      });
      try {
        const listed = new Map((await client.listTools()).tools.map((t) => [t.name, t]));
        for (const [tool, route] of tools) {
          const op = doc.operations.find((o) => o.route === route)!;
          const args = argumentsFor(listed.get(tool)!.inputSchema);
          const before = upstream.requests.length;
          let result: ToolResult;
          try {
            result = await client.callTool(tool, args);
          } catch (error) {
            // The client refuses a result that breaks the tool's output schema (a result defect).
            result = { isError: true, content: [{ type: "text", text: `the client refused it: ${String(error)}` }] };
          }
          const sent = upstream.requests.slice(before);
          const problems: string[] = [];
          if (sent.length === 0) {
            const text = (result.content?.[0]?.text ?? "").slice(0, 160);
            // Arguments the tool's own schema refuses are the generator's limit (a oneOf it cannot satisfy),
            // not a request: counted apart.
            table[route] = /^Input validation error/.test(text) ? `not called: ${text}` : `not sent: ${text}`;
            continue;
          }
          const req = sent[0]!;
          const requestProblems = await checkRequest(
            doc,
            op,
            {
              method: req.method,
              path: req.path.slice(name.length + 1),
              query: req.query,
              headers: req.headers,
              body: req.rawBody,
            },
            args,
            credentialsOf(doc, op),
          );
          // Accept and Content-Type are the request's to set, never the model's.
          const inputNames = Object.keys(
            ((listed.get(tool)!.inputSchema as { properties?: object }).properties ?? {}) as object,
          );
          for (const n of inputNames)
            if (/^(accept|content[-_]?type)$/i.test(n)) requestProblems.push(`the model is asked for ${n}`);
          const ofDocument = requestProblems.filter((x) => x.startsWith("document defect: "));
          const ofRequest = requestProblems.filter((x) => !x.startsWith("document defect: "));
          if (ofRequest.length > 0) problems.push(`request defect: ${ofRequest.join("; ")}`);
          if (ofDocument.length > 0) problems.push(ofDocument.join("; "));
          const a = answerOf(doc, op);
          const resultProblems = checkResult(a.body, result, a.text);
          if (resultProblems.length > 0) problems.push(`result defect: ${resultProblems.join("; ")}`);
          table[route] = problems.length === 0 ? "ok" : problems.join(" | ");
          if (ONLY !== undefined && problems.length > 0)
            console.log(route, table[route], JSON.stringify({ args, sent: req.target, result }).slice(0, 1500));
        }
      } finally {
        await client.close();
      }
      verdicts[name] = Object.fromEntries(doc.operations.map((o) => [o.route, table[o.route]!]));
      // Every operation of the document has a verdict (the table itself is checked against the baseline below).
      expect(Object.values(verdicts[name]).every((v) => typeof v === "string")).toBe(true);
    }, 120_000);
  }

  it.skipIf(ONLY !== undefined)(
    "gives the verdicts of the baseline, and no request a document does not allow",
    async () => {
      const all = Object.values(verdicts).flatMap((v) => Object.values(v));
      const leftOut: Record<string, number> = {};
      for (const v of all)
        if (v.startsWith("left out: ")) {
          const reason = v.slice("left out: ".length).replace(/ \(.*\)$/, "");
          leftOut[reason] = (leftOut[reason] ?? 0) + 1;
        }
      const summary = {
        documents: Object.keys(verdicts).length,
        operations: all.length,
        imported: all.filter((v) => !v.startsWith("left out")).length,
        leftOut,
        ok: all.filter((v) => v === "ok").length,
        notCalled: all.filter((v) => v.startsWith("not called")).length,
        documentDefects: all.filter((v) => v.includes("document defect")).length,
        requestDefects: all.filter((v) => v.includes("request defect") || v.startsWith("not sent")).length,
        resultDefects: all.filter((v) => v.includes("result defect")).length,
      };
      await expect(`${JSON.stringify({ summary, operations: verdicts }, null, 1)}\n`).toMatchFileSnapshot(
        "../../fixtures/openapi/differential.baseline.json",
      );
      expect(summary.documents).toBe(NAMES.length);
      expect(summary.imported).toBeGreaterThanOrEqual(150);
      const requestDefects = Object.entries(verdicts).flatMap(([name, v]) =>
        Object.entries(v)
          .filter(([, verdict]) => verdict.includes("request defect") || verdict.startsWith("not sent"))
          .map(([route]) => `${name} ${route}: ${v[route]}`),
      );
      expect(requestDefects).toEqual([]);
    },
  );
});
