/**
 * README.md of a generated package, written for the person who runs the server. Spec text in it is escaped for
 * Markdown, never interpreted.
 */
import type { JsonObject, JsonValue, OutputPlan } from "@kervanc/runtime";
import type { PlannedServer, PlannedTool } from "../../plan/plan.ts";
import { SPEC_LIMITS } from "../../analyze/spec-format.ts";
import { DEPLOY_FILES } from "./deploy-files.ts";
import { codeSpan, md } from "../code/markdown.ts";
import { packageName } from "./package-json.ts";
import { FETCH_TEST_SETTING, runCommands } from "./run-commands.ts";
import { SAMPLE_PORT } from "./sample-port.ts";
import { command, shellWord } from "../code/shell.ts";
import { TARGET } from "../targets.ts";
import { KERVANC_VERSION } from "../../kervanc-package.ts";
import { WORKERD_CONFIG_FILE } from "./workerd-config.ts";

function schemaType(schema: JsonValue | undefined): string {
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return "any";
  const type = schema["type"];
  if (typeof type === "string") {
    if (type === "array") return `${schemaType(schema["items"] as JsonValue)}[]`;
    return type;
  }
  if (Array.isArray(type)) return type.join(" \\| ");
  if (Array.isArray(schema["enum"])) return "enum";
  return "any";
}

/** An enum value as a reader types it: a string as it is, anything else (numbers, null, objects) as JSON. */
function enumValueText(value: JsonValue): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

function argumentRows(tool: PlannedTool): string[] {
  const schema = tool.plan.listing.inputSchema;
  const properties = (schema["properties"] ?? {}) as JsonObject;
  const required = new Set(Array.isArray(schema["required"]) ? (schema["required"] as string[]) : []);
  return Object.entries(properties).map(([name, prop]) => {
    const p = (prop && typeof prop === "object" && !Array.isArray(prop) ? prop : {}) as JsonObject;
    const description = typeof p["description"] === "string" ? md(p["description"]) : "";
    const values = Array.isArray(p["enum"])
      ? ` (one of ${p["enum"].map((v) => codeSpan(enumValueText(v), true)).join(", ")})`
      : "";
    return `| ${codeSpan(name, true)} | ${schemaType(p)} | ${required.has(name) ? "yes" : "no"} | ${description}${values} |`;
  });
}

/**
 * Copy-paste lines for the MCP clients people use, with this package's name and secrets. Paths must be
 * absolute (clients start servers from their own working folder); `/absolute/path/to/<folder>` stands for this
 * folder. Secrets go into the client's environment for the server; the `.mcpb` route keeps them in the
 * operating system's keychain instead of a configuration file.
 */
function clientSetup(name: string, folder: string, secrets: readonly string[]): string[] {
  const path = `/absolute/path/to/${folder}/${TARGET.node.file}`;
  const args = ["--disallow-code-generation-from-strings", path];
  const env = Object.fromEntries(secrets.map((s) => [s, `<your ${s}>`]));
  const withEnv = secrets.length > 0 ? { env } : {};
  const json = (value: unknown): string[] => ["```json", JSON.stringify(value, null, 2), "```", ""];
  const quote = shellWord;
  const lines: string[] = ["## Add it to an MCP client", ""];
  lines.push(
    `Clients start the server from their own working folder, so every path must be absolute: below, ${codeSpan(`/absolute/path/to/${folder}`)} stands for this folder (\`pwd\` prints it on macOS and Linux, \`cd\` on Windows).${secrets.length > 0 ? ` Replace each \`<your ${secrets[0]}>\` with the secret's value.` : ""}`,
    "",
  );
  lines.push("### Claude Desktop: one click", "");
  lines.push("```sh", command(["kervanc", "mcpb", `/absolute/path/to/${folder}`, "-o", `${name}.mcpb`]), "```", "");
  lines.push(
    `Open \`${name}.mcpb\` with Claude Desktop (double-click it, or drag it onto Settings > Extensions).${secrets.length > 0 ? " Claude Desktop asks for the secrets in a form and keeps them in the operating system's keychain, not in a file." : ""} The bundle holds \`server.mjs\`, this README and the notices; sign it with \`mcpb sign\` from \`@anthropic-ai/mcpb\` if you distribute it.`,
    "",
  );
  lines.push("### Claude Desktop, Cursor and other clients: JSON", "");
  lines.push("Add this to `claude_desktop_config.json` (Claude Desktop) or `.cursor/mcp.json` (Cursor):", "");
  lines.push(...json({ mcpServers: { [name]: { command: "node", args, ...withEnv } } }));
  lines.push("### Claude Code", "");
  const envFlags = secrets.map((s) => `--env ${quote(`${s}=<your ${s}>`)}`);
  lines.push(
    "```sh",
    ["claude mcp add --transport stdio", ...envFlags, name, "--", "node", ...args.map(quote)].join(" "),
    "```",
    "",
  );
  lines.push("### VS Code", "");
  lines.push(
    "```sh",
    `code --add-mcp ${quote(JSON.stringify({ name, command: "node", args, ...withEnv }))}`,
    "```",
    "",
  );
  lines.push("### A first try with the MCP Inspector", "");
  const inspectorEnv = secrets.map((s) => `-e ${quote(`${s}=<your ${s}>`)}`);
  lines.push(
    "```sh",
    [
      "npx @modelcontextprotocol/inspector --cli",
      ...inspectorEnv,
      "node",
      ...args.map(quote),
      "--method tools/list",
    ].join(" "),
    "```",
    "",
  );
  return lines;
}

