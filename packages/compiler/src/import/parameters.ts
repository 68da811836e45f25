/**
 * Parameters: the path item's and the operation's, placed in the request. Path parameters become
 * `{{input.x}}` in the URL, query and header parameters become query entries and headers; what a spec cannot
 * send is left out with a warning (KV7010).
 *
 * An optional header parameter is an optional input too: Kervan fails a call whose header value is missing, so
 * the tool gets `http.omitAbsent: true` (the kervanc extension omit-absent, docs/extensions/omit-absent.md), which
 * leaves the header out when the model does not give it.
 */
import { HEADER_NAME } from "../analyze/rules/request.ts";
import { report, type SpecPath } from "../diagnostics/diagnostic.ts";
import type { ImportContext, Operation } from "./context.ts";
import type { Inputs } from "./inputs.ts";
import { ImportProblem, isPlainObject, own, put, type Resolver } from "./refs.ts";
import { identifierFrom } from "./names.ts";
import { type JsonSchema, patternProblem } from "./schema.ts";
import { isCredentialParameter, RESERVED_HEADERS } from "./security.ts";

export interface Param {
  readonly name: string;
  readonly in: string;
  readonly required: boolean;
  readonly at: SpecPath;
  readonly schema: unknown;
  readonly schemaAt: SpecPath;
  readonly description: string | undefined;
  readonly explode: boolean;
  /** The serialization style (OpenAPI's default for query parameters is "form"). */
  readonly style: string;
}

/** Where the parameters go in the request. */
export interface PlacedParameters {
  /** The path with `{{input.x}}` templates. */
  readonly path: string;
  readonly query: Record<string, unknown>;
  readonly headers: Record<string, unknown>;
  /** Secrets that credential parameters are sent from. */
  readonly secrets: readonly string[];
  /** An optional header is sent from an optional input: the tool needs `http.omitAbsent` (omit-absent). */
  readonly omitAbsent: boolean;
  /**
   * The operation documents an `Accept` parameter without one value to send: the request sends the success
   * response's documented media type instead (openapi.ts).
   */
  readonly acceptFromResponse: boolean;
}

/** How credentials are handled for an operation: the places its schemes fill, and secrets for parameters. */
export interface CredentialPolicy {
  /** `query:name` and `header:name` (lower case) that the operation's security schemes already fill. */
  readonly places: ReadonlySet<string>;
  /** Whether the operation already sends credentials from a security scheme. */
  readonly authenticated: boolean;
  /** The secret for a credential parameter. */
  secretFor(param: Param): string;
}

/** The operation's parameters: the path item's, overridden by the operation's own (same name and place). */
export function readParameters(ctx: ImportContext, operation: Operation, inputs: Inputs): Param[] {
  const byKey = new Map<string, Param>();
  const lists: [unknown, SpecPath][] = [
    [operation.item["parameters"], [...operation.itemAt, "parameters"]],
    [operation.op["parameters"], [...operation.at, "parameters"]],
  ];
  for (const [list, listAt] of lists) {
    if (list === undefined) continue;
    if (!Array.isArray(list)) throw new ImportProblem(report("KV7003", listAt, (m) => m.parametersNotList));
    list.forEach((raw, i) => {
      const { value, path } = ctx.resolver.deref(raw, [...listAt, i]);
      const name = own(value, "name");
      const location = own(value, "in");
      if (
        typeof name !== "string" ||
        typeof location !== "string" ||
        !["path", "query", "header", "cookie"].includes(location)
      ) {
        throw new ImportProblem(report("KV7003", path, (m) => m.parameterShape));
      }
      let schema = own(value, "schema");
      let schemaAt = [...path, "schema"];
      const content = own(value, "content");
      if (schema === undefined && isPlainObject(content)) {
        const type = Object.keys(content)[0];
        if (type !== undefined) {
          schema = own(own(content, type), "schema");
          schemaAt = [...path, "content", type, "schema"];
        }
      }
      const style = own(value, "style");
      const explode = own(value, "explode");
      byKey.set(`${location}:${location === "header" ? name.toLowerCase() : name}`, {
        name,
        in: location,
        required: location === "path" || own(value, "required") === true,
        at: path,
        schema,
        schemaAt,
        description: inputs.describe(own(value, "description"), [...path, "description"]),
        // OpenAPI's default for query parameters is style form with explode true: a=1&a=2.
        explode: typeof explode === "boolean" ? explode : style === undefined || style === "form",
        style: typeof style === "string" ? style : location === "query" || location === "cookie" ? "form" : "simple",
      });
    });
  }
  return [...byKey.values()];
}

