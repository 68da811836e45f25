/**
 * Types for the JMESPath abstract syntax tree that `compile()` of `@jmespath-community/jmespath` 1.3.0 produces.
 *
 * The compiler parses every `output.select` expression at build time and emits the resulting plain-JSON tree into
 * the generated server, which evaluates it with `evaluateSelect()` from `./evaluate.ts`. The shapes are written out
 * here, rather than imported from the library, because the runtime package must not depend on the library in any
 * way (not even for types): generated servers are self-contained and never ship the parser. The compiler checks on
 * its side that the library's `ExpressionNode` is assignable to `SelectNode`, so a library upgrade that changes a
 * shape fails the build instead of failing at run time.
 *
 * Every field is `readonly` because the generated code deep-freezes the tree; the interpreter must never mutate it.
 */

/** A JSON value as produced by `JSON.parse`: the only kind of data the interpreter reads and returns. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object. Keys may be anything, including `__proto__` and `constructor`; read them as own properties only. */
export type JsonObject = { [key: string]: JsonValue };

/** `foo` or `"foo"`: the member `name` of the current object, or null. */
export interface FieldNode {
  readonly type: "Field";
  readonly name: string;
}

/** A JSON literal (`` `[1, 2]` ``) or a raw string literal (`'text'`). */
export interface LiteralNode {
  readonly type: "Literal";
  readonly value: JsonValue;
}

/** `[n]` as the right-hand side of an `IndexExpression`; negative values count from the end. */
export interface IndexNode {
  readonly type: "Index";
  readonly value: number;
}

/** `left[?condition]` followed by the projected `right` expression. */
export interface FilterProjectionNode {
  readonly type: "FilterProjection";
  readonly left: SelectNode;
  readonly right: SelectNode;
  readonly condition: SelectNode;
}

/** `[start:stop:step]` as the right-hand side of an `IndexExpression`; absent parts are null. */
export interface SliceNode {
  readonly type: "Slice";
  readonly start: number | null;
  readonly stop: number | null;
  readonly step: number | null;
}

/** The comparison operators, named after the lexer's token types. */
export type ComparatorName = "GT" | "LT" | "GTE" | "LTE" | "NE" | "EQ";

/** `left <op> right` for the comparison operators. */
export interface ComparatorNode {
  readonly type: "Comparator";
  readonly name: ComparatorName;
  readonly left: SelectNode;
  readonly right: SelectNode;
}

/** One `name: value` entry of a multi-select hash. It never appears on its own, only in `MultiSelectHashNode`. */
export interface KeyValuePairNode {
  readonly type: "KeyValuePair";
  readonly name: string;
  readonly value: SelectNode;
}

/** `{a: expr, b: expr}`. */
export interface MultiSelectHashNode {
  readonly type: "MultiSelectHash";
  readonly children: readonly KeyValuePairNode[];
}

/** `[expr, expr]`. */
export interface MultiSelectListNode {
  readonly type: "MultiSelectList";
  readonly children: readonly SelectNode[];
}

/** `name(arg, ...)`. The name is not checked at parse time; unknown names fail at evaluation. */
export interface FunctionNode {
  readonly type: "Function";
  readonly name: string;
  readonly children: readonly SelectNode[];
}

/** `let $a = expr, $b = expr in body`. All bindings are evaluated in the enclosing scope (not sequentially). */
export interface LetExpressionNode {
  readonly type: "LetExpression";
  readonly bindings: readonly SelectNode[];
  readonly expression: SelectNode;
}

/**
 * `$name = reference` inside a `let`. The parser also produces it for a stray `name = reference` anywhere in an
 * expression (then `variable` is the field name), which is why it is part of the expression union.
 */
export interface BindingNode {
  readonly type: "Binding";
  readonly variable: string;
  readonly reference: SelectNode;
}

/** `$name`; the name is stored without the dollar sign. */
export interface VariableNode {
  readonly type: "Variable";
  readonly name: string;
}

