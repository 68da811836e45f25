/**
 * Checks and parses one tool's `http` section: the URL with its path templates, query, headers and body.
 *
 * The result is already in plan form: templates are parsed into parts, and the place of every reference (path
 * segment, query value, header value, body value) is fixed by where it sits. Nothing from an argument can reach
 * the scheme, host, port, query names, header names or body keys: those must be literal, and the checks below
 * refuse templates there.
 */
import type {
  BodyNode,
  HeaderParam,
  JsonValue,
  QueryParam,
  Template,
  TemplatePart,
  TemplateRef,
} from "@kervanc/runtime";
import { type Finding, report, type SpecPath } from "../../diagnostics/diagnostic.ts";
import { quoteName } from "../structure.ts";
import { findLookAlikes, type LookAlike, parseTemplate, refsOf, refText } from "../templates.ts";
import type { ParsedRequest, ParsedUrl } from "../analyzed.ts";
import type { Rule, ToolContext } from "./context.ts";

export type { ParsedRequest, ParsedUrl };

export const RESERVED_HEADERS = new Set([
  "host",
  "content-length",
  "transfer-encoding",
  "connection",
  "keep-alive",
  "upgrade",
  "te",
  "trailer",
  "proxy-authorization",
  "proxy-connection",
  "accept-encoding",
]);
/** The HTTP token rule for header names. */
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const TOKEN = (n: number): string => `__kervan_template_${n}__`;
const TOKEN_RE = /__kervan_template_(\d+)__/g;
/**
 * The tokens' prefix as the URL parser could come to read it from literal text: it drops tabs and line breaks
 * anywhere in a URL and lower-cases the host. Literal text that reads so would pass for a token (KV3019).
 */
const RESERVED_TOKEN = new RegExp([..."__kervan_template_"].join("[\\t\\n\\r]*"), "i");

export interface HttpInput {
  readonly method: string;
  readonly url: string;
  readonly query?: Record<string, string | number | boolean | (string | number | boolean)[]>;
  readonly headers?: Record<string, string | number | boolean>;
  readonly body?: JsonValue;
  readonly allowInsecureHttp: boolean;
  /** `kervanc call`/`dev`/`test` only: plain http to a loopback host is allowed, secrets included. Never in build. */
  readonly devLoopbackHttp?: boolean;
}

export function checkRequest(http: HttpInput, at: SpecPath, out: Finding[], explicitMethod = true): ParsedRequest {
  const refs: { ref: TemplateRef; path: SpecPath; offset?: number; length?: number }[] = [];
  const lookAlikes: { path: SpecPath; lookAlike: LookAlike }[] = [];
  let urlRefOffsets: readonly number[] = [];
  let urlRefLengths: readonly number[] = [];
  const parse = (source: string, path: SpecPath): Template | null => {
    const parsed = parseTemplate(source);
    if (!parsed.ok) {
      out.push({ ...parsed.finding, path });
      return null;
    }
    for (const lookAlike of findLookAlikes(source)) lookAlikes.push({ path, lookAlike });
    let n = 0;
    for (const part of parsed.template.parts) {
      if (part.kind === "ref") {
        refs.push({ ref: part.ref, path, offset: parsed.refOffsets[n]!, length: parsed.refLengths[n]! });
        n++;
      }
    }
    if (path === urlPath) {
      urlRefOffsets = parsed.refOffsets;
      urlRefLengths = parsed.refLengths;
    }
    return parsed.template;
  };

  const urlPath: SpecPath = [...at, "url"];
  const urlTemplate = parse(http.url, urlPath);
  const query: QueryParam[] = [];
  for (const [name, value] of Object.entries(http.query ?? {})) {
    if (name.includes("{{"))
      out.push(report("KV3012", [...at, "query", name], (m) => m.templatedName, { atKey: true }));
    const values = Array.isArray(value) ? value : [value];
    values.forEach((item, i) => {
      const template = parse(String(item), Array.isArray(value) ? [...at, "query", name, i] : [...at, "query", name]);
      if (template) query.push({ name, value: template });
    });
  }
  const headers: HeaderParam[] = [];
  for (const [name, value] of Object.entries(http.headers ?? {})) {
    const path = [...at, "headers", name];
    if (!HEADER_NAME.test(name)) {
      const quoted = quoteName(name);
      out.push(
        report(
          "KV3014",
          path,
          (m) => (name.includes("{{") ? m.templatedName({ name: quoted }) : m.invalidName({ name: quoted })),
          { atKey: true },
        ),
      );
    } else if (RESERVED_HEADERS.has(name.toLowerCase())) {
      out.push(report("KV3015", path, (m) => m.managed({ name }), { atKey: true }));
    }
    const template = parse(String(value), path);
    if (template) headers.push({ name, value: template });
  }
  let body: BodyNode | null = null;
  if (http.body !== undefined) {
    if (http.method === "GET") {
      out.push(
        report("KV3016", [...at, "body"], (m) => (explicitMethod ? m.bodyOnGet : m.bodyOnDefaultGet), {
          atKey: true,
        }),
      );
    }
    body = parseBody(http.body, [...at, "body"], parse, out);
  }
  // A credential (kervanc extension upstream-auth) is a secret for the URL rules: never over plain http.
  const sendsSecrets = refs.some((r) => r.ref.kind === "secret" || r.ref.kind === "credential");
  const url = urlTemplate
    ? parseUrl(
        http.url,
        urlTemplate,
        urlRefOffsets,
        urlRefLengths,
        urlPath,
        { allowInsecureHttp: http.allowInsecureHttp, sendsSecrets, devLoopbackHttp: http.devLoopbackHttp === true },
        out,
      )
    : null;
  return { url, query, headers, body, refs, lookAlikes };
}

