/**
 * Security schemes and requirements: which credentials an operation sends, as declared secrets.
 *
 * An operation's `security` (else the document's) lists alternatives; the first one a spec can express is
 * used. Each scheme becomes one declared secret, bound to the hosts of the tools that send it:
 * - apiKey in a header, the query or a cookie: the key itself, where the scheme says;
 * - http bearer, oauth2 and openIdConnect: `Authorization: Bearer <secret>`, the secret holding the access token
 *   (the server runs no OAuth flow: the token is obtained outside, as for any bearer token);
 * - http basic: `Authorization: Basic <secret>`, the secret holding the encoded pair (base64 of `user:password`),
 *   since a template cannot encode.
 * A scheme a spec cannot express (digest, mutualTLS, ...) is reported once (KV7009) with the tools imported
 * without it.
 */
import { HEADER_NAME, RESERVED_HEADERS as SPEC_RESERVED_HEADERS } from "../analyze/rules/request.ts";
import { report, type SpecPath } from "../diagnostics/diagnostic.ts";
import type { ImportContext, Operation } from "./context.ts";
import { NameSet, secretNameFrom } from "./names.ts";
import { ImportProblem, isPlainObject, own, put } from "./refs.ts";

/** Headers a spec may not set (the server manages them), and the one the importer sets itself. */
export const RESERVED_HEADERS = new Set([...SPEC_RESERVED_HEADERS, "content-type"]);

export type Credential =
  | { readonly kind: "header"; readonly name: string; readonly prefix: string }
  | { readonly kind: "query"; readonly name: string }
  | { readonly kind: "cookie"; readonly name: string };

/** What the secret of a scheme holds, for the comment written above it in the spec. */
export type SecretKind = "api key" | "access token" | "basic pair";

type SchemeInfo =
  | {
      readonly ok: true;
      readonly credential: Credential;
      readonly kind: SecretKind;
      readonly at: SpecPath;
      /** An oauth2 scheme's client-credentials flow: its tokenUrl as written (kervanc import --upstream-auth). */
      readonly tokenUrl?: string;
    }
  | { readonly ok: false; readonly what: string; readonly at: SpecPath };

/** A scheme's OAuth client-credentials flow, as one operation asks for it. */
export interface ClientCredentialsFlow {
  readonly scheme: string;
  readonly tokenUrl: string;
  /** The scopes the operation's requirement names for the scheme. */
  readonly scopes: readonly string[];
}