export function readme(server: PlannedServer, folder: string, specFile: string): string {
  const { plan } = server;
  const name = packageName(folder);
  const secrets = plan.secrets.map((s) => s.name);
  const hosts = [...new Set(server.tools.map((t) => `${t.plan.request.protocol}//${t.plan.request.host}`))].sort();
  const run = runCommands(server);
  const sh = (...commands: string[]): string[] => ["```sh", ...commands, "```", ""];
  const lines: string[] = [];
  lines.push(`# ${md(plan.name)} ${md(plan.version)}`, "");
  lines.push(
    `An MCP server generated by kervanc ${KERVANC_VERSION} from ${codeSpan(specFile)}. Do not edit these files: change the spec and run \`kervanc build\` again.`,
    "",
  );
  if (plan.description !== undefined) lines.push(`> ${md(plan.description)}`, "");
  lines.push("## Run it", "");
  lines.push(
    "This package has two bundles of the same server, each a single file with no dependencies: `server.mjs` for Node.js (stdio, or Streamable HTTP with `--http`) and `worker.mjs`, a web-standard fetch handler (`export default { fetch }`) for Deno, Bun and Cloudflare Workers (workerd). Both speak MCP 2026-07-28 and 2025-11-25; over HTTP the endpoint is `/mcp`. Run the commands below from this folder (or write the paths out in full).",
    "",
  );
  lines.push("### Node.js 20.19 or newer", "");
  lines.push(...sh(run.nodeStdio, run.nodeHttp));
  lines.push(
    `The first serves stdio; the second serves Streamable HTTP on \`http://127.0.0.1:${SAMPLE_PORT}/mcp\`. Options: \`--host H\` (listening off loopback needs \`--allowed-host NAME\`, the Host name clients use, and authentication, see below), \`--port N\`, \`--allowed-host NAME\`, \`--secrets-file FILE\` (secrets from a file; the environment wins; Node itself takes \`--env-file\`, so that spelling is refused), \`--deny-network CIDR\`, \`--allow-private-network\` (tests only, see below), \`--no-upstream-keep-alive\` (a fresh upstream connection per request instead of the pool), \`--help\`. Host and Origin headers must name an allowed host (localhost by default), request bodies are capped at 4 MiB each and at 64 (\`--max-bodies\`) and 32 MiB (\`--max-body-memory BYTES\`) in flight (503 past them), a request must arrive within 30 s (\`--request-timeout MS\`; its headers within \`--headers-timeout MS\`, 10 s), a client that reads none of its answer for 30 s is disconnected (\`--send-timeout MS\`), and SIGINT/SIGTERM let calls in flight finish. On Node 22.1 and later, \`NODE_COMPILE_CACHE=DIR\` (a folder only the server's user can write to; the server refuses any other) makes later starts faster.`,
    "",
  );
  lines.push("To use it from an MCP client, see [Add it to an MCP client](#add-it-to-an-mcp-client) below.", "");
  lines.push("### Node.js 24 with the permission model", "");
  lines.push(...sh(run.node24Stdio, run.node24Http));
  lines.push(
    "File reads are limited to the bundle; with `--secrets-file FILE` or `--auth-tokens-file FILE`, add `--allow-fs-read=FILE`. Node's permission model does not restrict the network or the environment: the server's egress list and address policy (below) do.",
    "",
  );
  lines.push("### Deno", "");
  lines.push(...sh(run.deno));
  lines.push(
    "Deno runs the fetch handler with nothing but these permissions: `--allow-net` names the listening address and exactly the hosts of the egress list below, `--allow-env` exactly the declared secrets and the settings of the fetch handler, and `--deny-net` refuses internal and cloud-metadata addresses at connect time, which also covers what a host name resolves to, with two exceptions: a name that resolves to loopback, and an IPv4-mapped IPv6 answer (`::ffff:169.254.169.254`), which Deno does not match against its IPv4 ranges and cannot be told to refuse. Where an upstream's DNS is not trusted, serve `server.mjs`, or `worker.mjs` on workerd or Bun, which check every answer. To listen on an address in one of those ranges, take it out of the list. No file access is granted.",
    "",
  );
  lines.push("### Bun", "");
  lines.push(...sh(run.bun));
  lines.push(
    "Bun serves the default export of `worker.mjs`, which asks for 127.0.0.1 (to listen elsewhere, serve it yourself: `Bun.serve({ ...worker, hostname })`). `--no-env-file` keeps Bun from reading `.env` files, so secrets come only from the environment. Bun has no permission flags: the server's egress list and address policy apply, and each host name's addresses are checked before the request.",
    "",
  );
  lines.push("### Cloudflare Workers (workerd)", "");
  lines.push(...sh(run.workerd));
  lines.push(
    `\`${WORKERD_CONFIG_FILE}\` serves \`worker.mjs\` on 127.0.0.1:${SAMPLE_PORT} without \`nodejs_compat\`, takes the secrets from workerd's environment and lets outbound requests reach public addresses only. On Cloudflare, \`npx wrangler deploy -c ${DEPLOY_FILES.wrangler}\` deploys \`worker.mjs\` as a module worker; set each secret with \`wrangler secret put NAME\`.`,
    "",
  );
  lines.push("### Settings of the fetch handler", "");
  lines.push(
    "`worker.mjs` reads `KERVANC_ALLOWED_HOSTS` (comma-separated Host names clients use; default localhost only) and `KERVANC_DENY_NETWORK` (comma-separated CIDR ranges to refuse as well) from its environment (a Workers binding, `Deno.env`, `process.env`), and authentication as `server.mjs` has it (see [Authentication](#authentication)): `KERVANC_AUTH_TOKENS` (comma-separated bearer tokens), or `KERVANC_OAUTH_ISSUER` with `KERVANC_OAUTH_JWKS_URL` and optionally `KERVANC_OAUTH_AUDIENCE` (default: `https://` plus the first `KERVANC_ALLOWED_HOSTS` name plus `/mcp`; on Deno add the key set's host:port to `--allow-net`). When `KERVANC_ALLOWED_HOSTS` names a host that is not loopback, it refuses to start without authentication unless `KERVANC_INSECURE_NO_AUTH=1`. `GET /healthz` answers as on Node. The per-client request limit is Node's alone: on Workers, use Cloudflare's rate limiting rules.",
    "",
  );
  lines.push("### Tests only: a local upstream", "");
  lines.push(
    `\`--allow-private-network\` (\`server.mjs\`) and \`${FETCH_TEST_SETTING}=1\` (\`worker.mjs\`) add loopback and private addresses, so the server can call an upstream a test runs on this machine. They are for tests only and are refused when \`NODE_ENV=production\`; the commands above never enable them (on Deno, \`--allow-env\` does not even let \`${FETCH_TEST_SETTING}\` be read). A test adds the upstream's host:port to Deno's \`--allow-net\` and \`${FETCH_TEST_SETTING}\` to its \`--allow-env\`, and \`"local"\` to the workerd network's \`allow\` list.`,
    "",
  );
  lines.push(...clientSetup(name, folder, secrets));
  if (secrets.length > 0) {
    lines.push("## Secrets", "");
    lines.push(
      `Each secret is read from the environment variable of the same name (at least ${SPEC_LIMITS.minSecretLength} characters), is sent only over https, and is redacted from every result, error and log line.`,
      "",
    );
    for (const s of plan.secrets) {
      lines.push(
        `- ${codeSpan(s.name)}${s.hosts ? `: sent only to ${s.hosts.map((h) => codeSpan(h)).join(", ")}` : ""}`,
      );
    }
    lines.push("");
  }
  lines.push(...credentialsSection(server));
  lines.push("## Network", "");
  const tokenHosts = [
    ...new Set(
      (plan.credentials ?? []).flatMap((c) => (c.kind === "callerHeader" ? [] : [new URL(c.tokenUrl).origin])),
    ),
  ].sort();
  lines.push(
    `The server only calls ${hosts.map((h) => codeSpan(h)).join(", ")}${tokenHosts.length > 0 ? `, and asks ${tokenHosts.map((h) => codeSpan(h)).join(", ")} for tokens` : ""}: every request and every redirect must match the egress list in \`manifest.json\` (scheme, host, port), or it is refused. Internal, reserved and cloud-metadata addresses are always refused.`,
    "",
  );
  lines.push(...proxySection());
  lines.push(...operationsSection());
  lines.push(...selectionSection(server));
  lines.push("## Tools", "");
  for (const tool of server.tools) {
    const listing = tool.plan.listing;
    lines.push(`### ${codeSpan(listing.name)}`, "");
    if (listing.title !== undefined) lines.push(`**${md(listing.title)}**`, "");
    lines.push(md(listing.description), "");
    if (tool.plan.toolsets !== undefined)
      lines.push(`Toolsets: ${tool.plan.toolsets.map((name) => codeSpan(name)).join(", ")}.`, "");
    if (tool.plan.errorDetail !== undefined)
      lines.push(
        `Shows part of the API's error answers to the model (${codeSpan(tool.plan.errorDetail.expression)}, at most ${tool.plan.errorDetail.maxChars} characters): text the API controls, a prompt-injection surface.`,
        "",
      );
    const profiles = Object.keys(tool.profiles);
    if (profiles.length > 0)
      lines.push(
        `Advertised rewritten (looser, validation unchanged) under \`--schema-profile\` ${profiles.map((name) => codeSpan(name)).join(", ")}; \`manifest.json\` lists what changed.`,
        "",
      );
    lines.push(
      `${codeSpan(`${tool.plan.request.method} ${tool.plan.request.origin}`)}${outputNote(tool.plan.output)}`,
      "",
    );
    const rows = argumentRows(tool);
    if (rows.length > 0) {
      lines.push("| argument | type | required | description |", "| --- | --- | --- | --- |", ...rows, "");
    } else lines.push("No arguments.", "");
  }
  lines.push("## What is in this package", "");
  lines.push(
    `\`manifest.json\` records where the package came from (the kervanc version and the spec's sha256), its tools, the hosts it calls and the secrets it reads. \`sbom.cdx.json\` (CycloneDX) lists the third-party code bundled into \`server.mjs\` and \`worker.mjs\`, and \`THIRD_PARTY_NOTICES.md\` carries their licenses. \`${WORKERD_CONFIG_FILE}\` is the sample workerd configuration, and \`deploy/\` holds a Dockerfile, a Kubernetes manifest and a wrangler.toml. To verify that the package is exactly what its spec builds, run \`kervanc check\` on the spec and this package's parent folder.`,
    "",
  );
  return `${lines.join("\n").replace(/\n+$/, "")}\n`;
}

