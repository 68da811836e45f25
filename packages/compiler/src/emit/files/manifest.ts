/**
 * manifest.json: what a generated package is, in a form a reviewer reads in a pull request diff.
 *
 * It records where the package came from (kervanc version, spec file and its sha256), what it exposes (the
 * tools in spec order, with hashes of their published schemas), what it may reach (the egress list) and which
 * secrets it reads. It also covers the files that cannot carry a provenance comment (JSON). Incremental builds
 * read the provenance fields back (`readStamp`) to decide whether a package is up to date.
 *
 * Everything is plain JSON written with two-space indentation and a final newline; lists whose order is not
 * meaningful are sorted, so the same spec always gives the same bytes.
 */
import type { HttpMethod, OutputPlan, Template, ToolAnnotations } from "@kervanc/runtime";
import { type EgressRule, egressOf } from "../../plan/egress.ts";
import type { PlannedServer } from "../../plan/plan.ts";
import { CHARS_PER_TOKEN, listingSize, type ListingSize } from "../../plan/budget.ts";
import { canonicalJson, compareStrings, sha256 } from "../code/hash.ts";

/** Bumped when the manifest's structure changes incompatibly. */
export const MANIFEST_FORMAT = 2;

export interface ManifestTool {
  readonly name: string;
  readonly title: string | null;
  /** What the model reads: kept in full, since a changed description changes what the model is told. */
  readonly description: string;
  readonly annotations: ToolAnnotations;
  readonly method: HttpMethod;
  readonly origin: string;
  /** The URL as the spec writes it (path templates kept), without the query parameters. */
  readonly url: string;
  /** SHA-256 of the canonical JSON of the published input schema. */
  readonly inputSchemaSha256: string;
  /** SHA-256 of the canonical JSON of the published output schema, or null without one. */
  readonly outputSchemaSha256: string | null;
  readonly output: "structured" | "text" | "raw" | "binary";
  /** The binary-output extension: the largest binary answer returned. Absent: binary answers are refused. */
  readonly binaryMaxBytes?: number;
  /** Redirects this tool follows (the runtime follows none that leads outside `egress`). */
  readonly followRedirects: number;
  readonly limits: {
    readonly timeoutMs: number;
    readonly maxResponseBytes: number;
    readonly maxOutputChars: number;
    readonly allowInsecureHttp: boolean;
    readonly ratePerMinute: number;
    readonly concurrency: number;
  };
  /** The secrets this tool sends, sorted. */
  readonly secrets: readonly string[];
  /**
   * The schema profiles whose rewrite of this tool's input schema changed it, each with what changed (absent when
   * none did): what `--schema-profile NAME` advertises instead of the spec's schema.
   */
  readonly schemaProfiles?: Readonly<Record<string, readonly string[]>>;
  /** The error-detail extension's expression: part of the API's error answers reaches the model. Absent: none. */
  readonly errorDetail?: string;
  /** The upstream-auth extension's credentials this tool sends, sorted. Absent: none. */
  readonly credentials?: readonly string[];
}

/**
 * One upstream credential (kervanc extension upstream-auth), as a reviewer needs to see it: its kind, and for a
 * token the endpoint the server sends its client secret to, with what it asks for; for a caller header, the header.
 */
export type ManifestCredential =
  | {
      readonly name: string;
      readonly kind: "clientCredentials" | "tokenExchange";
      readonly tokenUrl: string;
      readonly clientAuth: "basic" | "body";
      readonly scopes: readonly string[];
      readonly audience: string | null;
      readonly resource: string | null;
      readonly secrets: readonly string[];
    }
  | { readonly name: string; readonly kind: "callerHeader"; readonly header: string };

