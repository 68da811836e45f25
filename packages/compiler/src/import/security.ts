/**
 * Security schemes and requirements: which credentials an operation sends, as declared secrets.
 *
 * An operation's `security` (else the document's) lists alternatives; the first one a spec can express is
 * used. API keys (header, query, cookie) and http bearer become secrets; a scheme a spec cannot express is
 * reported once (KV7009) with the tools imported without it.
 */
import { HEADER_NAME, RESERVED_HEADERS as SPEC_RESERVED_HEADERS } from "../check/request.ts";
import { finding, type SpecPath } from "../diagnostics/diagnostic.ts";
import type { ImportContext, Operation } from "./context.ts";
import { NameSet, secretNameFrom } from "./names.ts";
import { ImportProblem, isPlainObject, own, put } from "./refs.ts";

/** Headers a spec may not set (the server manages them), and the one the importer sets itself. */
export const RESERVED_HEADERS = new Set([...SPEC_RESERVED_HEADERS, "content-type"]);

export type Credential =
  | { readonly kind: "header"; readonly name: string; readonly prefix: string }
  | { readonly kind: "query"; readonly name: string }
  | { readonly kind: "cookie"; readonly name: string };

type SchemeInfo = { readonly ok: true; readonly credential: Credential; readonly at: SpecPath } | { readonly ok: false; readonly what: string; readonly at: SpecPath };

export interface Auth {
  readonly credentials: readonly { readonly credential: Credential; readonly secret: string }[];
  /** Schemes of the requirement that a spec cannot express (the tool is imported without them). */
  readonly unsupported: readonly string[];
}

export class Security {
  readonly #ctx: ImportContext;
  readonly #secretNames = new Map<string, string>();
  readonly #secretNameSet = new NameSet();
  readonly #schemes = new Map<string, SchemeInfo | null>();
  /** Unsupported schemes, with the tools imported without them. */
  readonly #unsupported = new Map<string, { info: Extract<SchemeInfo, { ok: false }>; tools: string[] }>();

  constructor(ctx: ImportContext) {
    this.#ctx = ctx;
  }

