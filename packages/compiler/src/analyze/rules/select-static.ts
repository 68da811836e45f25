/**
 * Static checks on a parsed `select` AST, against the same function table the run-time interpreter uses.
 *
 * The library accepts unknown function names, wrong arity and a plain value where an `&expression` belongs,
 * and fails only when the expression runs, which in a server means every call fails. These are build errors
 * here. Field names that reach into JavaScript's object model are refused, and padding widths must be literal
 * numbers within a bound, so an expression cannot ask for a huge string. The tree may nest at most
 * `MAX_SELECT_DEPTH` levels.
 */
import { tokenize } from "@jmespath-community/jmespath";
import type { SelectNode } from "@kervanc/runtime";
import { FUNCTION_SIGNATURES, type FunctionParam } from "@kervanc/runtime/select";
import { type Finding, report, type SpecPath } from "../../diagnostics/diagnostic.ts";
import { acceptedTypes, describeTypes, inferType } from "../select-types.ts";

/** The widest `pad_left`/`pad_right` a spec may ask for. */
export const MAX_PAD_WIDTH = 10_000;
const REFUSED_FIELDS = new Set(["__proto__", "constructor", "prototype"]);

/**
 * How many levels the tree may nest (a root-to-leaf path, the root included). The tree is written into the
 * tool's module, laid out a level per indent, and a 1000-character chain such as `!!!…!a` nests 1000 levels:
 * 3 MB of module and seconds of build for one tool. Ordinary expressions nest a dozen levels or fewer. The
 * interpreter visits at most one node per level of the tree at once, so an expression within this bound never
 * meets the interpreter's own nesting cap (`SELECT_MAX_NESTING`, 256), which stays the guard at run time.
 */
export const MAX_SELECT_DEPTH = 64;

type AnyNode = { readonly type: string; readonly [key: string]: unknown };

export function checkSelectAst(ast: SelectNode, at: SpecPath, out: Finding[], expression = ""): void {
  const positions = new TokenPositions(expression);
  // The deepest level, and where the tree first goes past the bound: the first name (field, key or function)
  // at or below the first node too deep, the nearest place the AST can be tied to the text.
  let deepest = 0;
  let tooDeep: { place: Place | undefined } | null = null;
  const visit = (node: AnyNode, depth: number): void => {
    deepest = Math.max(deepest, depth);
    const field = node.type === "Field" || node.type === "KeyValuePair" ? node["name"] : undefined;
    // Claimed for every field, refused or not, so the n-th occurrence of a name gets the n-th token's offset.
    const place = typeof field === "string" ? positions.next(field, "name") : undefined;
    const call = node.type === "Function" ? positions.next(String(node["name"]), "call") : undefined;
    if (depth > MAX_SELECT_DEPTH && tooDeep === null) tooDeep = { place: undefined };
    if (tooDeep !== null && tooDeep.place === undefined) tooDeep.place = place ?? call;
    if (typeof field === "string" && REFUSED_FIELDS.has(field)) {
      const reads = node.type === "Field";
      out.push(
        report("KV6005", at, (m) => (reads ? m.readsInternals({ field }) : m.buildsInternals({ field })), place ?? {}),
      );
    }
    if (node.type === "Function") checkCall(node, at, out, call);
    for (const value of childrenInSourceOrder(node)) {
      if (Array.isArray(value)) for (const child of value) if (isNode(child)) visit(child, depth + 1);
      if (isNode(value)) visit(value, depth + 1);
    }
  };
  visit(ast as unknown as AnyNode, 1);
  const deep = tooDeep as { place: Place | undefined } | null;
  if (deep !== null) {
    out.push(report("KV6010", at, (m) => m.tooDeep({ depth: deepest, max: MAX_SELECT_DEPTH }), deep.place ?? {}));
  }
}

/**
 * A node's children in the order they are written. The AST has no positions, so findings are placed by
 * matching the n-th node with a name to the n-th token with that name, which needs the walk to follow the text.
 * Object key order does, except for a filter projection (`left[?condition].right`).
 */
function childrenInSourceOrder(node: AnyNode): unknown[] {
  if (node.type === "FilterProjection") return [node["left"], node["condition"], node["right"]];
  return Object.values(node);
}

/**
 * The offsets of the identifiers in an expression, handed out in order per name: a field or key (`name`) or a
 * function call (`call`, an identifier followed by `(`). Before, every finding about a name pointed at its
 * first occurrence, so `[a.constructor, b.x, constructor]` reported both errors at the first.
 */
/** Where a token is in the expression: its first character and its length as written (quotes included). */
interface Place {
  readonly offset: number;
  readonly length: number;
}

