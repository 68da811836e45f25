/**
 * The TypeScript modules of a generated server: one module per tool, the server module that lists them in
 * spec order, and the entry points. Every spec-derived value goes through `ts`/`literal` (code.ts).
 */
import type { PlannedServer, PlannedTool } from "../plan/plan.ts";
import { planHead } from "@kervanc/runtime/define";
import { Code, ident, join, jsonText, lineComment, literal, readableLiteral, ts } from "./code/code.ts";

/** Where a tool comes from, for the comment that traces its module back to the spec. */
export interface ToolSource {
  readonly index: number;
  readonly specFile: string;
  readonly line: number;
}

/**
 * A tool's module. It is laid out here, not by prettier. The tool's `tools/list` entry and the rest of its plan
 * are JSON texts (`jsonText`, one member per line where a line would be long, so a one-word spec change is a
 * one-line diff) that the runtime parses when first needed: a server starts in time proportional to what it
 * serves first, not to all its tools (V8 scans a string far faster than it builds the same object literal). The
 * head, a small literal, is what the server reads at start. A comment names the tool's place in the spec, so a
 * reviewer can find its source.
 */
export function toolModule(tool: PlannedTool, source: ToolSource): Code {
  const hasOutput = tool.output !== null;
  const outputImport = hasOutput
    ? ts`import validateOutput from ${`../validators/${tool.moduleName}.output.js`};\n`
    : new Code("");
  const validators = { input: new Code("validateInput"), output: new Code(hasOutput ? "validateOutput" : "null") };
  return ts`import type { CompiledTool } from "../runtime/plan.ts";
import { defineTool } from "../runtime/define.ts";
import validateInput from ${`../validators/${tool.moduleName}.input.js`};
${outputImport}
${toolOrigin(tool, source)}
export const tool: CompiledTool = ${toolDefinition(tool, "readable", validators)};
`;
}

/** The comment that names a tool's place in the spec. */
export function toolOrigin(tool: PlannedTool, source: ToolSource): Code {
  return lineComment(
    `From tools[${source.index}] ${JSON.stringify(tool.plan.listing.name)}, ${source.specFile}:${source.line}.`,
  );
}

/**
 * The `defineTool({...})` call of a tool, given the names its validators are bound to.
 *
 * `compact` is the same call for the bundles: the texts as compact JSON in plain string literals. V8 scans a
 * template literal slower than a string literal, and the whitespace that keeps the reviewed texts diffable is a
 * third of their characters; the runtime parses either into the same values (for 200 tools, a ninth of the
 * start's extra time over one tool).
 */
export function toolDefinition(
  tool: PlannedTool,
  layout: "readable" | "compact",
  validators: { readonly input: Code; readonly output: Code },
): Code {
  const { listing, ...rest } = tool.plan;
  const texts = (value: unknown): Code => (layout === "compact" ? literal(JSON.stringify(value)) : jsonText(value));
  // The runtime's own head of the plan (define.ts), so the two cannot disagree.
  const head = planHead(tool.plan);
  // The listing as each schema profile advertises it, only for profiles that needed a rewrite.
  const rewritten = Object.entries(tool.profiles);
  const profiles =
    rewritten.length === 0
      ? new Code("")
      : ts`  profiles: {
${join(
  rewritten.map(([name, r]) => ts`    ${literal(name)}: ${texts(r!.listing)},`),
  "\n",
)}
  },
`;
  const output =
    validators.output.text === "validateOutput" ? new Code("validateOutput") : ts`validateOutput: ${validators.output}`;
  const input =
    validators.input.text === "validateInput" ? new Code("validateInput") : ts`validateInput: ${validators.input}`;
  return ts`defineTool({
  head: ${readableLiteral(head, 118, 2)},
  listing: ${texts(listing)},
${profiles}  plan: ${texts(rest)},
  ${input},
  ${output},
})`;
}

/** The server module, laid out here: a build runs no formatter. */
export function serverModule(server: PlannedServer, views = false): Code {
  const imports = server.tools.map(
    (tool, i) => ts`import { tool as ${ident("tool", i)} } from ${`./tools/${tool.moduleName}.ts`};`,
  );
  // The kervanc views extension's pages (src/views.ts); a spec without views imports nothing more.
  if (views) imports.push(new Code(`import { views } from "./views.ts";`));
  return ts`import type { CompiledServer } from "./runtime/plan.ts";
import { defineServer } from "./runtime/define.ts";
${join(imports, "\n")}

/** The server: its plan and its tools, in the order clients list them. */
${serverDefinition(server, views)}
`;
}

/**
 * `export const server = defineServer(plan, [tools])`: on one line when it fits in 120 columns, else one argument
 * per line, the plan laid out as the tool modules lay out theirs and the tools one per line (an added tool is a
 * one-line diff).
 */
function serverDefinition(server: PlannedServer, views: boolean): Code {
  const start = "export const server: CompiledServer = defineServer(";
  const names = server.tools.map((_, i) => ident("tool", i).text);
  const more = views ? ", views" : "";
  const flat = `${start}${readableLiteral(server.plan, Number.POSITIVE_INFINITY).text}, [${names.join(", ")}]${more});`;
  if (!flat.includes("\n") && flat.length <= 120) return new Code(flat);
  const list = `[${names.join(", ")}]`;
  const tools = list.length + 3 <= 120 ? list : `[\n${names.map((n) => `    ${n},\n`).join("")}  ]`;
  const rest = views ? `\n  views,` : "";
  return new Code(`${start}\n  ${readableLiteral(server.plan, 118, 2).text},\n  ${tools},${rest}\n);`);
}

export const NODE_ENTRY = new Code(`import { main } from "./runtime/entry/node-main.ts";
import { server } from "./server.ts";

main(server);
`);

/** The fetch target's entry (worker.mjs, targets.ts): `export default { fetch }` for workerd, Deno and Bun. */
export const FETCH_ENTRY = new Code(`import { createFetchHandler } from "./runtime/entry/fetch-main.ts";
import { server } from "./server.ts";

export default createFetchHandler(server);
`);
