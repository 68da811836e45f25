/**
 * Every rule of the spec format, in the order they run (analyze.ts is the driver). A rule reads what the rules
 * before it found (rules/context.ts): the tool rules read the declared secrets and credentials, the references
 * read the parsed request and the input schema. The structure (strict keys, types, limits) is checked before any
 * of these, by the shapes in spec-format.ts (structure.ts); when it fails, no rule runs.
 *
 * To add a rule: a file here exporting a Rule with the codes it reports (test/analyze/rules.test.ts checks the
 * list against the file), its messages in diagnostics/codes.ts, and its place in this list.
 */
import type { Rule, SpecContext, ToolContext } from "./context.ts";
import { clientNamesRule } from "./client-names.ts";
import { credentialsRule } from "./credentials.ts";
import { encodableInputsRule } from "./encodable-inputs.ts";
import { extensionsRule } from "./extensions.ts";
import { hostsRule } from "./hosts.ts";
import { inputSchemaRule } from "./input-schema.ts";
import { lookAlikesRule } from "./look-alikes.ts";
import { outputRule } from "./output.ts";
import { referencesRule } from "./references.ts";
import { requestRule } from "./request.ts";
import { secretsRule } from "./secrets.ts";
import { toolNamesRule } from "./tool-names.ts";
import { unusedRule } from "./unused.ts";
import { viewsRule } from "./views.ts";

/** Rules over the whole spec, before its tools: declarations first, the tools' rules read them. */
export const SPEC_RULES: readonly Rule<SpecContext>[] = [
  secretsRule,
  extensionsRule,
  clientNamesRule,
  credentialsRule,
  toolNamesRule,
];

/** Rules over each tool, in order. */
export const TOOL_RULES: readonly Rule<ToolContext>[] = [
  requestRule,
  inputSchemaRule,
  referencesRule,
  encodableInputsRule,
  lookAlikesRule,
  hostsRule,
  outputRule,
  viewsRule,
];

/** Rules over the whole spec once every tool has been checked. */
export const FINAL_RULES: readonly Rule<SpecContext>[] = [unusedRule];
