/**
 * Serving a subset of a generated server's tools, chosen when it starts (`--tools`, `--toolsets`, `--read-only`
 * on server.mjs; KERVANC_TOOLS, KERVANC_TOOLSETS, KERVANC_READ_ONLY on worker.mjs), so an operator can narrow a
 * committed package without rebuilding it.
 *
 * The subset replaces the server's tool list before anything else sees it: `tools/list` lists only it, and
 * `tools/call` of any other tool is an unknown tool, exactly as if the spec had not declared it. The choice is
 * made from each tool's start-up head (its name, read-only hint and toolsets), so no tool's plan is parsed for it.
 *
 * Named tools and named toolsets add up (a tool is served when it is named or belongs to a named toolset; neither
 * given means every tool); `--read-only` then keeps only tools annotated `readOnlyHint: true`. A name that is not
 * a tool or toolset of this server, or a selection that leaves no tool, refuses to start: a typo must not serve
 * a server with fewer tools than intended, or none.
 */
import { headOf } from "../define.ts";
import type { CompiledServer, CompiledTool } from "../plan.ts";

export interface ToolSelection {
  /** Tool names to serve; null when not given. */
  readonly tools: readonly string[] | null;
  /** Toolsets (the spec's `tags`) whose tools to serve; null when not given. */
  readonly toolsets: readonly string[] | null;
  readonly readOnly: boolean;
}

export const SERVE_ALL: ToolSelection = { tools: null, toolsets: null, readOnly: false };

/** A selection that names what this server does not have, or leaves it nothing to serve. */
export class ToolSelectionError extends Error {}

/** How many names an error lists before it says how many more there are. */
const LISTED_NAMES = 40;

/**
 * A comma-separated list of names as given on a command line or in a binding (repeated flags are joined first).
 * Blank items are refused, not skipped: `--tools a,,b` is a mistake worth saying.
 */
export function parseNameList(what: string, raw: string): string[] {
  const names = raw.split(",").map((name) => name.trim());
  if (names.some((name) => name === "")) throw new ToolSelectionError(`${what} has an empty name: "${raw}".`);
  return [...new Set(names)];
}

export function isSelecting(selection: ToolSelection): boolean {
  return selection.tools !== null || selection.toolsets !== null || selection.readOnly;
}

/** The server with only the selected tools, in their spec order; the same server when nothing is selected. */
export function selectTools(
  compiled: CompiledServer,
  selection: ToolSelection,
  labels: SelectionLabels = FLAG_LABELS,
): CompiledServer {
  if (!isSelecting(selection)) return compiled;
  const heads = compiled.tools.map((tool) => headOf(tool));
  const toolNames = new Set(heads.map((head) => head.name));
  const toolsetNames = new Set(heads.flatMap((head) => head.toolsets ?? []));
  const unknownTools = (selection.tools ?? []).filter((name) => !toolNames.has(name));
  if (unknownTools.length > 0)
    throw new ToolSelectionError(
      `No tool named ${names(unknownTools)} in ${compiled.plan.name}. Its tools: ${names([...toolNames])}.`,
    );
  const unknownSets = (selection.toolsets ?? []).filter((name) => !toolsetNames.has(name));
  if (unknownSets.length > 0)
    throw new ToolSelectionError(
      toolsetNames.size === 0
        ? `No toolset named ${names(unknownSets)}: ${compiled.plan.name} has no toolsets (its tools have no tags).`
        : `No toolset named ${names(unknownSets)} in ${compiled.plan.name}. Its toolsets: ${names([...toolsetNames].sort())}.`,
    );
  const named = new Set(selection.tools ?? []);
  const sets = new Set(selection.toolsets ?? []);
  const byName = selection.tools === null && selection.toolsets === null;
  const kept: CompiledTool[] = [];
  const keptNames = new Set<string>();
  compiled.tools.forEach((tool, i) => {
    const head = heads[i]!;
    const chosen = byName || named.has(head.name) || (head.toolsets ?? []).some((set) => sets.has(set));
    if (chosen && (!selection.readOnly || head.readOnly === true)) {
      kept.push(tool);
      keptNames.add(head.name);
    }
  });
  if (kept.length === 0)
    throw new ToolSelectionError(`The selection (${describeSelection(selection, labels)}) leaves no tool to serve.`);
  // The kervanc views extension: the pages of the tools kept, and none (no resources at all) when none has one.
  const resources = compiled.views?.resources.filter((r) => keptNames.has(r.name)) ?? [];
  const server = { plan: compiled.plan, tools: Object.freeze(kept) };
  return Object.freeze(
    resources.length === 0 ? server : { ...server, views: Object.freeze({ ...compiled.views!, resources }) },
  );
}

/** What the settings that make a selection are called where they are given. */
export interface SelectionLabels {
  readonly tools: string;
  readonly toolsets: string;
  readonly readOnly: string;
}

/** server.mjs's flags. */
export const FLAG_LABELS: SelectionLabels = { tools: "--tools ", toolsets: "--toolsets ", readOnly: "--read-only" };

/** The selection as the settings that made it, for the start-up line and errors. */
export function describeSelection(selection: ToolSelection, labels: SelectionLabels = FLAG_LABELS): string {
  const parts: string[] = [];
  if (selection.tools !== null) parts.push(`${labels.tools}${selection.tools.join(",")}`);
  if (selection.toolsets !== null) parts.push(`${labels.toolsets}${selection.toolsets.join(",")}`);
  if (selection.readOnly) parts.push(labels.readOnly);
  return parts.join(" ");
}

/** The start-up line's count: "3 tool(s)", or "2 of 3 tool(s) (--read-only)" when a selection narrowed it. */
export function servedCount(
  all: CompiledServer,
  served: CompiledServer,
  selection: ToolSelection,
  labels: SelectionLabels = FLAG_LABELS,
): string {
  if (!isSelecting(selection)) return `${all.tools.length} tool(s)`;
  return `${served.tools.length} of ${all.tools.length} tool(s) (${describeSelection(selection, labels)})`;
}

/** Names for a one-line message, JSON-quoted (they are spec or operator text) and bounded in number. */
function names(list: readonly string[]): string {
  const shown = list.slice(0, LISTED_NAMES).map((name) => JSON.stringify(name));
  const more = list.length > LISTED_NAMES ? ` and ${list.length - LISTED_NAMES} more` : "";
  return shown.join(", ") + more;
}