export interface Manifest {
  readonly manifestFormat: number;
  readonly kervancVersion: string;
  /** The content identity of the kervanc that wrote the package (versions.ts): a changed kervanc rebuilds. */
  readonly kervancContentSha256: string;
  readonly spec: { readonly file: string; readonly sha256: string };
  readonly server: { readonly name: string; readonly version: string; readonly description?: string };
  /**
   * The size of the server's tools/list answer in characters (plan/budget.ts): what every conversation pays for,
   * and what an unchanged rebuild reports without analyzing the spec again.
   */
  readonly toolsListCharacters: number;
  readonly tools: readonly ManifestTool[];
  readonly egress: readonly EgressRule[];
  /** The declared secrets, sorted by name, with the hosts (hostname:port) each may be sent to, or null. */
  readonly secrets: readonly { readonly name: string; readonly hosts: readonly string[] | null }[];
  /** The upstream-auth extension's credentials, sorted by name. Absent for a spec without them. */
  readonly credentials?: readonly ManifestCredential[];
  /** The bundles and their SHA-256 (kept here rather than in the SBOM, which a spec change then leaves alone). */
  readonly bundles: readonly { readonly file: string; readonly sha256: string }[];
}

export interface Provenance {
  readonly kervancVersion: string;
  readonly kervancContentSha256: string;
  readonly specFile: string;
  readonly specSha256: string;
}

/** What `readStamp` reads back: the provenance, and the tools/list size the build measured (null if absent). */
export interface Stamp extends Provenance {
  readonly toolsList: ListingSize | null;
}

function profileChanges(tool: PlannedServer["tools"][number]): Pick<ManifestTool, "schemaProfiles"> {
  const entries = Object.entries(tool.profiles).map(([name, rewrite]) => [name, rewrite!.changes] as const);
  return entries.length === 0 ? {} : { schemaProfiles: Object.fromEntries(entries) };
}

export function buildManifest(
  server: PlannedServer,
  provenance: Provenance,
  bundles: readonly { readonly file: string; readonly sha256: string }[],
): Manifest {
  const tools = server.tools.map((tool): ManifestTool => {
    const { listing, request, output, limits, rateLimit, secrets } = tool.plan;
    return {
      name: listing.name,
      title: listing.title ?? null,
      description: listing.description,
      annotations: listing.annotations,
      method: request.method,
      origin: request.origin,
      url: `${request.origin}${templateText(request.path)}${request.search}`,
      inputSchemaSha256: sha256(canonicalJson(listing.inputSchema)),
      outputSchemaSha256: listing.outputSchema === undefined ? null : sha256(canonicalJson(listing.outputSchema)),
      output: outputMode(output),
      followRedirects: limits.followRedirects,
      limits: {
        timeoutMs: limits.timeoutMs,
        maxResponseBytes: limits.maxResponseBytes,
        maxOutputChars: output.maxOutputChars,
        allowInsecureHttp: limits.allowInsecureHttp,
        ratePerMinute: rateLimit.perMinute,
        concurrency: rateLimit.concurrency,
      },
      secrets: [...secrets].sort(compareStrings),
      ...profileChanges(tool),
      ...(tool.plan.errorDetail !== undefined ? { errorDetail: tool.plan.errorDetail.expression } : {}),
      ...(tool.plan.credentials !== undefined ? { credentials: tool.plan.credentials } : {}),
      ...(tool.plan.binary !== undefined ? { binaryMaxBytes: tool.plan.binary.maxBytes } : {}),
    };
  });
  const credentials = [...(server.plan.credentials ?? [])]
    .sort((a, b) => compareStrings(a.name, b.name))
    .map((c): ManifestCredential =>
      c.kind === "callerHeader"
        ? { name: c.name, kind: c.kind, header: c.header }
        : {
            name: c.name,
            kind: c.kind,
            tokenUrl: c.tokenUrl,
            clientAuth: c.clientAuth,
            scopes: c.scopes ?? [],
            audience: c.audience ?? null,
            resource: c.resource ?? null,
            secrets: c.secrets,
          },
    );
  const secrets = [...server.plan.secrets]
    .sort((a, b) => compareStrings(a.name, b.name))
    .map((s) => ({ name: s.name, hosts: s.hosts === undefined ? null : [...s.hosts].sort(compareStrings) }));
  return {
    manifestFormat: MANIFEST_FORMAT,
    kervancVersion: provenance.kervancVersion,
    kervancContentSha256: provenance.kervancContentSha256,
    spec: { file: provenance.specFile, sha256: provenance.specSha256 },
    server: {
      name: server.plan.name,
      version: server.plan.version,
      ...(server.plan.description !== undefined ? { description: server.plan.description } : {}),
    },
    toolsListCharacters: listingSize(server).characters,
    tools,
    egress: egressOf(server),
    secrets,
    ...(credentials.length > 0 ? { credentials } : {}),
    bundles: bundles.map((b) => ({ file: b.file, sha256: b.sha256 })),
  };
}

