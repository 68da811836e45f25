/**
 * Static types of `select` expressions: what each pre-parsed expression can return, as a set of JSON types.
 *
 * Where the upstream's answer decides (a field, an index, `@`), the type is unknown (every type). What the
 * expression builds itself is known: a multiselect hash is an object, projections, filters, flattens and slices
 * are arrays, literals have their type, comparisons are booleans, and each function has the return type below.
 * Null from applying a projection to an answer of the wrong shape is not counted: that is the upstream's shape
 * deciding, and the output schema reports it at run time. Argument types come from the interpreter's own table
 * (FUNCTION_SIGNATURES); only return types, which the interpreter does not declare, are listed here.
 */
import type { SelectNode } from "@kervanc/runtime";
import { FUNCTION_SIGNATURES, type FunctionParam } from "@kervanc/runtime/select";

export type JsonType = "object" | "array" | "string" | "number" | "boolean" | "null";
export const ALL_TYPES: readonly JsonType[] = ["object", "array", "string", "number", "boolean", "null"];
export type TypeSet = ReadonlySet<JsonType>;

const set = (...types: JsonType[]): TypeSet => new Set(types);
export const UNKNOWN: TypeSet = set(...ALL_TYPES);

/** The return type of every built-in function; `arg0` where it is the first argument's type (reverse). */
export const RETURN_TYPES: ReadonlyMap<string, TypeSet | "arg0"> = new Map<string, TypeSet | "arg0">([
  ["abs", set("number")],
  ["avg", set("number", "null")],
  ["ceil", set("number")],
  ["contains", set("boolean")],
  ["ends_with", set("boolean")],
  ["find_first", set("number", "null")],
  ["find_last", set("number", "null")],
  ["floor", set("number")],
  ["from_items", set("object")],
  ["group_by", set("object")],
  ["items", set("array")],
  ["join", set("string")],
  ["keys", set("array")],
  ["length", set("number")],
  ["lower", set("string")],
  ["map", set("array")],
  ["max", set("number", "string", "null")],
  ["max_by", UNKNOWN],
  ["merge", set("object")],
  ["min", set("number", "string", "null")],
  ["min_by", UNKNOWN],
  ["not_null", UNKNOWN],
  ["pad_left", set("string")],
  ["pad_right", set("string")],
  ["replace", set("string")],
  ["reverse", "arg0"],
  ["sort", set("array")],
  ["sort_by", set("array")],
  ["split", set("array")],
  ["starts_with", set("boolean")],
  ["sum", set("number")],
  ["to_array", set("array")],
  ["to_number", set("number", "null")],
  ["to_string", set("string")],
  ["trim", set("string")],
  ["trim_left", set("string")],
  ["trim_right", set("string")],
  ["type", set("string")],
  ["upper", set("string")],
  ["values", set("array")],
  ["zip", set("array")],
]);

type AnyNode = { readonly type: string; readonly [key: string]: unknown };

const union = (...sets: TypeSet[]): TypeSet => new Set(sets.flatMap((s) => [...s]));

function literalType(value: unknown): JsonType {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "object") return "object";
  return typeof value as "string" | "number" | "boolean";
}

/** What `node` can evaluate to. */
export function inferType(node: SelectNode | AnyNode): TypeSet {
  const n = node as AnyNode;
  const child = (key: string): TypeSet => inferType(n[key] as AnyNode);
  switch (n.type) {
    case "Literal":
      return set(literalType(n["value"]));
    case "MultiSelectHash":
      return set("object");
    case "MultiSelectList":
    case "Projection":
    case "FilterProjection":
    case "ValueProjection":
    case "Flatten":
      return set("array");
    case "Subexpression":
    case "Pipe":
      return child("right");
    case "Comparator":
      return n["name"] === "EQ" || n["name"] === "NE" ? set("boolean") : set("boolean", "null");
    case "NotExpression":
      return set("boolean");
    case "AndExpression":
    case "OrExpression":
      return union(child("left"), child("right"));
    case "Ternary":
      return union(child("trueExpr"), child("falseExpr"));
    case "Arithmetic":
    case "Unary":
      return set("number");
    case "LetExpression":
      return child("expression");
    case "Function": {
      const returns = RETURN_TYPES.get(String(n["name"]));
      if (returns === "arg0") {
        const first = (n["children"] as AnyNode[] | undefined)?.[0];
        const t = first ? inferType(first) : UNKNOWN;
        const narrowed = [...t].filter((x) => x === "array" || x === "string");
        return narrowed.length > 0 ? new Set(narrowed) : set("array", "string");
      }
      return returns ?? UNKNOWN;
    }
    default:
      // Field, Current, Identity, IndexExpression, Index, Slice, Variable, ExpressionReference: the data decides.
      return UNKNOWN;
  }
}

/** The JSON types a parameter accepts (typed arrays are arrays; an &expression is not a value). */
export function acceptedTypes(param: FunctionParam): TypeSet | undefined {
  if (param.types.includes("any")) return undefined;
  const out = new Set<JsonType>();
  for (const t of param.types) {
    if (t === "expression") continue;
    out.add(t.startsWith("array") ? "array" : (t as JsonType));
  }
  return out.size > 0 ? out : undefined;
}

export function describeTypes(types: TypeSet): string {
  const list = ALL_TYPES.filter((t) => types.has(t)).map((t) => (t === "object" || t === "array" ? `an ${t}` : t));
  if (list.length === ALL_TYPES.length) return "any type";
  return list.length <= 2 ? list.join(" or ") : `${list.slice(0, -1).join(", ")} or ${list.at(-1)}`;
}

export { FUNCTION_SIGNATURES };
