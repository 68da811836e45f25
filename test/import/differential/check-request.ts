/**
 * Checks a request the generated server sent against the operation its document describes: the method, the path
 * (the template, each path parameter's value), the query (every parameter documented and in its documented
 * style, the required ones present, each value valid), the headers (documented ones, none that the document does
 * not name but the transport's own and the credentials), and the body (a documented media type, valid against
 * its schema; form bodies decoded first). Each problem is one line; none means the document allows the request.
 */
import busboy from "busboy";
import type { IncomingHttpHeaders } from "node:http";
import type { Document, Operation, Parameter } from "./document.ts";
import type { Schema } from "./values.ts";

export interface SentRequest {
  readonly method: string;
  /** The path below the server URL's base, still percent-encoded. */
  readonly path: string;
  readonly query: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** Headers any HTTP client sends; not the API's to document. */
const TRANSPORT_HEADERS = new Set([
  "host",
  "connection",
  "content-length",
  "transfer-encoding",
  "accept-encoding",
  "user-agent",
  "accept",
  "content-type",
  "accept-language",
  "sec-fetch-mode",
]);

function decode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, " "));
  } catch {
    return s;
  }
}

/** The query's pairs, decoded, in order. */
export function pairs(query: string): [string, string][] {
  if (query === "") return [];
  return query.split("&").map((part) => {
    const eq = part.indexOf("=");
    return eq < 0 ? [decode(part), ""] : [decode(part.slice(0, eq)), decode(part.slice(eq + 1))];
  });
}

function typesOf(s: Schema): string[] {
  const t = s["type"];
  if (Array.isArray(t)) return t;
  if (typeof t === "string") return [t];
  if (s["properties"] !== undefined) return ["object"];
  if (s["items"] !== undefined) return ["array"];
  const branches = (s["oneOf"] ?? s["anyOf"]) as Schema[] | undefined;
  return branches ? branches.flatMap((b) => typesOf(b)) : [];
}

/** A text value as the schema's type reads it (`"3"` as 3 for an integer; `"true"` as true). */
export function coerce(doc: Document, text: string, schema: Schema): unknown {
  const s = doc.flat(schema);
  const types = typesOf(s);
  if ((types.includes("integer") || types.includes("number")) && /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(text))
    return Number(text);
  if (types.includes("boolean") && (text === "true" || text === "false")) return text === "true";
  if (types.includes("null") && text === "null") return null;
  return text;
}

/** Coerces the text leaves of a decoded form body by the schema, so that Ajv checks it like JSON. */
function coerceTree(doc: Document, value: unknown, schema: Schema): unknown {
  const s = doc.flat(schema);
  if (typeof value === "string") {
    // A form carries every scalar as text; an object-or-string (Stripe's `anyOf: [object, enum [""]]`) too.
    return coerce(doc, value, s);
  }
  if (Array.isArray(value)) {
    const items = (s["items"] ?? firstBranch(doc, s, "array")?.["items"] ?? {}) as Schema;
    return value.map((v) => coerceTree(doc, v, items));
  }
  if (typeof value === "object" && value !== null) {
    const target = s["properties"] !== undefined ? s : (firstBranch(doc, s, "object") ?? s);
    if (typesOf(s).includes("array") && !typesOf(s).includes("object")) {
      // An indexed form array (`a[0]=x&a[1]=y`).
      const keys = Object.keys(value);
      if (keys.every((k) => /^\d+$/.test(k)))
        return coerceTree(
          doc,
          keys.map((k) => (value as Schema)[k]),
          s,
        );
    }
    const props = (target["properties"] ?? {}) as Record<string, Schema>;
    const extra = target["additionalProperties"];
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>))
      out[k] = coerceTree(doc, v, props[k] ?? (typeof extra === "object" ? extra : {}));
    return out;
  }
  return value;
}

function firstBranch(doc: Document, s: Schema, type: string): Schema | undefined {
  for (const b of ((s["oneOf"] ?? s["anyOf"] ?? []) as Schema[]).map((x) => doc.flat(x)))
    if (typesOf(b).includes(type)) return b;
  return undefined;
}