/** The upstream-auth extension's credentials: what each is, and what the operator or the client must provide. */
function credentialsSection(server: PlannedServer): string[] {
  const credentials = server.plan.credentials ?? [];
  if (credentials.length === 0) return [];
  const lines = ["## Upstream credentials", ""];
  lines.push(
    "The spec declares these credentials (kervanc extension upstream-auth). Every token and header value is redacted from results, errors and logs like a secret, and goes only to the tools' own hosts.",
    "",
  );
  for (const c of credentials) {
    if (c.kind === "callerHeader") {
      lines.push(
        `- ${codeSpan(c.name)}: each MCP client sends its own value in the ${codeSpan(c.header)} header of its Streamable HTTP requests (\`--http\`). A call without it fails before anything is sent; over stdio there are no request headers.`,
      );
      continue;
    }
    const asks = [
      ...(c.scopes !== undefined ? [`scopes ${c.scopes.map((scope) => codeSpan(scope)).join(" ")}`] : []),
      ...(c.audience !== undefined ? [`audience ${codeSpan(c.audience)}`] : []),
      ...(c.resource !== undefined ? [`resource ${codeSpan(c.resource)}`] : []),
    ];
    const secrets = c.secrets.length > 0 ? ` with ${c.secrets.map((s) => codeSpan(s)).join(" and ")}` : "";
    const what =
      c.kind === "clientCredentials"
        ? `an OAuth client credentials token from ${codeSpan(c.tokenUrl)}${secrets}, fetched on first use and renewed before it expires or after the API answers 401`
        : `the caller's OAuth access token exchanged at ${codeSpan(c.tokenUrl)}${secrets} (RFC 8693) for a token per caller; it needs OAuth on \`/mcp\` (\`--oauth-issuer\`, \`--oauth-jwks-url\`), and the caller's own token goes to that endpoint only`;
    lines.push(`- ${codeSpan(c.name)}: ${what}${asks.length > 0 ? ` (${asks.join(", ")})` : ""}.`);
  }
  lines.push("");
  return lines;
}