class TokenPositions {
  readonly #offsets = new Map<string, Place[]>();

  constructor(expression: string) {
    let tokens: { type: string; value: unknown; start: number }[];
    try {
      tokens = expression === "" ? [] : (tokenize(expression) as typeof tokens);
    } catch {
      tokens = [];
    }
    tokens.forEach((t, i) => {
      if (t.type !== "UnquotedIdentifier" && t.type !== "QuotedIdentifier") return;
      const kind = tokens[i + 1]?.type === "Lparen" ? "call" : "name";
      const key = `${kind}:${String(t.value)}`;
      if (!this.#offsets.has(key)) this.#offsets.set(key, []);
      const length = t.type === "QuotedIdentifier" ? quotedLength(expression, t.start) : String(t.value).length;
      this.#offsets.get(key)!.push({ offset: t.start, length });
    });
  }

  /** The place of the next unclaimed occurrence of `name`, or undefined when the tokens ran out. */
  next(name: string, kind: "name" | "call"): Place | undefined {
    return this.#offsets.get(`${kind}:${name}`)?.shift();
  }
}

/** The length of the quoted identifier starting at `start` (`"a\\"b"`), its quotes included. */
function quotedLength(expression: string, start: number): number {
  for (let i = start + 1; i < expression.length; i++) {
    if (expression[i] === "\\") i++;
    else if (expression[i] === '"') return i - start + 1;
  }
  return expression.length - start;
}

function isNode(value: unknown): value is AnyNode {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    typeof (value as { type?: unknown }).type === "string"
  );
}

function checkCall(node: AnyNode, at: SpecPath, out: Finding[], place: Place | undefined): void {
  const name = String(node["name"]);
  const args = (node["children"] as AnyNode[] | undefined) ?? [];
  const extra = place ?? {};
  const params = FUNCTION_SIGNATURES.get(name);
  if (params === undefined) {
    const close = [...FUNCTION_SIGNATURES.keys()].filter(
      (k) => k.startsWith(name.slice(0, 3)) || name.startsWith(k.slice(0, 3)),
    );
    const meant = close.length > 0 && close.length <= 3 ? close.map((c) => `${c}()`).join(" or ") : null;
    out.push(
      report(
        "KV6002",
        at,
        (m) => (meant !== null ? m.unknownFunctionMeant({ name, meant }) : m.unknownFunction({ name })),
        extra,
      ),
    );
    return;
  }
  // As the interpreter counts them: a variadic parameter needs at least one argument.
  const required = params.filter((p) => !p.optional).length;
  const variadic = params.some((p) => p.variadic);
  const max = variadic ? Infinity : params.length;
  if (args.length < required || args.length > max) {
    const expected = variadic ? `at least ${required}` : required === max ? `${required}` : `${required} to ${max}`;
    out.push(
      report(
        "KV6003",
        at,
        (m) => m.arity({ name, expected, arguments: expected === "1" ? "argument" : "arguments", got: args.length }),
        extra,
      ),
    );
    return;
  }
  args.forEach((arg, i) => {
    const param: FunctionParam = params[Math.min(i, params.length - 1)]!;
    const wantsExpression = param.types.includes("expression");
    const isExpression = arg.type === "ExpressionReference";
    if (wantsExpression && param.types.length === 1 && !isExpression) {
      out.push(report("KV6004", at, (m) => m.needsExpression({ name, position: i + 1 }), extra));
    } else if (!wantsExpression && isExpression) {
      out.push(report("KV6004", at, (m) => m.needsValue({ name, position: i + 1 }), extra));
    }
  });
  // Argument types, where the argument's type is known without the data (a literal, a hash, a function's result).
  args.forEach((arg, i) => {
    if (arg.type === "ExpressionReference") return;
    const accepted = acceptedTypes(params[Math.min(i, params.length - 1)]!);
    if (accepted === undefined) return;
    const got = inferType(arg);
    if (![...got].some((t) => accepted.has(t))) {
      out.push(
        report(
          "KV6007",
          at,
          (m) =>
            m.argumentType({ name, accepted: describeTypes(accepted), position: i + 1, given: describeTypes(got) }),
          extra,
        ),
      );
    }
  });
  if ((name === "pad_left" || name === "pad_right") && args[1] !== undefined) {
    const width = args[1];
    const value = width.type === "Literal" ? width["value"] : undefined;
    if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value > MAX_PAD_WIDTH) {
      out.push(report("KV6006", at, (m) => m.padWidth({ name, max: MAX_PAD_WIDTH }), extra));
    }
  }
}