/** `a[b][c]=1&a[d][]=2` as `{a: {b: {c: "1"}, d: ["2"]}}`. */
export function decodeForm(text: string): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [key, value] of pairs(text)) {
    const m = /^([^[\]]+)((?:\[[^\]]*\])*)$/.exec(key);
    const path = m ? [m[1]!, ...[...m[2]!.matchAll(/\[([^\]]*)\]/g)].map((x) => x[1]!)] : [key];
    let node: any = root;
    for (let i = 0; i < path.length; i++) {
      const k = path[i]!;
      const last = i === path.length - 1;
      const nextKey = path[i + 1];
      if (k === "" && Array.isArray(node)) {
        if (last) node.push(value);
        else {
          const child = nextKey === "" ? [] : {};
          node.push(child);
          node = child;
        }
        continue;
      }
      if (last) {
        if (k in node) node[k] = Array.isArray(node[k]) ? [...node[k], value] : [node[k], value];
        else node[k] = value;
      } else {
        if (!(k in node) || typeof node[k] !== "object") node[k] = nextKey === "" ? [] : {};
        node = node[k];
      }
    }
  }
  return root;
}

function errorsOf(v: { errors?: unknown }): string {
  const errors = (v.errors ?? []) as { instancePath: string; message?: string; params?: unknown }[];
  return errors
    .slice(0, 2)
    .map((e) => `${e.instancePath || "/"} ${e.message ?? ""} ${JSON.stringify(e.params)}`)
    .join("; ");
}

function validate(doc: Document, schema: Schema, value: unknown, what: string, problems: string[]): void {
  const v = doc.validator(schema, "request");
  if (v(value)) return;
  // A value that fails only because it matches several `oneOf` branches (DigitalOcean's droplet actions, whose
  // branches extend one another, so no value can match exactly one) is what each branch allows: the document's
  // `oneOf` is the defect, reported as such rather than as the request's.
  if (doc.validator(schema, "request", true)(value))
    problems.push(`document defect: ${what} matches several branches of a oneOf, which no value can avoid`);
  else problems.push(`${what} ${JSON.stringify(value).slice(0, 80)} is not valid: ${errorsOf(v)}`);
}

