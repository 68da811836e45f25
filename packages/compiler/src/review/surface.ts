/**
 * What a change to a generated package does to what the model can call, where the server can reach and which
 * secrets go where: the comparison of two manifests (the committed one and the one a build writes, or two
 * output folders' for `kervanc diff`). Changes that widen what the server can do are marked as security
 * relevant, so a reviewer sees them before the file-level detail.
 */
import type { Manifest, ManifestTool } from "../emit/files/manifest.ts";

export type ChangeKind =
  | "tool-added"
  | "tool-removed"
  | "tool-changed"
  | "egress-added"
  | "egress-removed"
  | "secret-added"
  | "secret-removed"
  | "secret-hosts"
  | "credential-added"
  | "credential-removed"
  | "credential-changed"
  | "server";

export interface SurfaceChange {
  readonly kind: ChangeKind;
  /** The tool concerned (tool changes), the host (egress) or the secret (secrets). */
  readonly subject: string;
  /** For changed tools and the server: which field. */
  readonly field: string | null;
  readonly before: unknown;
  readonly after: unknown;
  /** Widens what the server may do: a new host, a secret sent somewhere new, destructive, raw, redirects. */
  readonly security: boolean;
  /** One line a reviewer reads. */
  readonly summary: string;
}

/** Compares two manifests; `before` null is a new package, `after` null a removed one. */
export function compareManifests(before: Manifest | null, after: Manifest | null): SurfaceChange[] {
  const changes: SurfaceChange[] = [];
  const b = before ?? emptyManifest();
  const a = after ?? emptyManifest();
  for (const field of ["name", "version"] as const) {
    if (before !== null && after !== null && b.server[field] !== a.server[field]) {
      changes.push(
        change(
          "server",
          "server",
          field,
          b.server[field],
          a.server[field],
          false,
          `server ${field}: ${show(b.server[field])} → ${show(a.server[field])}`,
        ),
      );
    }
  }
  const oldTools = new Map(b.tools.map((t) => [t.name, t]));
  const newTools = new Map(a.tools.map((t) => [t.name, t]));
  for (const tool of b.tools) {
    if (!newTools.has(tool.name))
      changes.push(change("tool-removed", tool.name, null, tool, null, false, `tool ${tool.name} removed`));
  }
  for (const tool of a.tools) {
    const old = oldTools.get(tool.name);
    if (old === undefined) {
      const risky =
        tool.annotations.destructiveHint === true ||
        tool.output === "raw" ||
        tool.errorDetail !== undefined ||
        tool.followRedirects > 0 ||
        tool.secrets.length > 0 ||
        (tool.credentials ?? []).length > 0;
      const what = [
        `${tool.method} ${tool.url}`,
        ...(tool.secrets.length > 0 ? [`sends ${tool.secrets.join(", ")}`] : []),
        ...((tool.credentials ?? []).length > 0 ? [`sends credentials ${tool.credentials!.join(", ")}`] : []),
        ...(tool.schemaProfiles !== undefined ? [`input schema rewritten for ${profileList(tool)}`] : []),
      ].join(", ");
      changes.push(change("tool-added", tool.name, null, null, tool, risky, `tool ${tool.name} added: ${what}`));
      continue;
    }
    changes.push(...compareTools(old, tool));
  }
  const host = (e: Manifest["egress"][number]): string => `${e.scheme}://${e.host}:${e.port}`;
  const oldHosts = new Map(b.egress.map((e) => [host(e), e]));
  const newHosts = new Map(a.egress.map((e) => [host(e), e]));
  for (const [key, e] of newHosts) {
    if (!oldHosts.has(key))
      changes.push(change("egress-added", key, null, null, e, true, `egress added: ${key} (${e.methods.join(", ")})`));
    else if (oldHosts.get(key)!.methods.join() !== e.methods.join()) {
      const widened = e.methods.some((m) => !oldHosts.get(key)!.methods.includes(m));
      changes.push(
        change(
          "egress-added",
          key,
          "methods",
          oldHosts.get(key)!.methods,
          e.methods,
          widened,
          `egress ${key} methods: ${oldHosts.get(key)!.methods.join(", ")} → ${e.methods.join(", ")}`,
        ),
      );
    }
  }
  for (const [key, e] of oldHosts)
    if (!newHosts.has(key)) changes.push(change("egress-removed", key, null, e, null, false, `egress removed: ${key}`));
  const oldSecrets = new Map(b.secrets.map((s) => [s.name, s]));
  const newSecrets = new Map(a.secrets.map((s) => [s.name, s]));
  for (const [name, s] of newSecrets) {
    const old = oldSecrets.get(name);
    if (old === undefined) {
      changes.push(
        change("secret-added", name, null, null, s.hosts, true, `secret ${name} added, sent to ${hostsText(s.hosts)}`),
      );
    } else if (JSON.stringify(old.hosts) !== JSON.stringify(s.hosts)) {
      const widened = s.hosts === null || (old.hosts !== null && s.hosts.some((h) => !old.hosts!.includes(h)));
      changes.push(
        change(
          "secret-hosts",
          name,
          "hosts",
          old.hosts,
          s.hosts,
          widened,
          `secret ${name} hosts: ${hostsText(old.hosts)} → ${hostsText(s.hosts)}`,
        ),
      );
    }
  }
  for (const [name] of oldSecrets)
    if (!newSecrets.has(name))
      changes.push(change("secret-removed", name, null, null, null, false, `secret ${name} removed`));
  changes.push(...compareCredentials(b.credentials ?? [], a.credentials ?? []));
  return changes;
}

