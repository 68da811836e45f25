/**
 * Rendering a request plan with one call's arguments.
 *
 * Each slot has one encoder, chosen by the plan's shape at build time: path references are percent-encoded as
 * one segment, query values are form-encoded by URLSearchParams, header values are plain text checked for
 * control characters, body references become JSON values. Argument values are data, never templates: a value
 * that reads `{{secrets.X}}` is sent as that literal text.
 */
import { ToolError } from "./errors.ts";
import type { BodyNode, JsonValue, RequestPlan, Template, TemplateRef } from "../plan.ts";
import { FORM_CONTENT_TYPE, formEncode } from "./form.ts";
import { DEFAULT_MAX_UPLOAD_BYTES, multipartEncode } from "./multipart.ts";

export interface RenderContext {
  /** The validated tool arguments. */
  readonly args: JsonValue;
  /** Secret values for this call's host; a missing entry means the secret is not configured there. */
  readonly secrets: ReadonlyMap<string, string>;
  /** `hostname:port` of the request, for messages. */
  readonly hostPort: string;
  /** The upstream credentials' values for this call (kervanc extension upstream-auth). */
  readonly credentials?: ReadonlyMap<string, string>;
}

export interface RenderedRequest {
  readonly method: RequestPlan["method"];
  readonly url: URL;
  /** Header names as the spec wrote them, in order. */
  readonly headers: readonly (readonly [string, string])[];
  /** The body: JSON or form text, multipart bytes, or null. */
  readonly body: string | Uint8Array | null;
}

export function refName(ref: TemplateRef): string {
  return ref.kind === "input"
    ? `input.${ref.path.join(".")}`
    : ref.kind === "secret"
      ? `secrets.${ref.name}`
      : `credentials.${ref.name}`;
}

/** Looks a reference up; an input path uses own properties only, and a missing step gives undefined. */
export function resolveRef(ref: TemplateRef, ctx: RenderContext): JsonValue | undefined {
  if (ref.kind === "secret") {
    const value = ctx.secrets.get(ref.name);
    if (value === undefined) throw new ToolError(`Secret ${ref.name} is not configured for ${ctx.hostPort}.`);
    return value;
  }
  if (ref.kind === "credential") {
    const value = ctx.credentials?.get(ref.name);
    // The runner resolves every credential a tool names before rendering; a gap is a bug, not the model's doing.
    if (value === undefined) throw new Error(`Credential ${ref.name} was not resolved before rendering.`);
    return value;
  }
  let current: JsonValue | undefined = ctx.args;
  for (const key of ref.path) {
    if (current === null || typeof current !== "object" || Array.isArray(current) || !Object.hasOwn(current, key)) {
      return undefined;
    }
    current = current[key];
  }
  return current;
}

/**
 * Refuses text with an unpaired surrogate, in every place alike: it has no UTF-8 encoding, so a URL would
 * carry U+FFFD instead (a different value than the model gave) and a JSON body would carry an escape the
 * upstream may decode differently.
 */
function wellFormed(ref: TemplateRef, text: string): string {
  if (UNPAIRED_SURROGATE.test(text))
    throw new ToolError(`${refName(ref)} is not valid Unicode text (it has an unpaired surrogate).`);
  return text;
}

/** The same check over every string and key of a value a body reference inserts whole; iterative. */
function wellFormedValue(ref: TemplateRef, value: JsonValue): JsonValue {
  const stack: JsonValue[] = [value];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (typeof node === "string") wellFormed(ref, node);
    else if (Array.isArray(node)) for (const item of node) stack.push(item);
    else if (node !== null && typeof node === "object") {
      for (const key of Object.keys(node)) {
        wellFormed(ref, key);
        stack.push(node[key]!);
      }
    }
  }
  return value;
}

/** The text of a scalar value; a missing value or a container is an error the model can fix. */
export function scalarText(ref: TemplateRef, value: JsonValue | undefined): string {
  if (value === undefined || value === null) throw new ToolError(`Missing value for ${refName(ref)}.`);
  if (typeof value === "string") return wellFormed(ref, value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  throw new ToolError(`${refName(ref)} must be a string, number or boolean here.`);
}

function singleRef(template: Template): TemplateRef | null {
  const [first, ...rest] = template.parts;
  return first !== undefined && rest.length === 0 && first.kind === "ref" ? first.ref : null;
}

/**
 * The kervanc omit-absent extension: a header whose value is exactly one input reference is left out when the
 * argument is absent or null (a header has no null). Mixed text and secrets render as always.
 */
function absentHeader(template: Template, ctx: RenderContext): boolean {
  const ref = singleRef(template);
  if (ref === null || ref.kind !== "input") return false;
  const value = resolveRef(ref, ctx);
  return value === undefined || value === null;
}

function renderText(template: Template, ctx: RenderContext): string {
  let out = "";
  for (const part of template.parts)
    out += part.kind === "text" ? part.text : scalarText(part.ref, resolveRef(part.ref, ctx));
  return out;
}

// Control characters refused in a path value (C0 and DEL).
const PATH_CONTROL = /[\u0000-\u001f\u007f]/;
// Control characters refused in a header value; tab is allowed.
const HEADER_CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f]/;
// HTTP/1.1 carries header values as bytes; Node sends them as Latin-1 and refuses anything beyond it.
const HEADER_NOT_LATIN1 = /[^\u0000-\u00ff]/;
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function renderPath(template: Template, ctx: RenderContext): string {
  let out = "";
  for (const part of template.parts) {
    if (part.kind === "text") {
      out += part.text;
      continue;
    }
    const text = scalarText(part.ref, resolveRef(part.ref, ctx));
    // An unpaired surrogate was refused by scalarText (it cannot be percent-encoded as UTF-8).
    if (text === "" || text === "." || text === ".." || PATH_CONTROL.test(text)) {
      throw new ToolError(`${refName(part.ref)} is not allowed in a URL path.`);
    }
    out += encodeURIComponent(text);
  }
  return out;
}