function parseBody(
  value: JsonValue,
  path: SpecPath,
  parse: (s: string, p: SpecPath) => Template | null,
  out: Finding[],
): BodyNode {
  // Bodies come from YAML and can be deep: build bottom-up with an explicit stack.
  type Frame = { value: JsonValue; path: SpecPath; children: BodyNode[]; keys: string[] | null; next: number };
  const leaf = (v: JsonValue, p: SpecPath): BodyNode => {
    if (typeof v !== "string") return { kind: "literal", value: v };
    const template = parse(v, p);
    if (template === null || !template.parts.some((part) => part.kind === "ref")) {
      return { kind: "literal", value: template === null ? v : textOf(template.parts) };
    }
    const [first, ...rest] = template.parts;
    if (first?.kind === "ref" && rest.length === 0) return { kind: "value", ref: first.ref };
    return { kind: "text", template };
  };
  const isContainer = (v: JsonValue): v is JsonValue[] | { [k: string]: JsonValue } =>
    v !== null && typeof v === "object";
  if (!isContainer(value)) return leaf(value, path);
  const open = (v: JsonValue[] | { [k: string]: JsonValue }, p: SpecPath): Frame => ({
    value: v,
    path: p,
    children: [],
    keys: Array.isArray(v) ? null : Object.keys(v),
    next: 0,
  });
  const stack: Frame[] = [open(value, path)];
  let result: BodyNode | null = null;
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    const container = frame.value as JsonValue[] | { [k: string]: JsonValue };
    const count = frame.keys ? frame.keys.length : (container as JsonValue[]).length;
    if (frame.next >= count) {
      stack.pop();
      const node = simplify(
        frame.keys
          ? { kind: "object", entries: frame.keys.map((k, i) => [k, frame.children[i]!] as const) }
          : { kind: "array", items: frame.children },
      );
      const parent = stack[stack.length - 1];
      if (parent) parent.children.push(node);
      else result = node;
      continue;
    }
    const key = frame.keys ? frame.keys[frame.next]! : frame.next;
    frame.next++;
    const childPath = [...frame.path, key];
    if (typeof key === "string" && key.includes("{{"))
      out.push(report("KV3013", childPath, (m) => m.templatedKey, { atKey: true }));
    const child = frame.keys
      ? (container as { [k: string]: JsonValue })[key as string]!
      : (container as JsonValue[])[key as number]!;
    if (isContainer(child)) stack.push(open(child, childPath));
    else frame.children.push(leaf(child, childPath));
  }
  return result!;
}