function checkQuery(
  doc: Document,
  op: Operation,
  query: string,
  credentials: Set<string>,
  args: Record<string, unknown>,
  problems: string[],
): void {
  const sent = pairs(query);
  const byName = new Map<string, string[]>();
  for (const [k, v] of sent) byName.set(k, [...(byName.get(k) ?? []), v]);
  const documented = op.parameters.filter((p) => p.in === "query");
  // A `?query` written into the path key is part of the route, sent as written.
  const fixed = new Set(pairs(op.path.includes("?") ? op.path.slice(op.path.indexOf("?") + 1) : "").map(([k]) => k));
  const claimed = new Set<string>();
  for (const p of documented) {
    const schema = doc.flat(p.schema);
    const types = typesOf(schema).filter((t) => t !== "null");
    // A combinator with a plain branch sent plainly (Stripe's created: an integer, or a range object as
    // created[gt]=...) is read as that branch.
    const plain = types.find((t) => t !== "object" && t !== "array");
    const type = byName.has(p.name) && plain !== undefined ? plain : types[0];
    const claim = (k: string): void => void claimed.add(k);
    if (type === "object" && p.style === "deepObject") {
      const value: Record<string, unknown> = {};
      for (const [k, vs] of byName) {
        const m = new RegExp(`^${escape(p.name)}\\[([^\\]]+)\\]$`).exec(k);
        if (m === null) continue;
        claim(k);
        const object = schema["properties"] !== undefined ? schema : (firstBranch(doc, schema, "object") ?? schema);
        const prop = ((object["properties"] ?? {}) as Record<string, Schema>)[m[1]!] ?? {};
        value[m[1]!] = coerce(doc, vs[0]!, prop);
        if (vs.length > 1) problems.push(`query ${k} is sent ${vs.length} times`);
      }
      if (Object.keys(value).length > 0) validate(doc, p.schema, value, `query ${p.name}`, problems);
      else if (p.required) problems.push(`the required query parameter ${p.name} is missing`);
      else if (argumentFor(args, p.name, "query") !== undefined)
        problems.push(`the query parameter ${p.name} is given but not sent`);
      continue;
    }
    if (type === "object" && p.style === "form" && p.explode) {
      const object = schema["properties"] !== undefined ? schema : (firstBranch(doc, schema, "object") ?? schema);
      const props = (object["properties"] ?? {}) as Record<string, Schema>;
      const value: Record<string, unknown> = {};
      for (const [k, vs] of byName)
        if (k in props) {
          claim(k);
          value[k] = coerce(doc, vs[0]!, props[k]!);
        }
      if (Object.keys(value).length > 0) validate(doc, p.schema, value, `query ${p.name}`, problems);
      else if (p.required) problems.push(`the required query parameter ${p.name} is missing`);
      else if (argumentFor(args, p.name, "query") !== undefined)
        problems.push(`the query parameter ${p.name} is given but not sent`);
      continue;
    }
    if (type === "array") {
      const items = (schema["items"] ?? {}) as Schema;
      let values: string[] | undefined;
      if (p.style === "deepObject") {
        const keys = [...byName.keys()].filter(
          (k) => k === `${p.name}[]` || new RegExp(`^${escape(p.name)}\\[\\d+\\]$`).test(k),
        );
        if (keys.length > 0) values = keys.flatMap((k) => byName.get(k)!);
        keys.forEach(claim);
        if (byName.has(p.name))
          problems.push(`query ${p.name} is a deepObject array, sent as ${p.name}= rather than ${p.name}[]=`);
      } else if (byName.has(p.name)) {
        claim(p.name);
        const vs = byName.get(p.name)!;
        const delimiter = p.style === "spaceDelimited" ? " " : p.style === "pipeDelimited" ? "|" : ",";
        if (p.explode && p.style === "form") values = vs;
        else {
          if (vs.length > 1)
            problems.push(`query ${p.name} (${p.style}, explode false) is repeated rather than delimited`);
          values = vs.flatMap((v) => v.split(delimiter));
        }
      } else if (byName.has(`${p.name}[]`)) {
        claim(`${p.name}[]`);
        problems.push(`query ${p.name} (${p.style}) is sent as ${p.name}[]`);
      }
      if (values !== undefined)
        validate(
          doc,
          p.schema,
          values.map((v) => coerce(doc, v, items)),
          `query ${p.name}`,
          problems,
        );
      else if (p.required) problems.push(`the required query parameter ${p.name} is missing`);
      else if (argumentFor(args, p.name, "query") !== undefined)
        problems.push(`the query parameter ${p.name} is given but not sent`);
      continue;
    }
    const vs = byName.get(p.name);
    if (vs === undefined) {
      if (p.required && !credentialLike(p)) problems.push(`the required query parameter ${p.name} is missing`);
      else if (argumentFor(args, p.name, "query") !== undefined && !credentialLike(p))
        problems.push(`the query parameter ${p.name} is given but not sent`);
      continue;
    }
    claim(p.name);
    if (vs.length > 1) problems.push(`query ${p.name} is sent ${vs.length} times`);
    if (p.content !== undefined) {
      try {
        validate(doc, p.schema, JSON.parse(vs[0]!), `query ${p.name}`, problems);
      } catch {
        problems.push(`query ${p.name} is not the JSON its content says`);
      }
    } else validate(doc, p.schema, coerce(doc, vs[0]!, p.schema), `query ${p.name}`, problems);
  }
  for (const k of byName.keys())
    if (!claimed.has(k) && !credentials.has(k) && !fixed.has(k)) problems.push(`query ${k} is not documented`);
}