/**
 * The kervanc omit-absent extension (docs/extensions/omit-absent.md): how deep in the body an object key whose
 * value is exactly one input reference is left out when the argument is absent. JSON and form bodies: at every
 * depth. Multipart bodies: their fields only (depth 0), since the keys of a file object (`content`, `filename`,
 * `contentType`) already read null as not given, and a file object without its `content` key is an error there.
 * Without the extension: never (-1), Kervan's rule (the key stays, with null).
 */
function omitDepthOf(plan: RequestPlan): number {
  if (plan.omitAbsent !== true) return -1;
  return plan.bodyEncoding === "multipart" ? 0 : Number.POSITIVE_INFINITY;
}

/** Whether a body node is exactly one input reference whose argument is absent (not given; null is a value). */
function absentInput(node: BodyNode, ctx: RenderContext): boolean {
  return node.kind === "value" && node.ref.kind === "input" && resolveRef(node.ref, ctx) === undefined;
}

function renderBody(node: BodyNode, ctx: RenderContext, omitDepth: number, depth: number): JsonValue {
  switch (node.kind) {
    case "literal":
      return node.value;
    case "value": {
      const value = resolveRef(node.ref, ctx);
      return value === undefined ? null : wellFormedValue(node.ref, value);
    }
    case "text":
      return renderText(node.template, ctx);
    case "array":
      return node.items.map((item) => renderBody(item, ctx, omitDepth, depth + 1));
    case "object": {
      const out: { [key: string]: JsonValue } = {};
      for (const [key, child] of node.entries) {
        if (depth <= omitDepth && absentInput(child, ctx)) continue;
        Object.defineProperty(out, key, {
          value: renderBody(child, ctx, omitDepth, depth + 1),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return out;
    }
  }
}

/**
 * The URL's query: the literal query with every parameter appended as `url.searchParams.append` would, or the
 * literal query untouched when none is. The parameters go to a list of their own, serialized once, and the URL
 * is parsed once: a URL re-serializes its whole query at every append. The text is the same (the literal query
 * as parsed and re-serialized, then each parameter), which test/runtime/render-search.test.ts checks.
 */
function renderSearch(plan: RequestPlan, ctx: RenderContext): string {
  let params: URLSearchParams | null = null;
  const append = (name: string, value: string): void => {
    (params ??= new URLSearchParams(plan.search)).append(name, value);
  };
  for (const param of plan.query) {
    const ref = singleRef(param.value);
    if (ref === null) {
      append(param.name, renderText(param.value, ctx));
      continue;
    }
    const value = resolveRef(ref, ctx);
    if (value === undefined || value === null) continue;
    if (!Array.isArray(value)) {
      append(param.name, scalarText(ref, value));
      continue;
    }
    for (const item of value) {
      if (typeof item !== "string" && typeof item !== "number" && typeof item !== "boolean") {
        throw new ToolError(`Every value of query parameter "${param.name}" must be a string, number or boolean.`);
      }
      append(param.name, typeof item === "string" ? wellFormed(ref, item) : String(item));
    }
  }
  return params === null ? plan.search : `?${(params as URLSearchParams).toString()}`;
}

export function renderRequest(plan: RequestPlan, ctx: RenderContext): RenderedRequest {
  const path = renderPath(plan.path, ctx);
  // A refused query value is reported after the path check, in the order the checks always ran.
  let search = plan.search;
  let queryError: unknown = null;
  try {
    search = renderSearch(plan, ctx);
  } catch (error) {
    queryError = error;
  }
  const url = new URL(plan.origin + path + search);
  if (url.pathname !== path) {
    throw new ToolError("The input values form a dot segment, which is not allowed in a URL path.");
  }
  if (queryError !== null) throw queryError;
  const headers: (readonly [string, string])[] = [];
  for (const header of plan.headers) {
    if (plan.omitAbsent === true && absentHeader(header.value, ctx)) continue;
    const value = renderText(header.value, ctx);
    if (HEADER_CONTROL.test(value)) {
      throw new ToolError(`The value for header "${header.name}" contains a line break or control character.`);
    }
    if (HEADER_NOT_LATIN1.test(value)) {
      throw new ToolError(
        `The value for header "${header.name}" contains a character that cannot be sent in an HTTP header.`,
      );
    }
    headers.push([header.name, value]);
  }
  const rendered = plan.body === null ? null : renderBody(plan.body, ctx, omitDepthOf(plan), 0);
  if (plan.bodyEncoding === "multipart" && rendered !== null) {
    // The kervanc multipart-body extension (multipart.ts): the content type carries the boundary, so it is set here.
    const multipart = multipartEncode(rendered, plan.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES);
    headers.push(["content-type", multipart.contentType]);
    return { method: plan.method, url, headers, body: multipart.bytes };
  }
  const body =
    plan.body === null ? null : plan.bodyEncoding === "form" ? formEncode(rendered) : JSON.stringify(rendered);
  // The kervanc form-body extension (form.ts): the one place a body is not JSON.
  if (plan.bodyEncoding === "form" && !headers.some(([n]) => n.toLowerCase() === "content-type"))
    headers.push(["content-type", FORM_CONTENT_TYPE]);
  return { method: plan.method, url, headers, body };
}