/** A container whose children are all literal becomes one literal, so the plan stays small. */
function simplify(node: BodyNode): BodyNode {
  if (node.kind === "array" && node.items.every((i) => i.kind === "literal")) {
    return { kind: "literal", value: node.items.map((i) => (i as { value: JsonValue }).value) };
  }
  if (node.kind === "object" && node.entries.every(([, v]) => v.kind === "literal")) {
    const value: { [k: string]: JsonValue } = {};
    for (const [k, v] of node.entries)
      Object.defineProperty(value, k, {
        value: (v as { value: JsonValue }).value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return { kind: "literal", value };
  }
  return node;
}

function textOf(parts: readonly TemplatePart[]): string {
  return parts.map((p) => (p.kind === "text" ? p.text : "")).join("");
}

function parseUrl(
  source: string,
  template: Template,
  refOffsets: readonly number[],
  refLengths: readonly number[],
  at: SpecPath,
  opts: { allowInsecureHttp: boolean; sendsSecrets: boolean; devLoopbackHttp: boolean },
  out: Finding[],
): ParsedUrl | null {
  // The tokens below are told from the URL's own text by their spelling, so the text must not have it: each
  // reference is blanked out (same length, so offsets stay those of the source) and the rest searched.
  let literal = source;
  refOffsets.forEach((offset, n) => {
    const length = refLengths[n] ?? 0;
    literal = literal.slice(0, offset) + " ".repeat(length) + literal.slice(offset + length);
  });
  const reserved = RESERVED_TOKEN.exec(literal);
  if (reserved !== null) {
    out.push(report("KV3019", at, (m) => m.reserved, { offset: reserved.index, length: reserved[0].length }));
    return null;
  }
  // Each reference becomes a token the URL parser keeps as text, so the parsed URL shows where each one landed.
  const refs: TemplateRef[] = [];
  let tokenized = "";
  for (const part of template.parts) {
    if (part.kind === "text") tokenized += part.text;
    else {
      tokenized += TOKEN(refs.length);
      refs.push(part.ref);
    }
  }
  /** The source offset of the first reference whose token is in `text`. */
  const refIn = (text: string): { offset?: number } => {
    const match = /__kervan_template_(\d+)__/.exec(text);
    const offset = match ? refOffsets[Number(match[1])] : undefined;
    return offset === undefined ? {} : { offset };
  };
  let url: URL;
  try {
    url = new URL(tokenized);
  } catch {
    // A template in the port (`https://h:{{input.p}}/`) makes the URL unparsable; say what is really wrong.
    const authority = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#]*)/.exec(tokenized)?.[1] ?? "";
    if (authority.includes("__kervan_template_"))
      out.push(report("KV3009", at, (m) => m.templatedHost, refIn(authority)));
    else out.push(report("KV3005", at, (m) => m.notAbsolute));
    return null;
  }
  let ok = true;
  const fail = (f: Finding): void => {
    out.push(f);
    ok = false;
  };
  if (url.protocol !== "https:" && url.protocol !== "http:") fail(report("KV3006", at, (m) => m.scheme));
  if (url.protocol === "http:" && !(opts.devLoopbackHttp && isLoopbackHostname(url.hostname))) {
    if (opts.sendsSecrets && opts.allowInsecureHttp) {
      fail(report("KV4005", at, (m) => m.secretsOverHttp));
    } else if (opts.sendsSecrets) {
      fail(report("KV3007", at, (m) => m.secretsNeedHttps));
    } else if (!opts.allowInsecureHttp) {
      fail(report("KV3007", at, (m) => m.plainHttp));
    }
  }
  if (url.username !== "" || url.password !== "") {
    fail(report("KV3008", at, (m) => m.credentials));
  }
  if (url.host.includes("__kervan_template_")) fail(report("KV3009", at, (m) => m.templatedHost, refIn(url.host)));
  if (url.search.includes("__kervan_template_")) fail(report("KV3010", at, (m) => m.templatedQuery, refIn(url.search)));
  if (url.hash !== "") {
    const hash = source.indexOf("#");
    fail(report("KV3011", at, (m) => m.fragment, hash >= 0 ? { offset: hash } : {}));
  }
  if (!ok) return null;

  const parts: TemplatePart[] = [];
  const seen = new Set<number>();
  let last = 0;
  for (const match of url.pathname.matchAll(TOKEN_RE)) {
    if (match.index > last) parts.push({ kind: "text", text: url.pathname.slice(last, match.index) });
    const n = Number(match[1]);
    const ref = refs[n];
    // Each token was placed once, by the loop above; anything else did not come from it.
    if (ref === undefined || seen.has(n)) {
      fail(report("KV3019", at, (m) => m.reserved));
      return null;
    }
    seen.add(n);
    parts.push({ kind: "ref", ref });
    last = match.index + match[0].length;
  }
  if (last < url.pathname.length) parts.push({ kind: "text", text: url.pathname.slice(last) });
  refs.forEach((ref, n) => {
    if (!seen.has(n)) {
      const offset = refOffsets[n];
      fail(report("KV3017", at, (m) => m.dropped({ ref: refText(ref) }), offset === undefined ? {} : { offset }));
    }
  });
  if (!ok) return null;
  const port = url.port !== "" ? url.port : url.protocol === "http:" ? "80" : "443";
  return {
    protocol: url.protocol as "https:" | "http:",
    origin: url.origin,
    host: url.host,
    hostname: url.hostname,
    hostPort: `${url.hostname}:${port}`,
    path: { parts },
    search: url.search,
  };
}

export { refsOf };

/** localhost, 127.0.0.0/8 and [::1]: the hosts a development relaxation may reach over plain http. */
export function isLoopbackHostname(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return (
    host === "localhost" ||
    host.endsWith(".localhost") ||
    host === "[::1]" ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
  );
}

/** The request: URL rules, templates and their grammar, headers, query and body (KV3001 to KV3019, KV4005). */
export const requestRule: Rule<ToolContext> = {
  name: "request",
  codes: [
    "KV3001",
    "KV3002",
    "KV3005",
    "KV3006",
    "KV3007",
    "KV3008",
    "KV3009",
    "KV3010",
    "KV3011",
    "KV3012",
    "KV3013",
    "KV3014",
    "KV3015",
    "KV3016",
    "KV3017",
    "KV3019",
    "KV4005",
  ],
  check(ctx) {
    const { http } = ctx.tool;
    ctx.request = checkRequest(
      {
        method: http.method ?? "GET",
        url: http.url,
        ...(http.query !== undefined ? { query: http.query } : {}),
        ...(http.headers !== undefined ? { headers: http.headers } : {}),
        ...(http.body !== undefined ? { body: http.body } : {}),
        allowInsecureHttp: ctx.settings.allowInsecureHttp,
        devLoopbackHttp: ctx.spec.devLoopbackHttp,
      },
      [...ctx.at, "http"],
      ctx.spec.out,
      http.method !== undefined,
    );
  },
};