/**
 * Places the parameters in the request and adds their input properties: path parameters in the order the path
 * uses them, then query and header ones. `credentials` are the places security schemes already fill
 * (`query:name`, `header:name`). Null when the operation cannot be a tool (reported).
 */
export function placeParameters(
  ctx: ImportContext,
  operation: Operation,
  params: readonly Param[],
  inputs: Inputs,
  credentials: CredentialPolicy,
): PlacedParameters | null {
  const { at } = operation;
  // A `#fragment` in a path key tells apart operations that share a path (Box, AWS); it is never sent. A `?query`
  // (`/things?beta=true`) is part of the request the document describes: kept as written in the URL, never
  // dropped; one that is not plain text leaves the operation out.
  const route = wirePath(operation.route);
  const search = pathQuery(operation.route);
  if (search !== null && !/^[A-Za-z0-9._~=&%+-]+$/.test(search)) {
    ctx.report(
      report("KV7010", operation.itemAt, (m) => m.pathQuery({ route: JSON.stringify(operation.route) }), {
        atKey: true,
      }),
    );
    return null;
  }
  // A URL resolves "." and ".." segments (%2e too) away: the tool would call another path than the key says, and
  // may leave the server's base path. Backslashes count as separators here, as WHATWG URLs read them.
  if (route.split(/[/\\]/).some((segment) => DOT_SEGMENT.test(segment))) {
    ctx.report(
      report("KV7010", operation.itemAt, (m) => m.dotSegment({ route: JSON.stringify(route) }), { atKey: true }),
    );
    return null;
  }
  // The path: {name} becomes {{input.<id>}}; literal braces are percent-encoded so they stay text.
  const pathParams = new Map(params.filter((p) => p.in === "path").map((p) => [p.name, p]));
  let path = "";
  for (const part of route.split(/(\{[^{}]*\})/)) {
    const variable = /^\{([^{}]*)\}$/.exec(part);
    if (variable === null) {
      path += literalPath(part);
      continue;
    }
    const param = pathParams.get(variable[1]!);
    if (param !== undefined && !isScalarSchema(ctx.resolver, param.schema, param.schemaAt)) {
      ctx.report(report("KV7010", param.at, (m) => m.pathParameterNotScalar({ name: param.name })));
      return null;
    }
    const id = inputs.add(
      param ?? { name: variable[1]!, required: true, description: undefined, schema: undefined, schemaAt: at },
      "path",
    );
    inputs.require(id);
    path += `{{input.${id}}}`;
  }
  for (const param of params) {
    if (param.in === "path" && !route.includes(`{${param.name}}`)) {
      ctx.report(report("KV7010", param.at, (m) => m.pathParameterNotInPath({ name: param.name, route })));
    }
  }

  const query: Record<string, unknown> = {};
  const headers: Record<string, unknown> = {};
  const secrets: string[] = [];
  let omitAbsent = false;
  let acceptFromResponse = false;
  /** A credential parameter: sent from a secret, or left out when a security scheme already authenticates. */
  const credential = (param: Param, target: Record<string, unknown>): void => {
    const where = `The ${param.in} parameter "${param.name}"`;
    if (credentials.authenticated) {
      ctx.report(report("KV7015", param.at, (m) => m.alreadySent({ where })));
      return;
    }
    const secret = credentials.secretFor(param);
    ctx.report(report("KV7015", param.at, (m) => m.fromSecret({ where, secret })));
    put(target, param.name, `{{secrets.${secret}}}`);
    if (!secrets.includes(secret)) secrets.push(secret);
  };
  // Query parameters before headers, so names collide (and get suffixes) in a fixed order of places.
  const order = ["cookie", "query", "header"];
  for (const param of [...params].sort((a, b) => order.indexOf(a.in) - order.indexOf(b.in))) {
    if (param.in === "cookie") {
      ctx.report(report("KV7010", param.at, (m) => m.cookie({ name: param.name })));
      continue;
    }
    if (param.in === "query") {
      if (credentials.places.has(`query:${param.name.toLowerCase()}`)) continue;
      if (param.name.includes("{{")) {
        ctx.report(report("KV7010", param.at, (m) => m.queryNameTemplate({ name: param.name })));
        continue;
      }
      if (isCredentialParameter(param.name, param.description)) {
        credential(param, query);
        continue;
      }
      const kind = valueKind(ctx.resolver, param.schema, param.schemaAt);
      if (kind === "complex" && param.style === "deepObject") {
        placeDeepObject(ctx, param, inputs, query);
        continue;
      }
      if (kind === "complex" && param.style === "form" && param.explode) {
        // form + explode, OpenAPI's default for the query: each property is a parameter of its own
        // (Typesense's searchParameters: q=…&query_by=…).
        placeExplodedObject(ctx, param, inputs, query);
        continue;
      }
      if (kind === "array" && param.style === "deepObject") {
        // Stripe's expand: an array in deepObject style is sent as expand[]=a&expand[]=b.
        put(query, `${param.name}[]`, `{{input.${inputs.add(param, "query")}}}`);
        continue;
      }
      if (kind === "complex") {
        ctx.report(report("KV7010", param.at, (m) => m.queryObject({ name: param.name })));
        continue;
      }
      // An own entry only: the style is document text, and "constructor" or "__proto__" name Object members.
      const style = param.explode ? "" : param.style;
      const separator = kind === "array" && Object.hasOwn(DELIMITERS, style) ? DELIMITERS[style] : undefined;
      if (separator !== undefined) {
        // A spec sends an array as repeated parameters (a=1&a=2); the document asks for one delimited value
        // (a=1,2), which the model writes itself, as text.
        const converted = inputs.converter.convert(param.schema, param.schemaAt);
        const id = inputs.name(identifierFrom(param.name), "query");
        inputs.addSchema(id, delimitedSchema(converted, separator, param.description), param.required);
        put(query, param.name, `{{input.${id}}}`);
        continue;
      }
      put(query, param.name, `{{input.${inputs.add(param, "query")}}}`);
    }
    if (param.in === "header") {
      const lower = param.name.toLowerCase();
      if (credentials.places.has(`header:${lower}`)) continue;
      if (lower === "content-type") {
        // Set by the request, never a model input: the body decides it (request-body.ts: application/json, the
        // document's `+json` type, or the form and multipart encoders'), and a request without a body has none.
        continue;
      }
      if (lower === "accept") {
        // Set by the request, never a model input: the document's own value (a default or the one enum value,
        // as GitHub's `application/vnd.github+json`) is sent as written; without one, the success response's
        // documented media type (openapi.ts).
        const fixed = fixedText(ctx.resolver, param.schema, param.schemaAt);
        if (fixed !== null) put(headers, "Accept", fixed);
        else acceptFromResponse = true;
        continue;
      }
      if (lower === "authorization" || lower === "cookie") {
        ctx.report(report("KV7010", param.at, (m) => m.credentialHeader({ name: param.name })));
        continue;
      }
      if (!HEADER_NAME.test(param.name) || RESERVED_HEADERS.has(lower)) {
        ctx.report(report("KV7010", param.at, (m) => m.reservedHeader({ name: param.name })));
        continue;
      }
      if (isCredentialParameter(param.name, param.description)) {
        credential(param, headers);
        continue;
      }
      if (valueKind(ctx.resolver, param.schema, param.schemaAt) !== "scalar") {
        ctx.report(report("KV7010", param.at, (m) => m.headerNotScalar({ name: param.name })));
        continue;
      }
      // An optional header is an optional input, left out of the request when absent (omit-absent).
      if (!param.required) omitAbsent = true;
      put(headers, param.name, `{{input.${inputs.add(param, "header")}}}`);
    }
  }
  return {
    path: search === null ? path : `${path}?${search}`,
    query,
    headers,
    secrets,
    omitAbsent,
    acceptFromResponse,
  };
}

