/**
 * The spec's `credentials` (kervanc extension upstream-auth, docs/extensions/upstream-auth.md), checked and put in
 * plan form: token endpoints that are https URLs, client ids and secrets made of literal text and declared secrets
 * (a client secret never literal), and caller headers that are not the client's own credentials or the protocol's.
 * The references to credentials in the tools' templates are checked where the tools are (rules/references.ts).
 */
import type { CredentialPlan, Template } from "@kervanc/runtime";
import { type Finding, report, type SpecPath } from "../../diagnostics/diagnostic.ts";
import { HEADER_NAME, isLoopbackHostname } from "./request.ts";
import { CREDENTIAL_NAME, type SpecFile } from "../spec-format.ts";
import { closest } from "../suggest.ts";
import { parseTemplate, refText } from "../templates.ts";
import type { Rule, SpecContext } from "./context.ts";

/** A spec declares at most this many credentials. */
export const MAX_CREDENTIALS = 32;

/**
 * Caller headers that are refused, with why. The client's own credentials to this server, the proxy's, the
 * protocol's (MCP's own headers, the connection's), and what the server writes itself.
 */
/** Headers a callerHeader may not name, each with the KV8014 message that says why. */
const FORBIDDEN_CALLER_HEADERS: readonly [
  RegExp,
  "clientCredentials" | "proxyHeader" | "mcpHeader" | "requestHeader",
][] = [
  [/^(?:authorization|cookie)$/i, "clientCredentials"],
  [/^proxy-/i, "proxyHeader"],
  [/^mcp-/i, "mcpHeader"],
  [
    /^(?:host|connection|keep-alive|upgrade|te|trailer|transfer-encoding|content-length|content-type|content-encoding|expect|forwarded|via|x-forwarded-[a-z-]+|x-real-ip|origin|referer|traceparent|tracestate|last-event-id|accept|accept-encoding)$/i,
    "requestHeader",
  ],
];

export interface CheckedCredentials {
  readonly plans: readonly CredentialPlan[];
  /** Where each credential is declared (`credentials.<name>`). */
  readonly paths: ReadonlyMap<string, SpecPath>;
  /** The declared secrets the credentials use. */
  readonly secrets: ReadonlySet<string>;
}

export function checkCredentials(
  spec: SpecFile,
  bindings: ReadonlyMap<string, readonly string[] | undefined>,
  out: Finding[],
  devLoopbackHttp: boolean,
): CheckedCredentials {
  const plans: CredentialPlan[] = [];
  const paths = new Map<string, SpecPath>();
  const secrets = new Set<string>();
  const entries = Object.entries(spec.credentials ?? {});
  if (entries.length > MAX_CREDENTIALS)
    out.push(report("KV8010", ["credentials"], (m) => m.tooMany({ max: MAX_CREDENTIALS }), { atKey: true }));
  for (const [name, entry] of entries) {
    const at: SpecPath = ["credentials", name];
    if (!new RegExp(CREDENTIAL_NAME).test(name)) {
      out.push(report("KV8010", at, (m) => m.name({ name: JSON.stringify(name) }), { atKey: true }));
      continue;
    }
    paths.set(name, at);
    if ("callerHeader" in entry) {
      const header = entry.callerHeader;
      const where = [...at, "callerHeader"];
      if (!HEADER_NAME.test(header)) {
        out.push(report("KV8014", where, (m) => m.invalid({ name: JSON.stringify(header) })));
        continue;
      }
      const forbidden = FORBIDDEN_CALLER_HEADERS.find(([pattern]) => pattern.test(header));
      if (forbidden !== undefined) {
        const message = forbidden[1];
        out.push(report("KV8014", where, (m) => m[message]({ name: header })));
        continue;
      }
      plans.push({ name, kind: "callerHeader", header: header.toLowerCase() });
      continue;
    }
    const kind = "oauth2ClientCredentials" in entry ? "clientCredentials" : "tokenExchange";
    const fields = "oauth2ClientCredentials" in entry ? entry.oauth2ClientCredentials : entry.tokenExchange;
    const fieldsAt: SpecPath = [
      ...at,
      "oauth2ClientCredentials" in entry ? "oauth2ClientCredentials" : "tokenExchange",
    ];
    const endpoint = tokenEndpoint(fields.tokenUrl, [...fieldsAt, "tokenUrl"], out, devLoopbackHttp);
    const used = new Set<string>();
    const clientId = clientText(fields.clientId, [...fieldsAt, "clientId"], bindings, used, out);
    const clientSecret = clientText(fields.clientSecret, [...fieldsAt, "clientSecret"], bindings, used, out);
    if (clientSecret !== null && !clientSecret.parts.some((part) => part.kind === "ref"))
      out.push(report("KV8013", [...fieldsAt, "clientSecret"], (m) => m.literalSecret));
    if (fields.resource !== undefined && !absoluteUri(fields.resource))
      out.push(report("KV8012", [...fieldsAt, "resource"], (m) => m.resource));
    for (const secret of used) secrets.add(secret);
    if (endpoint === null || clientId === null || clientSecret === null) continue;
    for (const secret of used) {
      const hosts = bindings.get(secret);
      if (hosts !== undefined && hosts.length > 0 && !hosts.includes(endpoint.hostPort))
        out.push(
          report("KV8013", [...fieldsAt, "tokenUrl"], (m) =>
            m.otherHost({ name: secret, hosts: hosts.join(", "), host: endpoint.hostPort }),
          ),
        );
    }
    plans.push({
      name,
      kind,
      tokenUrl: endpoint.url,
      protocol: endpoint.protocol,
      hostPort: endpoint.hostPort,
      clientId,
      clientSecret,
      clientAuth: fields.clientAuth === "body" ? "body" : "basic",
      ...(fields.scopes !== undefined && fields.scopes.length > 0 ? { scopes: [...new Set(fields.scopes)] } : {}),
      ...(fields.audience !== undefined ? { audience: fields.audience } : {}),
      ...(fields.resource !== undefined ? { resource: fields.resource } : {}),
      secrets: [...used].sort(),
    });
  }
  return { plans, paths, secrets };
}