/** How an operator serves part of the package, and the toolsets it has. */
function selectionSection(server: PlannedServer): string[] {
  const toolsets = [...new Set(server.tools.flatMap((tool) => tool.plan.toolsets ?? []))].sort();
  const readOnly = server.tools.filter((tool) => tool.plan.listing.annotations.readOnlyHint === true).length;
  const lines = [
    "## Serving some of the tools",
    "",
    `\`--tools a,b\` serves only the tools named, \`--toolsets x,y\` only the tools of those toolsets (the two add up), and \`--read-only\` only the tools annotated \`readOnlyHint: true\` (${readOnly} of ${server.tools.length} here), of the selection or of all. A tool left out is unknown to clients, in \`tools/list\` and \`tools/call\` alike. \`worker.mjs\` takes the same as \`KERVANC_TOOLS\`, \`KERVANC_TOOLSETS\` and \`KERVANC_READ_ONLY=1\`. A name this server does not have stops it at start, with the names it has.`,
    "",
  ];
  if (toolsets.length > 0) lines.push(`Toolsets: ${toolsets.map((name) => codeSpan(name)).join(", ")}.`, "");
  lines.push(
    "`--discovery` (`KERVANC_DISCOVERY=1`) lists three tools instead of all: `search_tools` finds tools by what they do, `describe_tool` gives one's schemas, and `call_tool` calls one exactly as a direct call would. A client then pays for three listings per conversation, not for every tool.",
    "",
  );
  return lines;
}