/**
 * The upstream-auth extension's credentials. A new credential, or a changed token endpoint, scope, audience or
 * caller header, changes who the server signs in as or where it sends a client secret: security relevant.
 */
function compareCredentials(
  before: NonNullable<Manifest["credentials"]>,
  after: NonNullable<Manifest["credentials"]>,
): SurfaceChange[] {
  const changes: SurfaceChange[] = [];
  const describe = (c: NonNullable<Manifest["credentials"]>[number]): string =>
    c.kind === "callerHeader"
      ? `the caller's ${c.header} header`
      : `${c.kind === "clientCredentials" ? "OAuth client credentials" : "token exchange"} at ${c.tokenUrl}${c.scopes.length > 0 ? ` (scopes ${c.scopes.join(" ")})` : ""}`;
  const old = new Map(before.map((c) => [c.name, c]));
  const now = new Map(after.map((c) => [c.name, c]));
  for (const [name, c] of now) {
    const was = old.get(name);
    if (was === undefined)
      changes.push(change("credential-added", name, null, null, c, true, `credential ${name} added: ${describe(c)}`));
    else if (JSON.stringify(was) !== JSON.stringify(c))
      changes.push(
        change("credential-changed", name, null, was, c, true, `credential ${name}: ${describe(was)} → ${describe(c)}`),
      );
  }
  for (const [name, c] of old)
    if (!now.has(name))
      changes.push(change("credential-removed", name, null, c, null, false, `credential ${name} removed`));
  return changes;
}