/** Query parameters that set how many items a list answer holds. */
const PAGE_SIZE =
  /^(per_?page|page_?size|page\[size\]|limit|max_?results|max_?items|count|top|\$top|size|page\[limit\])$/i;

/** The operation's page-size query parameter and its documented default, if it has both. */
export function pageSizeOf(resolver: Resolver, params: readonly Param[]): { parameter: string; size: number } | null {
  for (const param of params) {
    if (param.in !== "query" || !PAGE_SIZE.test(param.name) || param.schema === undefined) continue;
    const schema = resolver.deref(param.schema, param.schemaAt).value;
    const size = own(schema, "default");
    if (typeof size === "number" && Number.isInteger(size) && size > 0) return { parameter: param.name, size };
  }
  return null;
}

/** A "." or ".." path segment, as a WHATWG URL recognizes one. */
const DOT_SEGMENT = /^(\.|%2e){1,2}$/i;

/**
 * Literal text of a path key, percent-encoded where the spec's URL would read it otherwise: braces (they would
 * be template syntax), a backslash (a URL reads it as "/"), control characters (a URL drops tabs and line breaks).
 */
function literalPath(text: string): string {
  return text.replace(
    /[{}\\\u0000-\u001f\u007f]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`,
  );
}

/** The `?query` a path key carries before any `#fragment` (`beta=true` of `/things?beta=true`), or null. */
function pathQuery(route: string): string | null {
  const hash = route.indexOf("#");
  const beforeHash = hash < 0 ? route : route.slice(0, hash);
  const question = beforeHash.indexOf("?");
  return question < 0 || question === beforeHash.length - 1 ? null : beforeHash.slice(question + 1);
}

/** A path key as sent: without a `#fragment` (and `?query`, which some documents append the same way). */
export function wirePath(route: string): string {
  const cut = route.search(/[#?]/);
  return cut < 0 ? route : route.slice(0, cut);
}

/** The text an array parameter is sent as, by style, when it is not exploded. */
const DELIMITERS: Readonly<Record<string, Delimiter | undefined>> = {
  form: { words: "Several values separated by commas (a,b,c)", character: "," },
  spaceDelimited: { words: "Several values separated by spaces (a b c)", character: " " },
  pipeDelimited: { words: "Several values separated by | (a|b|c)", character: "|" },
};
interface Delimiter {
  readonly words: string;
  readonly character: string;
}

/** Item values listed in a delimited parameter's description at most; more are left to the pattern. */
const MAX_LISTED_VALUES = 20;

/**
 * The text input of a delimited array parameter (`explode: false`, Spotify search's `type=album,track`), made from
 * the array's converted schema without losing what it says: its title, description (the parameter's own wins, as
 * for other parameters), `deprecated`, a `default` written as the delimited text, the items' type and `format` in
 * the description, and the items' `enum` both listed there and kept as a `pattern` over the delimited text (when
 * no value holds the delimiter), so a value outside it is refused at the tool as the array's `enum` would be.
 */
export function delimitedSchema(
  converted: JsonSchema,
  delimiter: Delimiter,
  parameterDescription: string | undefined,
): Record<string, unknown> {
  const array = typeof converted === "boolean" ? {} : converted;
  const items = isPlainObject(array["items"]) ? array["items"] : {};
  const itemTypes = typesOf(items).filter((t) => t !== "null");
  const format = typeof items["format"] === "string" ? items["format"] : undefined;
  const values = Array.isArray(items["enum"])
    ? items["enum"].filter((v): v is string | number | boolean => v !== null && typeof v !== "object")
    : [];
  const each: string[] = [];
  if (values.length > 0)
    each.push(
      `one of ${values.slice(0, MAX_LISTED_VALUES).map(String).join(", ")}${values.length > MAX_LISTED_VALUES ? ", ..." : ""}`,
    );
  else if (itemTypes.length > 0) each.push(itemTypes.join(" or "));
  if (format !== undefined) each.push(`format ${format}`);
  const schemaDescription = typeof array["description"] === "string" ? array["description"] : undefined;
  const described = parameterDescription ?? schemaDescription;
  const description = `${described !== undefined ? `${described.trimEnd()} ` : ""}${delimiter.words}${each.length > 0 ? ` (each ${each.join(", ")})` : ""}.`;
  const out: Record<string, unknown> = { type: "string" };
  if (typeof array["title"] === "string") out["title"] = array["title"];
  out["description"] = description;
  if (array["deprecated"] === true) out["deprecated"] = true;
  const fallback = array["default"];
  if (Array.isArray(fallback) && fallback.every((v) => v !== null && typeof v !== "object"))
    out["default"] = fallback.map(String).join(delimiter.character);
  else if (typeof fallback === "string") out["default"] = fallback;
  const texts = values.map(String);
  // Without an enum, an item type that pins its text down is kept the same way (Xero's IDs: comma-separated
  // uuids; found by the differential suite, where the text took any value the document does not allow).
  const itemPattern =
    texts.length > 0
      ? texts.every((t) => t !== "" && !t.includes(delimiter.character))
        ? texts.map(escapeRegExp).join("|")
        : null
      : itemTypes.length === 1 && itemTypes[0] === "integer"
        ? "-?[0-9]+"
        : itemTypes.length === 1 && itemTypes[0] === "string" && format === "uuid"
          ? "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
          : null;
  if (itemPattern !== null) {
    const one = `(?:${itemPattern})`;
    const list = `${one}(?:${escapeRegExp(delimiter.character)}${one})*`;
    // An empty text is the empty list, which the array allows unless it requires items.
    const minItems = typeof array["minItems"] === "number" ? array["minItems"] : 0;
    const pattern = `^${minItems > 0 ? list : `(?:${list})?`}$`;
    if (patternProblem(pattern) === null) out["pattern"] = pattern;
  }
  return out;
}

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, (c) => `\\${c}`);
}

/**
 * `style: deepObject` (`filter[status]=open&filter[priority]=1`): one query entry per property of the object,
 * each `{{input.filter.status}}`, which a spec leaves out when the property is omitted. Only flat objects with
 * declared properties whose names templates can reference can be sent so; others are left out (reported).
 */
function placeDeepObject(ctx: ImportContext, param: Param, inputs: Inputs, query: Record<string, unknown>): void {
  const names = flatPropertyNames(ctx, param, () => true);
  if (names === null || param.name.includes("{{")) {
    ctx.report(report("KV7010", param.at, (m) => m.deepObject({ name: param.name })));
    return;
  }
  const id = inputs.add(param, "query");
  for (const n of names) put(query, `${param.name}[${n}]`, `{{input.${id}.${n}}}`);
}

/**
 * The declared property names of an object parameter when every one is a name templates can reference, holds a
 * plain value (not an object or a list of objects) and passes `accept`; null otherwise.
 */
function flatPropertyNames(ctx: ImportContext, param: Param, accept: (name: string) => boolean): string[] | null {
  const { value } = ctx.resolver.deref(param.schema, param.schemaAt);
  const properties = own(value, "properties");
  const names = isPlainObject(properties) ? Object.keys(properties) : [];
  const flat =
    names.length > 0 &&
    names.every(
      (n) =>
        /^[A-Za-z_][A-Za-z0-9_]*$/.test(n) &&
        accept(n) &&
        valueKind(ctx.resolver, (properties as Record<string, unknown>)[n], [...param.schemaAt, "properties", n]) !==
          "complex",
    );
  return flat ? names : null;
}

/**
 * An object parameter in `form` style, exploded (OpenAPI's default for the query): one query entry per property,
 * under the property's own name, each `{{input.p.name}}`, left out when the property is omitted. Only flat objects
 * with declared properties whose names templates can reference, and that no other parameter of the operation
 * takes, can be sent so; others are left out (reported).
 */
function placeExplodedObject(ctx: ImportContext, param: Param, inputs: Inputs, query: Record<string, unknown>): void {
  const names = flatPropertyNames(ctx, param, (n) => !Object.hasOwn(query, n));
  if (names === null) {
    ctx.report(report("KV7010", param.at, (m) => m.queryObject({ name: param.name })));
    return;
  }
  const id = inputs.add(param, "query");
  for (const n of names) put(query, n, `{{input.${id}.${n}}}`);
}

/** Whether a parameter's values are scalars, arrays of scalars, or something a query cannot carry. */
export function valueKind(resolver: Resolver, schema: unknown, at: SpecPath): "scalar" | "array" | "complex" {
  if (schema === undefined) return "scalar";
  const { value } = resolver.deref(schema, at);
  const types = typesOf(value);
  if (types.includes("object")) return "complex";
  if (types.includes("array")) {
    const items = resolver.deref(own(value, "items"), [...at, "items"]).value;
    const itemTypes = typesOf(items);
    return itemTypes.includes("object") || itemTypes.includes("array") ? "complex" : "array";
  }
  return "scalar";
}

function isScalarSchema(resolver: Resolver, schema: unknown, at: SpecPath): boolean {
  return valueKind(resolver, schema, at) === "scalar";
}

function typesOf(schema: unknown): string[] {
  const type = own(schema, "type");
  if (typeof type === "string") return [type];
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === "string");
  if (isPlainObject(own(schema, "properties"))) return ["object"];
  return [];
}

/**
 * A parameter schema's one text value, fit to send as a header as written (visible ASCII, no template braces):
 * its string `default`, or its `enum` of exactly one string; else null.
 */
function fixedText(resolver: Resolver, schema: unknown, at: SpecPath): string | null {
  const value = resolver.deref(schema, at).value;
  const options = own(value, "enum");
  return plainHeaderValue(
    own(value, "default") ?? (Array.isArray(options) && options.length === 1 ? options[0] : undefined),
  );
}

/**
 * A value from the document that may be written as a fixed header value: printable ASCII, and no `{`, so it can
 * never be read as a template (`{{input.x}}`, `{{secrets.X}}`) by the spec it is written into. Null otherwise.
 */
export function plainHeaderValue(candidate: unknown): string | null {
  return typeof candidate === "string" && /^[\x20-\x7e]+$/.test(candidate) && !candidate.includes("{")
    ? candidate
    : null;
}
