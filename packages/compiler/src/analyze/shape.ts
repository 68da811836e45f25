/**
 * A small structural-type language for the spec format.
 *
 * The spec format is written once, as shapes (spec-format.ts). From that one definition come three things: the
 * structural checker (this file's `checkShape`), the TypeScript type of a checked spec (`Infer`), and the JSON
 * Schema for editors (editor-schema.ts). A drift test keeps the committed editor schema equal to what the
 * shapes generate.
 */
import type { Finding, MessagesOf, SpecPath } from "../diagnostics/diagnostic.ts";

/** The KV2005 templates for a string that does not match its pattern (each states the pattern's rule). */
export type PatternRule = Exclude<keyof MessagesOf<"KV2005">, "notInEnum">;
/** The KV2007 templates, one per constant of the spec format. */
export type LiteralRule = keyof MessagesOf<"KV2007">;

export type Visible = "line" | "multiline";

interface Doc {
  /** Shown in editors (hover) and in the generated format reference. */
  readonly doc?: string;
}

export interface StringShape extends Doc {
  readonly kind: "string";
  readonly min?: number;
  readonly max?: number;
  /** A pattern and the KV2005 template of the message to give when a value does not match it. */
  readonly pattern?: { readonly source: string; readonly rule: PatternRule };
  readonly visible?: Visible;
  readonly enum?: readonly string[];
}
export interface IntegerShape extends Doc {
  readonly kind: "integer";
  readonly min: number;
  readonly max: number;
}
export interface BooleanShape extends Doc {
  readonly kind: "boolean";
}
export interface LiteralShape<T extends string | number | boolean = string | number | boolean> extends Doc {
  readonly kind: "literal";
  readonly value: T;
  /** The KV2007 template of the message to give when a value is not the constant. */
  readonly rule: LiteralRule;
}
export interface ScalarShape extends Doc {
  readonly kind: "scalar";
}
export interface JsonShape extends Doc {
  readonly kind: "json";
}
export interface SchemaShape extends Doc {
  readonly kind: "schema";
}
export interface ArrayShape<I extends Shape = Shape> extends Doc {
  readonly kind: "array";
  readonly items: I;
  readonly min?: number;
  readonly max?: number;
}
export interface RecordShape<V extends Shape = Shape> extends Doc {
  readonly kind: "record";
  readonly values: V;
}
export interface Field<S extends Shape = Shape, R extends boolean = boolean> {
  readonly shape: S;
  readonly required: R;
}
export interface ObjectShape<F extends Record<string, Field> = Record<string, Field>> extends Doc {
  readonly kind: "object";
  readonly fields: F;
}
/**
 * A choice between shapes; `pick` decides which one applies from the value, or explains why none does (a
 * finding for the value's path, its text from codes.ts).
 */
export interface UnionShape<O extends readonly Shape[] = readonly Shape[]> extends Doc {
  readonly kind: "union";
  readonly options: O;
  readonly pick: (value: unknown) => O[number] | ((path: SpecPath) => Finding);
}

export type Shape =
  | StringShape
  | IntegerShape
  | BooleanShape
  | LiteralShape
  | ScalarShape
  | JsonShape
  | SchemaShape
  | ArrayShape<any>
  | RecordShape<any>
  | ObjectShape<any>
  | UnionShape<any>;

type Simplify<T> = { [K in keyof T]: T[K] } & {};
type RequiredKeys<F extends Record<string, Field>> = {
  [K in keyof F]: F[K]["required"] extends true ? K : never;
}[keyof F];
type OptionalKeys<F extends Record<string, Field>> = Exclude<keyof F, RequiredKeys<F>>;

/** The TypeScript type of a value that passed `checkShape` for shape S. */
export type Infer<S> = S extends StringShape
  ? string
  : S extends IntegerShape
    ? number
    : S extends BooleanShape
      ? boolean
      : S extends LiteralShape<infer T>
        ? T
        : S extends ScalarShape
          ? string | number | boolean
          : S extends JsonShape
            ? JsonValue
            : S extends SchemaShape
              ? { [key: string]: JsonValue }
              : S extends ArrayShape<infer I>
                ? Infer<I>[]
                : S extends RecordShape<infer V>
                  ? { [key: string]: Infer<V> }
                  : S extends ObjectShape<infer F>
                    ? Simplify<
                        { [K in RequiredKeys<F>]: Infer<F[K]["shape"]> } & {
                          [K in OptionalKeys<F>]?: Infer<F[K]["shape"]>;
                        }
                      >
                    : S extends UnionShape<infer O>
                      ? Infer<O[number]>
                      : never;

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

// Builders. They only fill in `kind`; the generic parameters carry the inferred types.
export const str = (o: Omit<StringShape, "kind"> = {}): StringShape => ({ kind: "string", ...o });
export const int = (min: number, max: number, doc?: string): IntegerShape => ({
  kind: "integer",
  min,
  max,
  ...(doc ? { doc } : {}),
});
export const bool = (doc?: string): BooleanShape => ({ kind: "boolean", ...(doc ? { doc } : {}) });
export const literal = <T extends string | number | boolean>(
  value: T,
  rule: LiteralRule,
  doc?: string,
): LiteralShape<T> => ({
  kind: "literal",
  value,
  rule,
  ...(doc ? { doc } : {}),
});
export const scalar = (doc?: string): ScalarShape => ({ kind: "scalar", ...(doc ? { doc } : {}) });
export const json = (doc?: string): JsonShape => ({ kind: "json", ...(doc ? { doc } : {}) });
export const schema = (doc?: string): SchemaShape => ({ kind: "schema", ...(doc ? { doc } : {}) });
export const array = <I extends Shape>(
  items: I,
  o: { min?: number; max?: number; doc?: string } = {},
): ArrayShape<I> => ({ kind: "array", items, ...o });
export const record = <V extends Shape>(values: V, doc?: string): RecordShape<V> => ({
  kind: "record",
  values,
  ...(doc ? { doc } : {}),
});
export const obj = <F extends Record<string, Field>>(fields: F, doc?: string): ObjectShape<F> => ({
  kind: "object",
  fields,
  ...(doc ? { doc } : {}),
});
export const req = <S extends Shape>(shape: S): Field<S, true> => ({ shape, required: true });
export const opt = <S extends Shape>(shape: S): Field<S, false> => ({ shape, required: false });
export const union = <O extends readonly Shape[]>(
  options: O,
  pick: UnionShape<O>["pick"],
  doc?: string,
): UnionShape<O> => ({
  kind: "union",
  options,
  pick,
  ...(doc ? { doc } : {}),
});
