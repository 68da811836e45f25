/**
 * What a rule checks, and what the rules before it found. Rules run in the order of `rules/index.ts`: a rule
 * reads the facts of the rules listed before it (the declared secrets, the parsed request, the compiled input
 * schema) and sets its own; each reports findings into `out`.
 */
import type { CredentialPlan, JsonObject, SecretDeclaration } from "@kervanc/runtime";
import type { DiagnosticCode, Finding, SpecPath } from "../../diagnostics/diagnostic.ts";
import type { PatternBudget } from "../regex-backtracking.ts";
import type { ToolSettings } from "../settings.ts";
import type { SpecFile, ToolSpec } from "../spec-format.ts";
import type { AnalyzedOutput, AnalyzedSchema, AnalyzedTool, ParsedRequest } from "../analyzed.ts";

export interface SpecContext {
  readonly spec: SpecFile;
  readonly out: Finding[];
  /** Development relaxation (`kervanc call`, `dev`, `test`; never `build`): plain http to loopback hosts. */
  readonly devLoopbackHttp: boolean;
  /** The time this spec's pattern analyses (KV5019) may still take: one budget per spec and per rebuild. */
  readonly patterns: PatternBudget;
  /** Set by the secrets rule. */
  secrets: DeclaredSecrets;
  /** Set by the credentials rule (kervanc extension upstream-auth). */
  credentials: DeclaredCredentials;
  /** What some tool (or credential) sends, for the unused rule. */
  readonly used: { readonly secrets: Set<string>; readonly credentials: Set<string> };
  /** The tools that passed, in order. */
  readonly tools: AnalyzedTool[];
}

export interface DeclaredSecrets {
  readonly declarations: readonly SecretDeclaration[];
  /** Where each secret is declared (`secrets[i]`). */
  readonly paths: ReadonlyMap<string, SpecPath>;
  /** Each declared name and the hosts it may go to (undefined: the hosts of the tools that use it). */
  readonly bindings: ReadonlyMap<string, readonly string[] | undefined>;
}

export interface DeclaredCredentials {
  readonly plans: ReadonlyMap<string, CredentialPlan>;
  /** Where each is declared; every declared name, those refused for their content included. */
  readonly paths: ReadonlyMap<string, SpecPath>;
  /** Whether the spec declares the upstream-auth extension. */
  readonly extension: boolean;
}

export interface ToolContext {
  readonly spec: SpecContext;
  readonly tool: ToolSpec;
  readonly index: number;
  /** `["tools", index]`. */
  readonly at: SpecPath;
  /** The tool's settings with the spec's and the format's defaults applied. */
  readonly settings: ToolSettings;
  /** The input schema as written, or the default one (an object with no properties). */
  readonly inputSchema: JsonObject;
  /** Set by the request rule. */
  request: ParsedRequest | null;
  /** Set by the input-schema rule: null when it failed. */
  input: AnalyzedSchema | null;
  /** Set by the references rule: the declared secrets and credentials this tool sends. */
  readonly secrets: Set<string>;
  readonly credentials: Set<string>;
  /** Set by the output rule: null when it failed. */
  output: AnalyzedOutput | null;
  errorDetail?: AnalyzedTool["errorDetail"];
  binary?: AnalyzedTool["binary"];
  /** Set by the views rule (kervanc extension views): the tool's view, or null for none. */
  view?: AnalyzedTool["view"];
}

/** A rule: the codes it reports (its file's own, checked by test/analyze/rules.test.ts) and its check. */
export interface Rule<C> {
  readonly name: string;
  readonly codes: readonly DiagnosticCode[];
  check(ctx: C): void;
}