/** A parameter that carries a credential, which the security scheme's own header or query entry replaces. */
function credentialLike(p: Parameter): boolean {
  return /token|key|secret/i.test(p.name) && /\b(api[ -]?key|token|credential|auth)/i.test(p.description ?? "");
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function checkHeaders(
  doc: Document,
  op: Operation,
  headers: IncomingHttpHeaders,
  credentials: Set<string>,
  args: Record<string, unknown>,
  problems: string[],
): void {
  const documented = op.parameters.filter((p) => p.in === "header");
  const names = new Set(documented.map((p) => p.name.toLowerCase()));
  for (const p of documented) {
    const lower = p.name.toLowerCase();
    if (lower === "accept" || lower === "content-type" || lower === "authorization") continue;
    const value = headers[lower];
    if (value === undefined) {
      if (p.required && !credentials.has(lower) && !credentialLike(p))
        problems.push(`the required header ${p.name} is missing`);
      else if (argumentFor(args, p.name, "header") !== undefined && !credentials.has(lower) && !credentialLike(p))
        problems.push(`the header ${p.name} is given but not sent`);
      continue;
    }
    if (credentials.has(lower)) continue;
    const text = Array.isArray(value) ? value.join(", ") : value;
    const schema = doc.flat(p.schema);
    const v = typesOf(schema).includes("array")
      ? text.split(",").map((x) => coerce(doc, x.trim(), (schema["items"] ?? {}) as Schema))
      : coerce(doc, text, p.schema);
    validate(doc, p.schema, v, `header ${p.name}`, problems);
  }
  for (const name of Object.keys(headers))
    if (!names.has(name) && !TRANSPORT_HEADERS.has(name) && !credentials.has(name))
      problems.push(`header ${name} is not documented`);
  // Accept: one of the success's documented media types (or a wildcard that covers one).
  const accept = headers["accept"];
  if (accept !== undefined && op.success.mediaType !== undefined) {
    const offered = String(accept)
      .split(",")
      .map((t) => t.split(";")[0]!.trim().toLowerCase());
    const documentedAccept = documented.find((p) => p.name.toLowerCase() === "accept");
    const allowed = [op.success.mediaType.toLowerCase(), ...allowedAccept(doc, documentedAccept)];
    const covers = (o: string, t: string): boolean =>
      o === "*/*" || o === t || (o.endsWith("/*") && t.startsWith(o.slice(0, -1))) || t === "*/*";
    if (!offered.some((o) => allowed.some((t) => covers(o, t))))
      problems.push(`Accept ${String(accept)} is not the documented ${op.success.mediaType}`);
  }
}

function allowedAccept(doc: Document, p: Parameter | undefined): string[] {
  if (p === undefined) return [];
  const s = doc.flat(p.schema);
  return [
    ...((s["enum"] as string[] | undefined) ?? []),
    ...(typeof s["default"] === "string" ? [s["default"]] : []),
  ].map((x) => x.toLowerCase());
}

async function multipartFields(headers: IncomingHttpHeaders, body: Buffer): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const out: Record<string, unknown> = {};
    const add = (name: string, value: unknown): void => {
      out[name] = name in out ? [...([] as unknown[]).concat(out[name]), value] : value;
    };
    const parser = busboy({ headers: headers as Record<string, string> });
    parser.on("field", (name, value, info) => {
      if (info.mimeType === "application/json") {
        try {
          return add(name, JSON.parse(value));
        } catch {
          return add(name, value);
        }
      }
      add(name, value);
    });
    parser.on("file", (name, stream) => {
      stream.resume();
      add(name, Buffer.from("file").toString("base64"));
    });
    parser.on("close", () => resolve(out));
    parser.on("error", reject);
    parser.end(body);
  });
}

