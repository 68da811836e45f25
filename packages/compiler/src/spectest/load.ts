/**
 * Reading a spec-test file: YAML with positions (the spec loader's), the structure from the shapes in
 * format.ts, then what a shape cannot say (the tool exists, arguments are an object, the expectation is
 * coherent), each problem a positioned diagnostic like a spec's.
 */
import { validateHeaderName, validateHeaderValue } from "node:http";
import { closest } from "../analyze/suggest.ts";
import { checkShape } from "../analyze/structure.ts";
import {
  compareDiagnostics,
  type Diagnostic,
  type Finding,
  oneLine,
  report,
  severityOf,
  toDiagnostics,
  WHOLE_FILE,
} from "../diagnostics/diagnostic.ts";
import { loadSpec, specLocator } from "../load/load.ts";
import { type TestCase, type TestFile, testFileShape } from "./test-file-shape.ts";

export type LoadedTests =
  | { readonly ok: true; readonly tests: readonly TestCase[]; readonly diagnostics: readonly Diagnostic[] }
  | { readonly ok: false; readonly diagnostics: readonly Diagnostic[] };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** `tools` are the spec's tool names, for the "no such tool" check. */
export function loadTests(file: string, bytes: Uint8Array, tools: readonly string[]): LoadedTests {
  const loaded = loadSpec(file, bytes);
  if (!loaded.ok) return { ok: false, diagnostics: toDiagnostics(file, WHOLE_FILE, loaded.findings) };
  const spec = loaded.spec;
  const findings: Finding[] = [];
  checkShape(spec.value, testFileShape, [], findings);
  if (!findings.some((f) => severityOf(f) === "error")) {
    (spec.value as TestFile).tests.forEach((c, i) => checkCase(c, i, tools, findings));
  }
  const diagnostics = toDiagnostics(file, specLocator(spec), findings).sort(compareDiagnostics);
  if (diagnostics.some((d) => d.severity === "error")) return { ok: false, diagnostics };
  return { ok: true, tests: (spec.value as TestFile).tests, diagnostics };
}

function checkCase(c: TestCase, i: number, tools: readonly string[], out: Finding[]): void {
  const at = ["tests", i];
  if (!tools.includes(c.tool)) {
    const close = closest(c.tool, tools);
    out.push(
      report("KV9010", [...at, "tool"], (m) =>
        close !== undefined
          ? m.unknownToolMeant({ tool: String(c.tool), meant: close })
          : m.unknownTool({ tool: String(c.tool) }),
      ),
    );
  }
  if (c.arguments !== undefined && !isObject(c.arguments))
    out.push(report("KV9010", [...at, "arguments"], (m) => m.argumentsNotObject));
  const { text, structured, error } = c.expect;
  if (text === undefined && structured === undefined && error === undefined) {
    out.push(report("KV9010", [...at, "expect"], (m) => m.noExpectation));
  } else if (error !== undefined && (text !== undefined || structured !== undefined)) {
    out.push(report("KV9010", [...at, "expect"], (m) => m.errorAndSuccess));
  }
  const query = c.upstream?.request?.query;
  if (query !== undefined) {
    const ok =
      isObject(query) &&
      Object.values(query).every(
        (v) => typeof v === "string" || (Array.isArray(v) && v.every((x) => typeof x === "string")),
      );
    if (!ok) out.push(report("KV9010", [...at, "upstream", "request", "query"], (m) => m.queryShape));
  }
  // The stand-in API sends these headers as they are: one Node refuses to send (a line break, a name with a space)
  // would otherwise stop kervanc test with an exception instead of a positioned error.
  for (const [name, value] of Object.entries(c.upstream?.response?.headers ?? {})) {
    const path = [...at, "upstream", "response", "headers", name];
    if (!sendable(() => validateHeaderName(name)))
      out.push(report("KV9010", path, (m) => m.headerName({ name: oneLine(name) }), { atKey: true }));
    else if (!sendable(() => validateHeaderValue(name, value)))
      out.push(report("KV9010", path, (m) => m.headerValue({ name })));
  }
}

function sendable(check: () => void): boolean {
  try {
    check();
    return true;
  } catch {
    return false;
  }
}