/** The host a token credential's audience or resource names, for the KV8015 check; null when neither is a URL. */
export function intendedHost(plan: CredentialPlan): { host: string; what: string } | null {
  if (plan.kind === "callerHeader") return null;
  for (const [what, value] of [
    ["audience", plan.audience],
    ["resource", plan.resource],
  ] as const) {
    if (value === undefined) continue;
    try {
      const url = new URL(value);
      if (url.protocol === "https:" || url.protocol === "http:") return { host: url.hostname, what };
    } catch {
      // An audience that is a name, not a URL (`crm-api`), says nothing about hosts.
    }
  }
  return null;
}

function tokenEndpoint(
  source: string,
  at: SpecPath,
  out: Finding[],
  devLoopbackHttp: boolean,
): { url: string; protocol: "https:" | "http:"; hostPort: string } | null {
  if (source.includes("{{")) {
    out.push(report("KV8012", at, (m) => m.templated));
    return null;
  }
  let url: URL;
  try {
    url = new URL(source);
  } catch {
    out.push(report("KV8012", at, (m) => m.notUrl));
    return null;
  }
  const loopbackHttp = url.protocol === "http:" && devLoopbackHttp && isLoopbackHostname(url.hostname);
  if (url.protocol !== "https:" && !loopbackHttp) {
    out.push(report("KV8012", at, (m) => m.https));
    return null;
  }
  if (url.username !== "" || url.password !== "") {
    out.push(report("KV8012", at, (m) => m.userinfo));
    return null;
  }
  if (url.hash !== "" || source.includes("#")) {
    out.push(report("KV8012", at, (m) => m.fragment));
    return null;
  }
  const port = url.port !== "" ? url.port : url.protocol === "http:" ? "80" : "443";
  return { url: url.href, protocol: url.protocol as "https:" | "http:", hostPort: `${url.hostname}:${port}` };
}

/** A client id or secret: literal text and declared secrets only. */
function clientText(
  source: string,
  at: SpecPath,
  bindings: ReadonlyMap<string, readonly string[] | undefined>,
  used: Set<string>,
  out: Finding[],
): Template | null {
  const parsed = parseTemplate(source);
  if (!parsed.ok) {
    out.push({ ...parsed.finding, path: at });
    return null;
  }
  let ok = true;
  parsed.template.parts.forEach((part) => {
    if (part.kind !== "ref") return;
    const n = parsed.template.parts.filter((p) => p.kind === "ref").indexOf(part);
    const where = { offset: parsed.refOffsets[n]!, length: parsed.refLengths[n]! };
    const ref = part.ref;
    if (ref.kind !== "secret") {
      out.push(report("KV8013", at, (m) => m.onlySecrets({ ref: refText(ref) }), where));
      ok = false;
      return;
    }
    if (!bindings.has(ref.name)) {
      const close = closest(ref.name, [...bindings.keys()]);
      out.push(
        report(
          "KV8013",
          at,
          (m) =>
            close !== undefined
              ? m.undeclaredMeant({ ref: refText(ref), meant: `{{secrets.${close}}}` })
              : m.undeclared({ ref: refText(ref) }),
          where,
        ),
      );
      ok = false;
      return;
    }
    used.add(ref.name);
  });
  return ok ? parsed.template : null;
}

function absoluteUri(value: string): boolean {
  try {
    return new URL(value).hash === "" && !value.includes("#");
  } catch {
    return false;
  }
}

export const credentialsRule: Rule<SpecContext> = {
  name: "credentials",
  codes: ["KV8010", "KV8012", "KV8013", "KV8014"],
  check(ctx) {
    const checked = checkCredentials(ctx.spec, ctx.secrets.bindings, ctx.out, ctx.devLoopbackHttp);
    for (const name of checked.secrets) ctx.used.secrets.add(name);
    ctx.credentials = {
      plans: new Map(checked.plans.map((plan) => [plan.name, plan])),
      paths: checked.paths,
      extension: (ctx.spec.kervancExtensions ?? []).includes("upstream-auth"),
    };
  },
};