async function checkBody(
  doc: Document,
  op: Operation,
  req: SentRequest,
  args: Record<string, unknown>,
  problems: string[],
): Promise<void> {
  const type = req.headers["content-type"];
  if (op.body === undefined || Object.keys(op.body.content).length === 0) {
    if (req.body.length > 0) problems.push(`a body is sent, but the operation documents none`);
    if (type !== undefined && req.body.length > 0)
      problems.push(`Content-Type ${type} is sent without a documented body`);
    return;
  }
  if (req.body.length === 0 && type === undefined) {
    if (op.body.required) problems.push("the required body is missing");
    return;
  }
  if (type === undefined) return void problems.push("a body is sent without a Content-Type");
  const base = type.split(";")[0]!.trim().toLowerCase();
  const documentedType = Object.keys(op.body.content).find((t) => {
    const d = t.split(";")[0]!.trim().toLowerCase();
    return d === base || d === "*/*" || (d.endsWith("/*") && base.startsWith(d.slice(0, -1)));
  });
  if (documentedType === undefined)
    return void problems.push(
      `Content-Type ${base} is not one the operation documents (${Object.keys(op.body.content).join(", ")})`,
    );
  const schema = op.body.content[documentedType]!;
  let value: unknown;
  if (base === "application/x-www-form-urlencoded")
    value = coerceTree(doc, decodeForm(req.body.toString("utf8")), schema);
  else if (base === "multipart/form-data")
    value = coerceTree(doc, await multipartFields(req.headers, req.body), schema);
  else if (/json/.test(base) || documentedType.includes("*")) {
    try {
      value = JSON.parse(req.body.toString("utf8"));
    } catch {
      return void problems.push(`the ${base} body is not JSON`);
    }
  } else return;
  validate(doc, schema, value, "the body", problems);
  // Each body field the model gave reaches the body: the whole `body` argument, or each flattened one.
  if (typeof value !== "object" || value === null || Array.isArray(value)) return;
  const sent = value as Record<string, unknown>;
  const params = new Set(
    op.parameters.flatMap((p) => {
      const id = p.name.replace(/[^A-Za-z0-9_]/g, "_");
      return [p.name, id, `${id}_${p.in}`, id.toLowerCase()];
    }),
  );
  const declared = (doc.flat(schema)["properties"] ?? {}) as Record<string, unknown>;
  const whole = "body" in args && !("body" in declared);
  const given = whole
    ? typeof args["body"] === "object" && args["body"] !== null && !Array.isArray(args["body"])
      ? Object.keys(args["body"] as object)
      : []
    : Object.keys(args).filter((k) => !params.has(k) && !/_(base64|filename|content_type)$/.test(k));
  for (const k of given) {
    const wire = !whole && !(k in declared) && k.startsWith("body_") ? k.slice(5) : k;
    if (!(wire in sent) && (wire in declared || whole)) problems.push(`the body field ${wire} is given but not sent`);
  }
}

/** The problems of one request against its operation. */
export async function checkRequest(
  doc: Document,
  op: Operation,
  req: SentRequest,
  args: Record<string, unknown>,
  credentials: { headers: Set<string>; query: Set<string> },
): Promise<string[]> {
  const problems: string[] = [];
  if (req.method !== op.method) problems.push(`method ${req.method}, documented ${op.method}`);
  const matched = op.pattern.exec(req.path);
  if (matched === null) problems.push(`path ${req.path} does not match ${op.path}`);
  else {
    const names = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
    names.forEach((name, i) => {
      const raw = matched[i + 1]!;
      const text = decodeURIComponent(raw);
      const p = op.parameters.find((x) => x.in === "path" && x.name === name);
      if (p !== undefined) validate(doc, p.schema, coerce(doc, text, p.schema), `path parameter ${name}`, problems);
      const given = argumentFor(args, name, "path");
      if (given !== undefined && String(given) !== text)
        problems.push(`path parameter ${name} is ${JSON.stringify(text)}, the argument ${JSON.stringify(given)}`);
    });
  }
  checkQuery(doc, op, req.query, credentials.query, args, problems);
  checkHeaders(doc, op, req.headers, credentials.headers, args, problems);
  await checkBody(doc, op, req, args, problems);
  return problems;
}

/** The tool argument that a parameter became (its name, or the identifier the import made of it). */
export function argumentFor(args: Record<string, unknown>, name: string, where: string): unknown {
  const id = name.replace(/[^A-Za-z0-9_]/g, "_");
  // The suffixed name first: when a path and a query parameter share a name, the path one keeps it.
  for (const k of [`${id}_${where}`, name, id, id.toLowerCase()]) if (k in args) return args[k];
  return undefined;
}