/** `condition ? trueExpr : falseExpr`. */
export interface TernaryNode {
  readonly type: "Ternary";
  readonly condition: SelectNode;
  readonly trueExpr: SelectNode;
  readonly falseExpr: SelectNode;
}

/** The implicit current node of a projection or a filter (no syntax of its own). */
export interface IdentityNode {
  readonly type: "Identity";
}

/** `@`. */
export interface CurrentNode {
  readonly type: "Current";
}

/** `$`: the document the evaluation started from. */
export interface RootNode {
  readonly type: "Root";
}

/** `&expr`: only meaningful as a function argument (or a `let` binding that is passed to one). */
export interface ExpressionReferenceNode {
  readonly type: "ExpressionReference";
  readonly child: SelectNode;
}

/** `child[]`: flattens one level of nesting. */
export interface FlattenNode {
  readonly type: "Flatten";
  readonly child: SelectNode;
}

/** `!child`. */
export interface NotExpressionNode {
  readonly type: "NotExpression";
  readonly child: SelectNode;
}

/** The unary arithmetic operators. */
export type UnaryOperator = "Plus" | "Minus";

/** `-operand` or `+operand`. */
export interface UnaryNode {
  readonly type: "Unary";
  readonly operator: UnaryOperator;
  readonly operand: SelectNode;
}

/**
 * The binary arithmetic operators. `Star` is `*` (the lexer cannot tell it from a wildcard, so it keeps the token
 * name); `Multiply` is `×`; `Divide` is `/` or `÷`; `Div` is `//` (integer division).
 */
export type ArithmeticOperator = "Plus" | "Minus" | "Multiply" | "Star" | "Divide" | "Modulo" | "Div";

/** `left <op> right` for the arithmetic operators. */
export interface ArithmeticNode {
  readonly type: "Arithmetic";
  readonly operator: ArithmeticOperator;
  readonly left: SelectNode;
  readonly right: SelectNode;
}

/** `left && right`. */
export interface AndExpressionNode {
  readonly type: "AndExpression";
  readonly left: SelectNode;
  readonly right: SelectNode;
}

/** `left || right`. */
export interface OrExpressionNode {
  readonly type: "OrExpression";
  readonly left: SelectNode;
  readonly right: SelectNode;
}

/** `left[...]`: applies an `Index` or `Slice` node (`right`) to the value of `left`. */
export interface IndexExpressionNode {
  readonly type: "IndexExpression";
  readonly left: SelectNode;
  readonly right: SelectNode;
}

/** `left | right`. */
export interface PipeNode {
  readonly type: "Pipe";
  readonly left: SelectNode;
  readonly right: SelectNode;
}

/** `left[*].right`, `left[].right` and slice projections: applies `right` to every element of the array `left`. */
export interface ProjectionNode {
  readonly type: "Projection";
  readonly left: SelectNode;
  readonly right: SelectNode;
}

/** `left.right`. */
export interface SubexpressionNode {
  readonly type: "Subexpression";
  readonly left: SelectNode;
  readonly right: SelectNode;
}

/** `left.*.right`: applies `right` to every member value of the object `left`. */
export interface ValueProjectionNode {
  readonly type: "ValueProjection";
  readonly left: SelectNode;
  readonly right: SelectNode;
}

/** Every node that can appear where an expression is expected. */
export type SelectNode =
  | FieldNode
  | LiteralNode
  | IndexNode
  | FilterProjectionNode
  | SliceNode
  | ComparatorNode
  | MultiSelectHashNode
  | MultiSelectListNode
  | FunctionNode
  | LetExpressionNode
  | BindingNode
  | VariableNode
  | TernaryNode
  | IdentityNode
  | CurrentNode
  | RootNode
  | ExpressionReferenceNode
  | FlattenNode
  | NotExpressionNode
  | UnaryNode
  | ArithmeticNode
  | AndExpressionNode
  | OrExpressionNode
  | IndexExpressionNode
  | PipeNode
  | ProjectionNode
  | SubexpressionNode
  | ValueProjectionNode;
