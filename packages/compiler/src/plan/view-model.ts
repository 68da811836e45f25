/**
 * The view of a tool's output (kervanc extension views, docs/extensions/views.md), derived at build time from its
 * output schema: a table with one column per property of the list's items, or a card with one field per
 * property of the object. The description is data, embedded as JSON in the tool's page (emit/view/html.ts); the renderer
 * script, the same for every tool (emit/view/renderer/view-app.ts), draws from it.
 *
 * Only same-document `$ref`s exist in a spec (the schema rules refuse the rest), so a `$ref` is followed inside
 * the schema, a bounded number of times.
 */
/** A JSON object (a schema); not the runtime's type, so the renderer (emit/view/renderer/) can import this module alone. */
type JsonObject = { readonly [key: string]: unknown };

export type ViewKind = "table" | "card";

export interface ViewField {
  /** The property name, as the data has it. */
  readonly key: string;
  /** The schema's `title`, or the property name. */
  readonly label: string;
  /** The schema's `description`, shown as a tooltip (text). */
  readonly hint?: string;
  readonly type: "string" | "number" | "integer" | "boolean" | "object" | "array" | "any";
  /** `date`, `date-time`, `uri` are shown formatted or as a link; other formats as text. */
  readonly format?: string;
  /** A nested object's own fields (a card inside a card), to the depth limit. */
  readonly fields?: readonly ViewField[];
}

export interface ViewModel {
  readonly format: 1;
  readonly kind: ViewKind;
  readonly title: string;
  readonly fields: readonly ViewField[];
  /** Rows drawn before "N more rows not shown". */
  readonly maxRows: number;
  /** Nesting drawn before a nested value is shown as `{…}`. */
  readonly maxDepth: number;
  /** Characters of one value drawn before it is cut with "…". */
  readonly maxText: number;
}

export const VIEW_LIMITS = { maxRows: 200, maxDepth: 4, maxText: 500, maxFields: 40 } as const;

const MAX_REFS = 16;

/** A schema with its same-document `$ref`s followed (bounded). */
export function resolveSchema(schema: unknown, document: unknown): JsonObject | null {
  let node = schema;
  for (let i = 0; i < MAX_REFS; i++) {
    if (node === null || typeof node !== "object" || Array.isArray(node)) return null;
    const ref = (node as JsonObject)["$ref"];
    if (typeof ref !== "string") return node as JsonObject;
    node = pointer(document, ref);
  }
  return null;
}

function pointer(document: unknown, ref: string): unknown {
  if (!ref.startsWith("#")) return undefined;
  let node = document;
  for (const raw of ref.slice(1).split("/").slice(1)) {
    let key: string;
    try {
      key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    } catch {
      return undefined; // A malformed %-escape points nowhere (the schema rules report it, KV5015).
    }
    if (node === null || typeof node !== "object" || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

function typeOf(schema: JsonObject | null): ViewField["type"] {
  if (schema === null) return "any";
  let type = schema["type"];
  // `[string, "null"]`: the one non-null type.
  if (Array.isArray(type)) {
    const types = type.filter((t) => t !== "null");
    type = types.length === 1 ? types[0] : undefined;
  }
  if (type === "string" || type === "number" || type === "integer" || type === "boolean") return type;
  if (type === "object" || (type === undefined && isObject(schema["properties"]))) return "object";
  if (type === "array" || (type === undefined && schema["items"] !== undefined)) return "array";
  return "any";
}

function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Whether a schema describes an object with properties (a card). */
export function isObjectSchema(schema: unknown, document: unknown): boolean {
  const resolved = resolveSchema(schema, document);
  return resolved !== null && typeOf(resolved) === "object" && isObject(resolved["properties"]);
}

/** Whether a schema describes a list of objects with properties (a table). */
export function isListOfObjects(schema: unknown, document: unknown): boolean {
  const resolved = resolveSchema(schema, document);
  return resolved !== null && typeOf(resolved) === "array" && isObjectSchema(resolved["items"], document);
}

/** What `view: auto` becomes: a table for a list of objects, a card for an object, null for neither. */
export function autoKind(schema: unknown): ViewKind | null {
  if (isListOfObjects(schema, schema)) return "table";
  if (isObjectSchema(schema, schema)) return "card";
  return null;
}

function fieldsOf(objectSchema: JsonObject, document: unknown, depth: number): ViewField[] {
  const properties = objectSchema["properties"];
  if (!isObject(properties)) return [];
  return Object.keys(properties)
    .slice(0, VIEW_LIMITS.maxFields)
    .map((key) => {
      const property = resolveSchema(properties[key], document);
      const type = typeOf(property);
      const title = property?.["title"];
      const description = property?.["description"];
      const format = property?.["format"];
      const nested =
        type === "object" && property !== null && depth < VIEW_LIMITS.maxDepth
          ? fieldsOf(property, document, depth + 1)
          : [];
      return {
        key,
        label: typeof title === "string" && title.trim() !== "" ? title : key,
        ...(typeof description === "string" && description.trim() !== "" ? { hint: description } : {}),
        type,
        ...(typeof format === "string" ? { format } : {}),
        ...(nested.length > 0 ? { fields: nested } : {}),
      };
    });
}

/** The view of a tool whose output schema the views rule accepted for `kind`. */
export function viewModel(kind: ViewKind, schema: JsonObject, title: string): ViewModel {
  const root = resolveSchema(schema, schema);
  const object = kind === "table" ? resolveSchema(root?.["items"], schema) : root;
  return {
    format: 1,
    kind,
    title,
    fields: object === null ? [] : fieldsOf(object, schema, 1),
    maxRows: VIEW_LIMITS.maxRows,
    maxDepth: VIEW_LIMITS.maxDepth,
    maxText: VIEW_LIMITS.maxText,
  };
}
