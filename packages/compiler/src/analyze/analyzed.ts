/**
 * What the analyze stage hands on: each tool with its parsed pieces (templates, compiled schemas, `select`
 * ASTs), so no later stage parses anything again.
 */
import type { ViewKind } from "../plan/view-model.ts";
import type {
  BodyNode,
  CredentialPlan,
  HeaderParam,
  JsonObject,
  QueryParam,
  SecretDeclaration,
  SelectNode,
  Template,
  TemplateRef,
} from "@kervanc/runtime";
import type { Finding, SpecPath } from "../diagnostics/diagnostic.ts";
import type { CompiledSchema } from "./rules/schemas.ts";
import type { ToolSettings } from "./settings.ts";
import type { SpecFile, ToolSpec } from "./spec-format.ts";
import type { LookAlike } from "./templates.ts";

export const DEFAULT_INPUT_SCHEMA: JsonObject = { type: "object", properties: {} };

export type AnalyzedOutput =
  | {
      readonly kind: "select";
      readonly expression: string;
      readonly ast: SelectNode;
      readonly schema: AnalyzedSchema | null;
    }
  | { readonly kind: "raw" }
  /** Binary answers only (kervanc extension binary-output). */
  | { readonly kind: "binary" };

export interface AnalyzedSchema {
  readonly schema: JsonObject;
  readonly compiled: CompiledSchema;
}

export interface AnalyzedTool {
  readonly index: number;
  readonly spec: ToolSpec;
  readonly request: ParsedRequest & { readonly url: ParsedUrl };
  /** Declared secrets this tool sends, sorted. */
  readonly secrets: readonly string[];
  /** The credentials this tool sends (kervanc extension upstream-auth), sorted. */
  readonly credentials: readonly string[];
  readonly input: AnalyzedSchema;
  readonly output: AnalyzedOutput;
  /** The tool's settings with the spec's and the format's defaults applied (settings.ts). */
  readonly settings: ToolSettings;
  /** The kervanc error-detail extension's parsed expression; absent without it. */
  readonly errorDetail?: { readonly expression: string; readonly ast: SelectNode; readonly maxChars: number };
  /** The kervanc binary-output extension: the largest binary answer returned; absent without it. */
  readonly binary?: { readonly maxBytes: number };
  /** The kervanc views extension: the tool's view, drawn from its output schema; absent or null for none. */
  readonly view?: ViewKind | null;
}

export interface AnalyzedSpec {
  readonly spec: SpecFile;
  readonly secrets: readonly SecretDeclaration[];
  /** Where each secret is declared (`secrets[i]`). */
  readonly secretPaths: ReadonlyMap<string, SpecPath>;
  /** The kervanc upstream-auth extension's credentials, in plan form; empty without it. */
  readonly credentials: readonly CredentialPlan[];
  readonly tools: readonly AnalyzedTool[];
}

export type AnalyzeResult = { readonly findings: readonly Finding[]; readonly analyzed: AnalyzedSpec | null };

/** A tool's `http` section analyzed and parsed (rules/request.ts): already in plan form. */
export interface ParsedUrl {
  readonly protocol: "https:" | "http:";
  readonly origin: string;
  readonly host: string;
  readonly hostname: string;
  readonly hostPort: string;
  readonly path: Template;
  readonly search: string;
}

export interface ParsedRequest {
  readonly url: ParsedUrl | null;
  readonly query: QueryParam[];
  readonly headers: HeaderParam[];
  readonly body: BodyNode | null;
  /** Every reference in the request, with where it was written (for reference checks). */
  readonly refs: {
    readonly ref: TemplateRef;
    readonly path: SpecPath;
    readonly offset?: number;
    readonly length?: number;
  }[];
  /** Literal text that looks like a template (`{input.q}`, `${X}`): the caller knows the names to judge it by. */
  readonly lookAlikes: { readonly path: SpecPath; readonly lookAlike: LookAlike }[];
}
