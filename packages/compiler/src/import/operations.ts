/**
 * The document's operations (paths × methods) and the selection `--include`, `--exclude` and `--read-only` make.
 */
import { type Finding, report, type SpecPath } from "../diagnostics/diagnostic.ts";
import type { ImportContext, Operation } from "./context.ts";
import { ImportProblem, isPlainObject } from "./refs.ts";

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
const SUPPORTED_METHODS = new Set(["get", "put", "post", "delete", "patch"]);
/** The format's limit on tools in a spec. */
export const MAX_TOOLS = 200;

/** Every operation in document order: paths in order, and methods in the order each path item lists them. */
export function listOperations(ctx: ImportContext): Operation[] {
  const out: Operation[] = [];
  const paths = ctx.root["paths"];
  if (!isPlainObject(paths)) return out;
  for (const [route, rawItem] of Object.entries(paths)) {
    if (route.startsWith("x-")) continue;
    const itemPath: SpecPath = ["paths", route];
    let item;
    try {
      item = ctx.resolver.deref(rawItem, itemPath);
    } catch (error) {
      if (!(error instanceof ImportProblem)) throw error;
      ctx.report(error.finding);
      continue;
    }
    if (!isPlainObject(item.value)) {
      ctx.report(report("KV7003", itemPath, (m) => m.pathItemNotMapping));
      continue;
    }
    if (!route.startsWith("/")) {
      ctx.report(
        report("KV7003", itemPath, (m) => m.pathWithoutSlash({ route: JSON.stringify(route) }), { atKey: true }),
      );
      continue;
    }
    for (const method of Object.keys(item.value)) {
      if (!METHODS.includes(method)) continue;
      // An operation may itself be a `$ref` (DigitalOcean's `get: {$ref: resources/droplets/list.yml}`): followed
      // like any other, so a reference to another file is refused as everywhere, never read as an empty operation.
      let op: unknown;
      let at: SpecPath = [...item.path, method];
      try {
        ({ value: op, path: at } = ctx.resolver.deref(item.value[method], at));
      } catch (error) {
        if (!(error instanceof ImportProblem)) throw error;
        ctx.report(error.finding);
        continue;
      }
      if (!isPlainObject(op)) {
        ctx.report(report("KV7003", at, (m) => m.operationNotMapping));
        continue;
      }
      const operationId = typeof op["operationId"] === "string" && op["operationId"] !== "" ? op["operationId"] : null;
      const tags = Array.isArray(op["tags"]) ? op["tags"].filter((t): t is string => typeof t === "string") : [];
      out.push({ route, method, at, op, item: item.value, itemAt: item.path, operationId, tags });
    }
  }
  return out;
}

/** How a user names an operation on the command line: its operationId, else `METHOD /path`. */
export function selectorOf(operation: Operation): string {
  return operation.operationId ?? `${operation.method.toUpperCase()} ${operation.route}`;
}

/** Tags listed when a selection is too large; the rest are counted. */
const MAX_TAGS_LISTED = 30;

/**
 * The refusal of a selection over the tool limit: what there is to choose from (operations by tag, or by path
 * prefix when most have no tag), and how.
 */
function tooMany(selected: readonly Operation[]): Finding {
  const untagged = selected.filter((op) => op.tags.length === 0).length;
  const byPath = untagged * 2 > selected.length;
  const counts = new Map<string, number>();
  for (const op of selected) {
    const groups = byPath ? [pathGroup(op.route)] : op.tags.length > 0 ? op.tags : ["(untagged)"];
    for (const group of groups) counts.set(group, (counts.get(group) ?? 0) + 1);
  }
  const groups = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const listed = groups.slice(0, MAX_TAGS_LISTED).map(([group, n]) => `${group} ${n}`);
  const more = groups.length > MAX_TAGS_LISTED ? ` and ${groups.length - MAX_TAGS_LISTED} more` : "";
  const reads = selected.filter((op) => op.method === "get").length;
  const example = groups.find(([group]) => group !== "(untagged)")?.[0];
  const forExample =
    example !== undefined ? ` (for example --include ${/\s/.test(example) ? JSON.stringify(example) : example})` : "";
  return report(
    "KV7011",
    ["paths"],
    (m) =>
      m.tooMany({
        count: selected.length,
        max: MAX_TOOLS,
        by: byPath ? "path" : "tag",
        groups: `${listed.join(", ")}${more}`,
        example: forExample,
        reads,
      }),
    { atKey: true },
  );
}

/** The path prefix an operation is counted under: up to the first parameter, at most two segments after a version. */
function pathGroup(route: string): string {
  const segments = route
    .split(/[#?]/)[0]!
    .split("/")
    .filter((s) => s !== "");
  const cut = segments.findIndex((s) => s.includes("{"));
  const fixed = cut < 0 ? segments : segments.slice(0, cut);
  const depth = /^v\d+/.test(fixed[0] ?? "") ? 2 : 1;
  return `/${fixed.slice(0, depth).join("/")}`;
}

/** Applies --include, --exclude and --read-only; null when the selection is an error. */
export function selectOperations(ctx: ImportContext, operations: readonly Operation[]): Operation[] | null {
  const include = ctx.options.include ?? [];
  const exclude = ctx.options.exclude ?? [];
  const matches = (op: Operation, selector: string): boolean => {
    if (op.operationId === selector || op.tags.includes(selector)) return true;
    // A path prefix ("/v1/customers") selects the operations under it: documents without tags (Stripe) need it.
    if (selector.startsWith("/"))
      return op.route === selector || op.route.startsWith(selector.endsWith("/") ? selector : `${selector}/`);
    const route = /^([A-Za-z]+)\s+(\/\S*)$/.exec(selector);
    return route !== null && route[1]!.toLowerCase() === op.method && route[2] === op.route;
  };
  let ok = true;
  for (const [option, selectors] of [
    ["--include", include],
    ["--exclude", exclude],
  ] as const) {
    for (const selector of selectors) {
      if (!operations.some((op) => matches(op, selector))) {
        ctx.report(report("KV7011", [], (m) => m.noMatch({ option, selector: JSON.stringify(selector) })));
        ok = false;
      }
    }
  }
  if (!ok) return null;
  const selected: Operation[] = [];
  for (const op of operations) {
    if (include.length > 0 && !include.some((s) => matches(op, s))) continue;
    if (exclude.some((s) => matches(op, s))) continue;
    if (ctx.options.readOnly && op.method !== "get") continue;
    if (!SUPPORTED_METHODS.has(op.method)) {
      ctx.report(report("KV7010", op.at, (m) => m.method({ method: op.method.toUpperCase() }), { atKey: true }));
      continue;
    }
    selected.push(op);
  }
  if (operations.length === 0) {
    ctx.report(
      report("KV7011", ctx.root["paths"] === undefined ? [] : ["paths"], (m) => m.noOperations, { atKey: true }),
    );
    return null;
  }
  if (selected.length === 0) {
    ctx.report(report("KV7011", ["paths"], (m) => m.noneLeft, { atKey: true }));
    return null;
  }
  if (selected.length > MAX_TOOLS) {
    ctx.report(tooMany(selected));
    return null;
  }
  return selected;
}