/** What the README says after a tool's request line about its output mode. */
function outputNote(output: OutputPlan): string {
  switch (output.kind) {
    case "raw":
      return ", raw text output";
    case "select":
      return output.structured ? ", structured output" : "";
    case "binary":
      return ", binary output (images, audio, files)";
    default: {
      const unknown: never = output;
      throw new Error(`Unexpected output plan ${JSON.stringify(unknown)}.`);
    }
  }
}

/** The README's section on egress through a proxy (server.mjs) and what each fetch platform does instead. */
function proxySection(): string[] {
  return [
    "## Egress through a proxy",
    "",
    "`server.mjs` honours `HTTPS_PROXY`/`https_proxy`, `HTTP_PROXY`/`http_proxy` (and `ALL_PROXY`) and `NO_PROXY`/`no_proxy` from its environment: `NO_PROXY` takes host names (`api.example.com`), suffixes (`.example.com` or `*.example.com`), an optional `:port`, `*` for everything, and IP ranges (`10.0.0.0/8`). The proxy must be an `http://` URL; credentials go in its userinfo (`http://user:password@proxy:3128`, percent-encoded) and are sent to the proxy only, never shown in a result, an error or a log line. HTTPS upstreams go through a `CONNECT` tunnel by name, with TLS verified end to end against the upstream's own name, so the proxy sees no plaintext. A proxy that refuses the tunnel (407, 403, 502) or drops it gives a tool error naming its status and the upstream host.",
    "",
    "The proxy's own address is yours to choose (it may be private). What goes through it is still checked: every request and redirect must be on the egress list, an IP-literal upstream must pass the address policy, and a name that resolves here has its addresses checked. A name that resolves only at the proxy cannot be checked here: which addresses the proxy connects to is the proxy's policy.",
    "",
    "`worker.mjs` does not read these variables: on Cloudflare Workers there is no egress proxy (outbound requests leave through Cloudflare's network; self-hosted workerd routes them by its `network` service), while Deno's and Bun's own `fetch` honour `HTTP_PROXY`, `HTTPS_PROXY` and `NO_PROXY` themselves (on Deno, add the proxy's host:port to `--allow-net` and take its range out of `--deny-net`). On Bun the fetch handler resolves each host name first to check its addresses, and refuses a name that does not resolve locally: behind a proxy where outside names resolve only at the proxy, use `server.mjs`.",
    "",
  ];
}