export interface Auth {
  readonly credentials: readonly {
    readonly credential: Credential;
    readonly secret: string;
    readonly kind: SecretKind;
    /** Present when the scheme has a client-credentials flow (upstream-auth.ts may turn it into a credential). */
    readonly flow?: ClientCredentialsFlow;
  }[];
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
    if (!Array.isArray(requirement)) throw new ImportProblem(report("KV7003", requirementAt, (m) => m.securityNotList));
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
        return {
          credentials: infos.map(([n, info]) => {
            const ok = info as Extract<SchemeInfo, { ok: true }>;
            const scopes = (alternative as Record<string, unknown>)[n];
            const flow =
              ok.tokenUrl !== undefined
                ? {
                    scheme: n,
                    tokenUrl: ok.tokenUrl,
                    scopes: Array.isArray(scopes) ? scopes.filter((s): s is string => typeof s === "string") : [],
                  }
                : undefined;
            return {
              credential: ok.credential,
              kind: ok.kind,
              secret: this.secretName(`scheme:${n}`, n),
              ...(flow !== undefined ? { flow } : {}),
            };
          }),
          unsupported: [],
        };
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
      const { what } = info;
      const count = tools.length;
      this.#ctx.report(
        report(
          "KV7009",
          info.at,
          (m) =>
            count === 1
              ? m.unsupportedScheme({ name, what, tool: tools[0]! })
              : count <= 5
                ? m.unsupportedSchemeMany({ name, what, count, tools: tools.join(", ") })
                : m.unsupportedSchemeMore({ name, what, count, tools: tools.slice(0, 5).join(", "), more: count - 5 }),
          { atKey: true },
        ),
      );
    }
  }

  #scheme(name: string, requirementAt: SpecPath): SchemeInfo | null {
    if (this.#schemes.has(name)) return this.#schemes.get(name)!;
    const at: SpecPath = ["components", "securitySchemes", name];
    const raw = own(own(this.#ctx.root["components"], "securitySchemes"), name);
    let info: SchemeInfo | null;
    if (raw === undefined) {
      this.#ctx.report(report("KV7003", requirementAt, (m) => m.undeclaredScheme({ name })));
      info = null;
    } else {
      const { value, path } = this.#ctx.resolver.deref(raw, at);
      info = schemeInfo(value, path);
    }
    this.#schemes.set(name, info);
    return info;
  }

  /** The secret for a key (a scheme, or a credential parameter's place), named from `base` and unique. */
  secretName(key: string, base: string): string {
    let name = this.#secretNames.get(key);
    if (name === undefined) {
      name = this.#secretNameSet.take(secretNameFrom(base));
      this.#secretNames.set(key, name);
    }
    return name;
  }

  /** Whether the document declares any security scheme or requirement (if not, the import says so once). */
  declaresAny(): boolean {
    const schemes = own(this.#ctx.root["components"], "securitySchemes");
    return (
      (isPlainObject(schemes) && Object.keys(schemes).length > 0) ||
      (Array.isArray(this.#ctx.root["security"]) && this.#ctx.root["security"].length > 0)
    );
  }
}

const BEARER: Credential = { kind: "header", name: "Authorization", prefix: "Bearer " };

/** What one security scheme object means for a spec. */
function schemeInfo(value: unknown, path: SpecPath): SchemeInfo {
  const type = own(value, "type");
  if (type === "apiKey") {
    const keyName = own(value, "name");
    const location = own(value, "in");
    if (typeof keyName !== "string" || keyName === "") return { ok: false, what: "apiKey without a name", at: path };
    if (location === "header") {
      return HEADER_NAME.test(keyName) && !RESERVED_HEADERS.has(keyName.toLowerCase())
        ? { ok: true, credential: { kind: "header", name: keyName, prefix: "" }, kind: "api key", at: path }
        : { ok: false, what: `apiKey in the header "${keyName}", which a spec cannot set`, at: path };
    }
    if (location === "query") {
      return keyName.includes("{{")
        ? { ok: false, what: "apiKey with a templated query name", at: path }
        : { ok: true, credential: { kind: "query", name: keyName }, kind: "api key", at: path };
    }
    if (location === "cookie") {
      return /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(keyName)
        ? { ok: true, credential: { kind: "cookie", name: keyName }, kind: "api key", at: path }
        : { ok: false, what: "apiKey in a cookie with an unusual name", at: path };
    }
    return { ok: false, what: 'apiKey without a valid "in"', at: path };
  }
  if (type === "http") {
    const scheme = String(own(value, "scheme") ?? "").toLowerCase();
    if (scheme === "bearer") return { ok: true, credential: BEARER, kind: "access token", at: path };
    if (scheme === "basic")
      return {
        ok: true,
        credential: { kind: "header", name: "Authorization", prefix: "Basic " },
        kind: "basic pair",
        at: path,
      };
    return { ok: false, what: `http ${scheme || "(no scheme)"}`, at: path };
  }
  // OAuth 2 and OpenID Connect both end in a bearer access token on each request; obtaining it is outside, unless
  // the scheme has a client-credentials flow and the import was asked for upstream-auth credentials.
  if (type === "oauth2" || type === "openIdConnect") {
    const tokenUrl = own(own(own(value, "flows"), "clientCredentials"), "tokenUrl");
    return {
      ok: true,
      credential: BEARER,
      kind: "access token",
      at: path,
      ...(type === "oauth2" && typeof tokenUrl === "string" && tokenUrl !== "" ? { tokenUrl } : {}),
    };
  }
  return { ok: false, what: typeof type === "string" ? type : "(no type)", at: path };
}

/** The places credentials arrive at, as `kind:name` (cookies aside): parameters there are not the model's to fill. */
export function credentialPlaces(auth: Auth): Set<string> {
  return new Set(
    auth.credentials.flatMap((a) =>
      a.credential.kind === "cookie" ? [] : [`${a.credential.kind}:${a.credential.name.toLowerCase()}`],
    ),
  );
}

/** Writes the credentials into the request's query and headers as `{{secrets.X}}` templates. */
export function applyCredentials(auth: Auth, query: Record<string, unknown>, headers: Record<string, unknown>): void {
  for (const a of auth.credentials) {
    const template = `{{secrets.${a.secret}}}`;
    if (a.credential.kind === "query") put(query, a.credential.name, template);
    else if (a.credential.kind === "header") put(headers, a.credential.name, `${a.credential.prefix}${template}`);
  }
  const cookies = auth.credentials
    .filter((a) => a.credential.kind === "cookie")
    .map((a) => `${a.credential.name}={{secrets.${a.secret}}}`);
  if (cookies.length > 0) headers["Cookie"] = cookies.join("; ");
}

/** Parameter names that are credentials wherever they appear (compared without case, `-` and `_`). */
const CREDENTIAL_NAMES = new Set([
  "token",
  "key",
  "apikey",
  "apitoken",
  "accesstoken",
  "authtoken",
  // OAuth 1 and some OAuth 2 APIs take the user's token in the query (Trello, Mastodon's streaming, Discogs).
  "oauthtoken",
  "xapikey",
  "xapitoken",
  "xauthtoken",
  "xaccesstoken",
  "privatetoken",
  "clientsecret",
  "secret",
  "secretkey",
  "subscriptionkey",
  "ocpapimsubscriptionkey",
]);
/** A description that says the value is a credential (for names that could be either, such as `X-Key`). */
const CREDENTIAL_DESCRIPTION =
  /\b(api[ -]?key|access[ -]token|oauth[ -]token|auth(entication|orization)?[ -]token|bearer|credential|client secret|secret key)s?\b/i;

/**
 * Whether a query or header parameter carries a credential: its name says so (`token`, `api_key`, `X-Api-Key`),
 * or its name holds `key`, `token` or `secret` and its description speaks of API keys, tokens or credentials.
 * Such values must not come from the model (it would have to be given the secret to fill them in).
 */
export function isCredentialParameter(name: string, description: string | undefined): boolean {
  const folded = name.toLowerCase().replace(/[-_ ]/g, "");
  // `key` is an API key (Google's `?key=`) unless its description says what else it is the key of (Jira's
  // preferences: "The key of the preference."); such a parameter is the model's to fill in, and required.
  if (folded === "key" && description !== undefined && !CREDENTIAL_DESCRIPTION.test(description))
    if (/\b(the|a|an) key of\b|\bkey of the\b/i.test(description)) return false;
  if (CREDENTIAL_NAMES.has(folded)) return true;
  return (
    /key|token|secret/.test(folded) &&
    !/page|cursor|next|continuation|idempotency|sync/.test(folded) &&
    description !== undefined &&
    CREDENTIAL_DESCRIPTION.test(description)
  );
}
