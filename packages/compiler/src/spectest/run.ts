/**
 * Running one spec's test file: the spec built with its tools pointed at the stub, the generated server started
 * with the development relaxations and placeholder secrets, then each case in order: the stub primed with the
 * case's response, the tool called, the request and the result compared, the canary checked.
 */
import { type Diagnostic, report, toDiagnostic, WHOLE_FILE } from "../diagnostics/diagnostic.ts";
import { readRegularFile } from "../load/regular-file.ts";
import { compileDev } from "../devloop/dev-package.ts";
import { type DevServer, startDevServer } from "../devloop/dev-server.ts";
import { retarget, retargetCredentials } from "../devloop/retarget.ts";
import { RpcError } from "../devloop/server-child.ts";
import { type CallOutcome, compareRequest, compareResult } from "./compare.ts";
import type { TestCase } from "./test-file-shape.ts";
import { loadTests } from "./load.ts";
import { placeholders, type Placeholders } from "./secrets.ts";
import { Stub } from "./stub.ts";

export interface CaseResult {
  readonly name: string;
  readonly tool: string;
  readonly ok: boolean;
  readonly failures: readonly string[];
}

export interface FileResult {
  readonly testFile: string;
  readonly specFile: string;
  readonly diagnostics: readonly Diagnostic[];
  readonly cases: readonly CaseResult[];
}

export async function runTestFile(
  testFile: string,
  specFile: string,
  options: { env: NodeJS.ProcessEnv; onLog: (line: string) => void },
): Promise<FileResult> {
  const compiled = await compileDev(specFile);
  if (!compiled.ok) return { testFile, specFile, diagnostics: compiled.diagnostics, cases: [] };
  const planned = compiled.compiled.planned;
  const read = await readRegularFile(testFile);
  if (!read.ok) {
    const { code, what } = read;
    const problem = report("KV9010", [], (m) =>
      what !== undefined ? m.notRegularFile({ file: testFile, what }) : m.unreadable({ code: String(code) }),
    );
    return {
      testFile,
      specFile,
      diagnostics: [toDiagnostic(testFile, WHOLE_FILE, problem)],
      cases: [],
    };
  }
  const loaded = loadTests(
    testFile,
    read.bytes,
    planned.tools.map((t) => t.plan.listing.name),
  );
  const diagnostics = [...compiled.diagnostics, ...loaded.diagnostics];
  if (!loaded.ok) return { testFile, specFile, diagnostics, cases: [] };

  const names = planned.plan.secrets.map((s) => s.name);
  const credentials = planned.plan.credentials ?? [];
  const secrets = placeholders(
    names,
    credentials.map((c) => c.name),
  );
  // The server sees only the placeholders: a real value in the environment must not reach the stub.
  const env: NodeJS.ProcessEnv = { ...options.env };
  for (const name of names) delete env[name];
  for (const [name, value] of secrets.values) if (!name.startsWith("credentials.")) env[name] = value;
  // upstream-auth: the caller a stdio call does not have, with placeholder header values and access token; the
  // stand-in issues each token credential its placeholder (retargetCredentials).
  const placeholder = (name: string): string => secrets.values.get(`credentials.${name}`)!;
  const callerHeaders = Object.fromEntries(
    credentials.flatMap((c) => (c.kind === "callerHeader" ? [[c.header, placeholder(c.name)]] : [])),
  );
  delete env["KERVANC_STDIO_CALLER_HEADERS"];
  delete env["KERVANC_STDIO_SUBJECT_TOKEN"];
  if (Object.keys(callerHeaders).length > 0) env["KERVANC_STDIO_CALLER_HEADERS"] = JSON.stringify(callerHeaders);
  if (credentials.some((c) => c.kind === "tokenExchange"))
    env["KERVANC_STDIO_SUBJECT_TOKEN"] = `kervanc-test-caller-token-${names.length}-${credentials.length}`;

  const stub = await Stub.start();
  stub.tokens = new Map(credentials.flatMap((c) => (c.kind === "callerHeader" ? [] : [[c.name, placeholder(c.name)]])));
  let server: DevServer | undefined;
  try {
    server = await startDevServer(compiled.compiled, retargetCredentials(retarget(planned, stub.origin), stub.origin), {
      env,
      onLog: (line) => options.onLog(secrets.mask(line)),
    });
    const cases: CaseResult[] = [];
    for (const c of loaded.tests) cases.push(await runCase(c, server, stub, secrets));
    return { testFile, specFile, diagnostics, cases };
  } finally {
    await server?.close();
    await stub.close();
  }
}

async function runCase(c: TestCase, server: DevServer, stub: Stub, secrets: Placeholders): Promise<CaseResult> {
  stub.requests = [];
  const response = c.upstream?.response;
  if (c.upstream !== undefined) {
    const body = response?.body;
    const isText = typeof body === "string";
    const text = body === undefined ? "" : isText ? secrets.fill(body) : JSON.stringify(secrets.fillJson(body));
    const headers: Record<string, string> = body !== undefined && !isText ? { "content-type": "application/json" } : {};
    for (const [k, v] of Object.entries(response?.headers ?? {})) headers[k.toLowerCase()] = secrets.fill(v);
    stub.response = { status: response?.status ?? 200, headers, body: text };
  } else {
    stub.response = {
      status: 500,
      headers: { "content-type": "text/plain" },
      body: "kervanc test: this case expects no upstream call",
    };
  }
  let outcome: CallOutcome;
  let raw: string;
  try {
    const result = (await server.child.request("tools/call", { name: c.tool, arguments: c.arguments ?? {} })) as {
      content?: { type: string; text?: string }[];
      structuredContent?: unknown;
      isError?: boolean;
    };
    raw = JSON.stringify(result);
    const text = (result.content ?? [])
      .filter((p) => p.type === "text")
      .map((p) => p.text ?? "")
      .join("\n");
    outcome = { isError: result.isError === true, text, structured: result.structuredContent };
  } catch (error) {
    if (!(error instanceof RpcError)) throw error;
    raw = error.message;
    outcome = { isError: true, text: error.message, structured: undefined };
  }
  const failures = [...compareRequest(c, stub.requests, secrets), ...compareResult(c, outcome, secrets)];
  for (const name of secrets.leaked(raw))
    failures.push(`secret ${name} reached the result (the canary check): the runtime let it through unredacted`);
  return { name: c.name, tool: c.tool, ok: failures.length === 0, failures };
}
