/**
 * Assembles a compiled server from its generated modules, and freezes it.
 *
 * Plans are data written by the compiler; freezing them (select ASTs included) means no code path, and no
 * hostile upstream data flowing through the select interpreter, can change what later calls do.
 *
 * A generated tool carries its plan and its `tools/list` entry as JSON text, parsed (and frozen) when first
 * needed: at start a server does work in proportion to what it serves first (`tools/list`), not to all its
 * tools. V8 scans a string literal much faster than it parses and evaluates the same data as an object literal.
 */
import type {
  CompiledServer,
  CompiledViews,
  CompiledTool,
  CompiledValidator,
  ServerPlan,
  ToolHead,
  ToolListing,
  ToolPlan,
} from "./plan.ts";

export function defineServer(plan: ServerPlan, tools: readonly CompiledTool[], views?: CompiledViews): CompiledServer {
  // Tools built in process (tests, `kervanc dev`) hand over their plans as objects: frozen here.
  for (const tool of tools) if (tool.head === undefined) deepFreeze(tool.plan);
  // The kervanc views extension: absent for a spec without views, so its server is what it was.
  const server = { plan: deepFreeze(plan), tools: Object.freeze([...tools]) };
  return Object.freeze(views === undefined ? server : { ...server, views: deepFreeze(views) });
}

/** What a generated tool module passes to `defineTool`. */
export interface ToolSource {
  readonly head: ToolHead;
  /** The tool's `tools/list` entry, JSON. */
  readonly listing: string;
  /** The entry as a schema profile advertises it, JSON, for each profile whose rewrite changed it. */
  readonly profiles?: Readonly<Record<string, string>>;
  /** The rest of its plan (`ToolPlan` without `listing`), JSON. */
  readonly plan: string;
  readonly validateInput: CompiledValidator;
  readonly validateOutput: CompiledValidator | null;
}

/** A generated tool: its plan is parsed from the JSON texts and deep-frozen on first read. */
export function defineTool(source: ToolSource): CompiledTool {
  let plan: ToolPlan | null = null;
  return Object.freeze({
    head: deepFreeze(source.head),
    listingJson: source.listing,
    ...(source.profiles !== undefined ? { profiles: Object.freeze({ ...source.profiles }) } : {}),
    get plan(): ToolPlan {
      if (plan === null) {
        const listing = JSON.parse(source.listing) as ToolListing;
        const parsed = deepFreeze({ listing, ...(JSON.parse(source.plan) as Omit<ToolPlan, "listing">) });
        // The head and the plan are written by the same build; a disagreement is a build fault, never a call.
        if (!sameHead(source.head, planHead(parsed)))
          throw new Error(`The plan of tool ${source.head.name} does not match its head.`);
        plan = parsed;
      }
      return plan;
    },
    validateInput: source.validateInput,
    validateOutput: source.validateOutput,
  });
}

/** The start-up head of any tool, generated or built in process. */
export function headOf(tool: CompiledTool): ToolHead {
  return tool.head ?? planHead(tool.plan);
}

/** The head of a plan; `readOnly` and `toolsets` only where they hold something, as the compiler writes them. */
export function planHead({ listing, request, secrets, toolsets }: ToolPlan): ToolHead {
  return {
    name: listing.name,
    protocol: request.protocol,
    hostPort: request.hostPort,
    secrets,
    ...(listing.annotations.readOnlyHint === true ? { readOnly: true as const } : {}),
    ...(toolsets !== undefined && toolsets.length > 0 ? { toolsets } : {}),
  };
}

function sameHead(a: ToolHead, b: ToolHead): boolean {
  return (
    a.name === b.name &&
    a.protocol === b.protocol &&
    a.hostPort === b.hostPort &&
    sameNames(a.secrets, b.secrets) &&
    a.readOnly === b.readOnly &&
    sameNames(a.toolsets ?? [], b.toolsets ?? [])
  );
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((name, i) => b[i] === name);
}

export function deepFreeze<T>(value: T): T {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== "object" || Object.isFrozen(node)) continue;
    Object.freeze(node);
    for (const child of Object.values(node)) stack.push(child);
  }
  return value;
}