/** The README's sections on authentication, limits, health, logs and scaling out. */
function operationsSection(): string[] {
  return [
    "## Authentication",
    "",
    "Over HTTP, `server.mjs` refuses to listen off loopback, or to answer to an `--allowed-host` that is not loopback (a reverse proxy's public name), without authentication unless you pass `--insecure-no-auth`. Two modes:",
    "",
    "- Bearer tokens, for internal services: `--auth-tokens-file FILE` (one token per line, at least 16 characters; `#` starts a comment) or `KERVANC_AUTH_TOKENS` (comma-separated). Clients send `Authorization: Bearer TOKEN`. Tokens are compared in constant time and never logged.",
    "- OAuth 2.1 resource server, as the MCP authorization specification describes: `--oauth-issuer URL --oauth-jwks-url URL [--oauth-audience URL]`. Access tokens must be JWTs signed by a key of the issuer's key set (asymmetric algorithms only), with that `iss`, an `aud` equal to this server's resource URL (`--oauth-audience`; by default `http://HOST:PORT/mcp` of this server: behind a load balancer or TLS terminator, set it to the public URL), a `sub`, and a current `exp`/`nbf`. Without a valid token the answer is `401` with `WWW-Authenticate: Bearer resource_metadata=\"...\"`, and the protected-resource metadata (RFC 9728) is served at `/.well-known/oauth-protected-resource`. The key set's URL must be https (plain http only on loopback), and it is cached and fetched again when a token names an unknown key.",
    "",
    "## Limits, health and logs",
    "",
    "- Each client may send `--client-rate-limit N` requests a minute (default 300, `0` turns it off; `429` with `Retry-After` past it). The client is the token's subject when authentication is on, the connection's address otherwise. Behind a load balancer or reverse proxy, pass `--trust-proxy CIDR` (repeatable) with its addresses: `X-Forwarded-For` is then read on connections from those addresses only.",
    "- `GET /healthz` answers `200` with the server's name, version and tool count, without authentication and without calling any upstream.",
    '- `--log-format json` writes one JSON object per line on stderr: one per tool call (`time`, `level`, `event: "call"`, `tool`, `outcome`, `durationMs`, `upstreamStatus`, `responseBytes`, `requestId`) and one per refused request (`event: "refused"`, `status`, `reason`). `--log-level debug|info|warn|error` sets the threshold (a call that succeeded is `info`, one that failed `warn`, an internal error `error`; in the text format per-call lines are written at `debug` only). No argument values and no upstream bodies are logged, and every line passes through the same redaction as results.',
    "",
    "## Telemetry",
    "",
    "OpenTelemetry is off unless you name a collector: `--otel-endpoint URL` or the standard `OTEL_EXPORTER_OTLP_ENDPOINT` (with `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_SERVICE_NAME`, `OTEL_TRACES_SAMPLER`; `worker.mjs` reads the same variables). The server then exports OTLP/HTTP JSON: a span per MCP request (`tools/call <tool>`, `tools/list`, `initialize`, with the MCP semantic conventions' attributes), a child span per upstream attempt (method, host, port, the path template, status, retry count), and the histograms `mcp.server.operation.duration` and `http.client.request.duration`. A `traceparent` from the client (in `_meta`, or the HTTP header) parents the span; upstream requests carry one only to the hosts named with `--otel-propagate-to host[:port]` (`KERVANC_OTEL_PROPAGATE_TO`). No argument values, query strings, bodies or header values are exported, every attribute passes the redaction, and a collector that is down or slow never delays a call. The collector is not on the tools' egress list.",
    "",
    "## Deploy and scale out",
    "",
    "`deploy/` has a `Dockerfile` (a non-root Node image with a read-only root filesystem in mind, `/healthz` as its health check, and Node's compile cache of the server built into the image, so that no start compiles `server.mjs` again), `kubernetes.yaml` (a Deployment and a Service) and `wrangler.toml` (Cloudflare Workers). The server is stateless: each HTTP request stands alone (no sessions), so run any number of replicas behind a load balancer. Every limit (the per-client request limit, the per-tool rate limits of the spec, the request-body budget) counts per replica: with N replicas a client can make up to N times as many requests.",
    "",
  ];
}
