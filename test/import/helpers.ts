/**
 * Helpers for the in-process import tests: import a document given as a value or text, read back the spec it
 * wrote (through the compiler's own loader), and build minimal documents.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "yaml";
import { compileSpec } from "../../packages/compiler/src/compile.ts";
import { formatDiagnostic, type Diagnostic } from "../../packages/compiler/src/diagnostics/diagnostic.ts";
import { importOpenApi, type ImportOptions, type ImportResult } from "../../packages/compiler/src/import/openapi.ts";
import { REPO } from "../helpers/kervanc.ts";

export type { ImportOptions, ImportResult };
export function importFixture(path: string, options: ImportOptions = {}): ImportResult {
  return importOpenApi(path, readFileSync(join(REPO, path)), "spec.yaml", options);
}

export function text(diagnostics: readonly Diagnostic[]): string {
  return diagnostics.map((d) => `${formatDiagnostic(d)}\n`).join("");
}

/** Imports a document given as a value (written as YAML) or as text. */
export function imp(doc: unknown, options: ImportOptions = {}): ImportResult {
  const source = typeof doc === "string" ? doc : stringify(doc);
  return importOpenApi("api.yaml", new TextEncoder().encode(source), "spec.yaml", options);
}

/** The plain value of the spec an import wrote (throws when there is none, showing the diagnostics). */
export function specOf(result: ImportResult): {
  tools: Record<string, any>[];
  secrets?: { name: string; hosts: string[] }[];
  [k: string]: unknown;
} {
  if (!result.ok || result.text === null) throw new Error(`the import failed:\n${text(result.diagnostics)}`);
  const compiled = compileSpec("spec.yaml", new TextEncoder().encode(result.text));
  if (compiled.loaded === null) throw new Error("the written spec does not load");
  return compiled.loaded.value as never;
}

/** `severity code` of each diagnostic, without the KV7016 note (see `problems`). */
export function codes(result: ImportResult): string[] {
  return problems(result).map((d) => `${d.severity} ${d.code}`);
}

/** A minimal OpenAPI 3.1 document with the given paths (and more top-level keys). */
export function api(paths: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    openapi: "3.1.0",
    info: { title: "Test API", version: "1.0" },
    servers: [{ url: "https://api.example.com/v1" }],
    paths,
    ...extra,
  };
}

export const ok200 = {
  "200": {
    description: "OK",
    content: { "application/json": { schema: { type: "object", properties: { id: { type: "string" } } } } },
  },
};

/**
 * The diagnostics other than the KV7016 note, which every document here without a security scheme gets (it is
 * tested in security.test.ts).
 */
export function problems(result: ImportResult): Diagnostic[] {
  return result.diagnostics.filter((d) => d.code !== "KV7016");
}

/**
 * The schema of a tool's request body: its one `body` argument, or, for a body flattened into the tool's
 * arguments (request-body.ts), the object those arguments make up (for tools without parameters).
 */
export function bodyOf(tool: Record<string, any>): Record<string, any> {
  const input = tool["input"] as { properties: Record<string, unknown>; required?: string[] };
  if ("body" in input.properties && typeof tool["http"]["body"] === "string") return input.properties["body"] as never;
  return {
    type: "object",
    properties: input.properties,
    ...(input.required !== undefined ? { required: input.required } : {}),
  };
}