function compareTools(old: ManifestTool, tool: ManifestTool): SurfaceChange[] {
  const out: SurfaceChange[] = [];
  const push = (field: string, before: unknown, after: unknown, security: boolean, summary: string): void => {
    out.push(change("tool-changed", tool.name, field, before, after, security, `tool ${tool.name}: ${summary}`));
  };
  if (old.title !== tool.title)
    push("title", old.title, tool.title, false, `title ${show(old.title)} → ${show(tool.title)}`);
  if (old.description !== tool.description)
    push("description", old.description, tool.description, false, "description changed");
  if (old.inputSchemaSha256 !== tool.inputSchemaSha256)
    push("inputSchema", old.inputSchemaSha256, tool.inputSchemaSha256, false, "input schema changed");
  if (old.outputSchemaSha256 !== tool.outputSchemaSha256)
    push("outputSchema", old.outputSchemaSha256, tool.outputSchemaSha256, false, outputSchemaSummary(old, tool));
  for (const hint of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const) {
    const before = old.annotations[hint];
    const after = tool.annotations[hint];
    if (before === after) continue;
    // The model and the client trust these to decide what to confirm: a tool turning destructive, or no
    // longer read-only, is the reviewer's business.
    const security =
      (hint === "destructiveHint" && after === true) || (hint === "readOnlyHint" && before === true && after !== true);
    push(
      `annotations.${hint}`,
      before ?? null,
      after ?? null,
      security,
      `${hint} ${show(before ?? null)} → ${show(after ?? null)}`,
    );
  }
  if (old.method !== tool.method)
    push("method", old.method, tool.method, tool.method !== "GET", `method ${old.method} → ${tool.method}`);
  if (old.url !== tool.url)
    push(
      "url",
      old.url,
      tool.url,
      new URL(old.origin).origin !== new URL(tool.origin).origin,
      `URL ${old.url} → ${tool.url}`,
    );
  if (old.output !== tool.output)
    push(
      "output",
      old.output,
      tool.output,
      tool.output === "raw",
      `output ${old.output} → ${tool.output}${tool.output === "raw" ? " (the upstream's body reaches the model as it is)" : ""}`,
    );
  const profiles = (t: ManifestTool): string => JSON.stringify(t.schemaProfiles ?? {});
  if (profiles(old) !== profiles(tool))
    push(
      "schemaProfiles",
      old.schemaProfiles ?? null,
      tool.schemaProfiles ?? null,
      false,
      `schema profiles that rewrite its input schema: ${profileList(old)} → ${profileList(tool)}`,
    );
  if (old.errorDetail !== tool.errorDetail)
    push(
      "errorDetail",
      old.errorDetail ?? null,
      tool.errorDetail ?? null,
      tool.errorDetail !== undefined,
      tool.errorDetail !== undefined
        ? `shows the API's error answers to the model through ${tool.errorDetail} (a prompt-injection surface)`
        : "no longer shows the API's error answers to the model",
    );
  if (old.followRedirects !== tool.followRedirects) {
    push(
      "followRedirects",
      old.followRedirects,
      tool.followRedirects,
      tool.followRedirects > old.followRedirects,
      `redirects followed ${old.followRedirects} → ${tool.followRedirects}`,
    );
  }
  for (const [key, before] of Object.entries(old.limits) as [keyof ManifestTool["limits"], number | boolean][]) {
    const after = tool.limits[key];
    if (before !== after)
      push(
        `limits.${key}`,
        before,
        after,
        key === "allowInsecureHttp" && after === true,
        `${key} ${show(before)} → ${show(after)}`,
      );
  }
  const added = tool.secrets.filter((s) => !old.secrets.includes(s));
  const removed = old.secrets.filter((s) => !tool.secrets.includes(s));
  if (added.length > 0 || removed.length > 0) {
    const parts = [
      ...(added.length > 0 ? [`now sends ${added.join(", ")}`] : []),
      ...(removed.length > 0 ? [`no longer sends ${removed.join(", ")}`] : []),
    ];
    push("secrets", old.secrets, tool.secrets, added.length > 0, parts.join("; "));
  }
  const oldCredentials = old.credentials ?? [];
  const newCredentials = tool.credentials ?? [];
  const gained = newCredentials.filter((c) => !oldCredentials.includes(c));
  const lost = oldCredentials.filter((c) => !newCredentials.includes(c));
  if (gained.length > 0 || lost.length > 0)
    push(
      "credentials",
      oldCredentials,
      newCredentials,
      gained.length > 0,
      [
        ...(gained.length > 0 ? [`now sends credentials ${gained.join(", ")}`] : []),
        ...(lost.length > 0 ? [`no longer sends credentials ${lost.join(", ")}`] : []),
      ].join("; "),
    );
  return out;
}

function outputSchemaSummary(old: ManifestTool, tool: ManifestTool): string {
  if (old.outputSchemaSha256 === null) return "output schema added (results become structured)";
  if (tool.outputSchemaSha256 === null) return "output schema removed";
  return "output schema changed";
}

function hostsText(hosts: readonly string[] | null): string {
  return hosts === null ? "any host on the egress list" : hosts.join(", ");
}

function show(value: unknown): string {
  return value === null || value === undefined
    ? "none"
    : typeof value === "string"
      ? JSON.stringify(value)
      : String(value);
}

function change(
  kind: ChangeKind,
  subject: string,
  field: string | null,
  before: unknown,
  after: unknown,
  security: boolean,
  summary: string,
): SurfaceChange {
  return { kind, subject, field, before, after, security, summary };
}

function emptyManifest(): Manifest {
  return {
    manifestFormat: 0,
    kervancVersion: "",
    kervancContentSha256: "",
    spec: { file: "", sha256: "" },
    server: { name: "", version: "" },
    toolsListCharacters: 0,
    tools: [],
    egress: [],
    secrets: [],
    bundles: [],
  };
}

/** Security-relevant changes first, then in the order found (which follows the spec's tool order). */
export function sortChanges(changes: readonly SurfaceChange[]): SurfaceChange[] {
  return [...changes].sort((x, y) => Number(y.security) - Number(x.security));
}

/** `gemini (3 changes)`, or `none`: which schema profiles advertise a rewritten input schema for a tool. */
function profileList(tool: ManifestTool): string {
  const entries = Object.entries(tool.schemaProfiles ?? {});
  return entries.length === 0
    ? "none"
    : entries
        .map(([name, changes]) => `${name} (${changes.length} change${changes.length === 1 ? "" : "s"})`)
        .join(", ");
}