function outputMode(output: OutputPlan): ManifestTool["output"] {
  switch (output.kind) {
    case "raw":
      return "raw";
    case "select":
      return output.structured ? "structured" : "text";
    case "binary":
      return "binary";
    default:
      return unreachable(output);
  }
}

function unreachable(value: never): never {
  throw new Error(`Unexpected output plan ${JSON.stringify(value)}.`);
}

/** A template as the spec wrote it: text, `{{input.a.b}}` and `{{secrets.X}}`. */
export function templateText(template: Template): string {
  return template.parts
    .map((part) =>
      part.kind === "text"
        ? part.text
        : part.ref.kind === "input"
          ? `{{input.${part.ref.path.join(".")}}}`
          : part.ref.kind === "secret"
            ? `{{secrets.${part.ref.name}}}`
            : `{{credentials.${part.ref.name}}}`,
    )
    .join("");
}

export function manifestJson(manifest: Manifest): string {
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/** The JSON object a text holds, or null when it is not JSON or not an object (manifests on disk are untrusted). */
export function jsonObject(text: string): Record<string, unknown> | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

/**
 * The provenance recorded in a manifest on disk, or null when the text is not a manifest this version of
 * kervanc understands (then the package is rebuilt: being wrong here only costs a rebuild).
 */
export function readStamp(text: string): Stamp | null {
  const m = jsonObject(text);
  if (m === null) return null;
  const spec = m["spec"];
  if (
    m["manifestFormat"] !== MANIFEST_FORMAT ||
    typeof m["kervancVersion"] !== "string" ||
    typeof m["kervancContentSha256"] !== "string"
  )
    return null;
  if (spec === null || typeof spec !== "object" || Array.isArray(spec)) return null;
  const { file, sha256: hash } = spec as Record<string, unknown>;
  if (typeof file !== "string" || typeof hash !== "string") return null;
  const characters = m["toolsListCharacters"];
  const tools = m["tools"];
  const toolsList =
    typeof characters === "number" && Number.isSafeInteger(characters) && characters >= 0 && Array.isArray(tools)
      ? { tools: tools.length, characters, tokens: Math.ceil(characters / CHARS_PER_TOKEN) }
      : null;
  return {
    kervancVersion: m["kervancVersion"],
    kervancContentSha256: m["kervancContentSha256"],
    specFile: file,
    specSha256: hash,
    toolsList,
  };
}

/**
 * A manifest on disk, for comparing what a package exposes (`kervanc check`, `kervanc diff`): null when the text
 * is not a manifest of this format. Only the shape the comparison reads is checked.
 */
export function parseManifest(text: string): Manifest | null {
  const m = jsonObject(text);
  if (m === null) return null;
  const value: unknown = m;
  if (m["manifestFormat"] !== MANIFEST_FORMAT) return null;
  const isList = (v: unknown): v is unknown[] => Array.isArray(v);
  if (
    !isList(m["tools"]) ||
    !isList(m["egress"]) ||
    !isList(m["secrets"]) ||
    typeof m["server"] !== "object" ||
    m["server"] === null
  )
    return null;
  for (const t of m["tools"]) {
    if (
      t === null ||
      typeof t !== "object" ||
      typeof (t as ManifestTool).name !== "string" ||
      !isList((t as ManifestTool).secrets)
    )
      return null;
    if (
      typeof (t as ManifestTool).annotations !== "object" ||
      typeof (t as ManifestTool).limits !== "object" ||
      typeof (t as ManifestTool).origin !== "string"
    )
      return null;
  }
  return value as Manifest;
}