  /** The credentials an operation sends: the first alternative of its security requirement that a spec can express. */
  auth(operation: Operation): Auth {
    const own_ = operation.op["security"];
    const requirement = own_ !== undefined ? own_ : this.#ctx.root["security"];
    const requirementAt: SpecPath = own_ !== undefined ? [...operation.at, "security"] : ["security"];
    const none = { credentials: [], unsupported: [] };
    if (requirement === undefined || requirement === null) return none;
    if (!Array.isArray(requirement)) throw new ImportProblem("KV7003", requirementAt, "security must be a list of security requirements.");
    if (requirement.length === 0) return none;
    let optional = false;
    let firstUnsupported: string[] | null = null;
    for (const alternative of requirement) {
      if (!isPlainObject(alternative)) continue;
      const names = Object.keys(alternative);
      if (names.length === 0) {
        optional = true;
        continue;
      }
      const infos = names.map((n) => [n, this.#scheme(n, requirementAt)] as const);
      if (infos.every(([, info]) => info?.ok === true)) {
        return { credentials: infos.map(([n, info]) => ({ credential: (info as Extract<SchemeInfo, { ok: true }>).credential, secret: this.#secretName(n) })), unsupported: [] };
      }
      firstUnsupported ??= infos.filter(([, info]) => info?.ok !== true).map(([n]) => n);
    }
    // An empty alternative ({}) means the operation also works without credentials: nothing is missing.
    return { credentials: [], unsupported: optional || firstUnsupported === null ? [] : firstUnsupported };
  }

  /** Records that a tool was imported without the credentials of schemes a spec cannot express. */
  withoutAuth(schemes: readonly string[], toolName: string): void {
    for (const name of schemes) {
      const info = this.#schemes.get(name);
      if (info === undefined || info === null || info.ok) continue;
      const entry = this.#unsupported.get(name) ?? { info, tools: [] };
      entry.tools.push(toolName);
      this.#unsupported.set(name, entry);
    }
  }

  /** One KV7009 per scheme a spec cannot express, naming the tools imported without it. */
  reportUnsupported(): void {
    for (const [name, { info, tools }] of this.#unsupported) {
      const list = tools.length <= 5 ? tools.join(", ") : `${tools.slice(0, 5).join(", ")} and ${tools.length - 5} more`;
      const subject = tools.length === 1 ? `${list} is` : `${tools.length} operations (${list}) are`;
      this.#ctx.report(
        finding("KV7009", info.at, `The security scheme "${name}" (${info.what}) is not supported; ${subject} imported without authentication. Add a header with {{secrets.NAME}} by hand if it needs one.`, {
          atKey: true,
        }),
      );
    }
  }

  #scheme(name: string, requirementAt: SpecPath): SchemeInfo | null {
    if (this.#schemes.has(name)) return this.#schemes.get(name)!;
    const at: SpecPath = ["components", "securitySchemes", name];
    const raw = own(own(this.#ctx.root["components"], "securitySchemes"), name);
    let info: SchemeInfo | null;
    if (raw === undefined) {
      this.#ctx.report(finding("KV7003", requirementAt, `The security scheme "${name}" is not declared in components.securitySchemes.`));
      info = null;
    } else {
      const { value, path } = this.#ctx.resolver.deref(raw, at);
      info = schemeInfo(value, path);
    }
    this.#schemes.set(name, info);
    return info;
  }

  #secretName(scheme: string): string {
    let name = this.#secretNames.get(scheme);
    if (name === undefined) {
      name = this.#secretNameSet.take(secretNameFrom(scheme));
      this.#secretNames.set(scheme, name);
    }
    return name;
  }
}

/** What one security scheme object means for a spec. */
function schemeInfo(value: unknown, path: SpecPath): SchemeInfo {
  const type = own(value, "type");
  if (type === "apiKey") {
    const keyName = own(value, "name");
    const location = own(value, "in");
    if (typeof keyName !== "string" || keyName === "") return { ok: false, what: "apiKey without a name", at: path };
    if (location === "header") {
      return HEADER_NAME.test(keyName) && !RESERVED_HEADERS.has(keyName.toLowerCase())
        ? { ok: true, credential: { kind: "header", name: keyName, prefix: "" }, at: path }
        : { ok: false, what: `apiKey in the header "${keyName}", which a spec cannot set`, at: path };
    }
    if (location === "query") {
      return keyName.includes("{{") ? { ok: false, what: "apiKey with a templated query name", at: path } : { ok: true, credential: { kind: "query", name: keyName }, at: path };
    }
    if (location === "cookie") {
      return /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(keyName) ? { ok: true, credential: { kind: "cookie", name: keyName }, at: path } : { ok: false, what: "apiKey in a cookie with an unusual name", at: path };
    }
    return { ok: false, what: 'apiKey without a valid "in"', at: path };
  }
  if (type === "http") {
    const scheme = String(own(value, "scheme") ?? "").toLowerCase();
    return scheme === "bearer" ? { ok: true, credential: { kind: "header", name: "Authorization", prefix: "Bearer " }, at: path } : { ok: false, what: `http ${scheme || "(no scheme)"}`, at: path };
  }
  return { ok: false, what: typeof type === "string" ? type : "(no type)", at: path };
}

/** The places credentials arrive at, as `kind:name` (cookies aside): parameters there are not the model's to fill. */
export function credentialPlaces(auth: Auth): Set<string> {
  return new Set(auth.credentials.flatMap((a) => (a.credential.kind === "cookie" ? [] : [`${a.credential.kind}:${a.credential.name.toLowerCase()}`])));
}

/** Writes the credentials into the request's query and headers as `{{secrets.X}}` templates. */
export function applyCredentials(auth: Auth, query: Record<string, unknown>, headers: Record<string, unknown>): void {
  for (const a of auth.credentials) {
    const template = `{{secrets.${a.secret}}}`;
    if (a.credential.kind === "query") put(query, a.credential.name, template);
    else if (a.credential.kind === "header") put(headers, a.credential.name, `${a.credential.prefix}${template}`);
  }
  const cookies = auth.credentials.filter((a) => a.credential.kind === "cookie").map((a) => `${a.credential.name}={{secrets.${a.secret}}}`);
  if (cookies.length > 0) headers["Cookie"] = cookies.join("; ");
}
