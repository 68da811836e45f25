/**
 * Running one tool call: validate, limit, render, send, shape, redact.
 *
 * Everything spec-derived was decided at build time and arrives here as a frozen plan plus precompiled
 * validators; this module only executes it. Each call's result (text, structured content and keys) and each
 * error message is redacted before it leaves, whatever produced it.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import { acceptFor } from "./accept.ts";
import { CallDeadline } from "./deadline.ts";
import { errorRef, ToolError } from "./errors.ts";
import { MAX_JSON_NESTING, valueNestsDeeper } from "./json-depth.ts";
import {
  egressCheck,
  sendUpstream,
  type HopTransport,
  type SecretCarry,
  type UpstreamResponse,
} from "../net/upstream.ts";
import { shapeOutput, statusError } from "./output.ts";
import { headOf } from "../define.ts";
import type { CompiledServer, CompiledTool, JsonObject, JsonValue, ToolHead, ToolPlan } from "../plan.ts";
import { ToolLimiter } from "../serve/rate-limit.ts";
import { renderRequest, type RenderedRequest } from "./render.ts";
import { binaryResult } from "./binary-output.ts";
import { errorDetail } from "./error-detail.ts";
import { fits, retries, retryAfterMs, sleep, spentError, waitBefore } from "./retry.ts";
import { SecretError, type SecretSource, type SecretVault } from "../secrets/secrets.ts";
import { countElements, formatValidationErrors } from "./validation.ts";
import type { CallRecord } from "../serve/log.ts";
import { type CallerContext, STDIO_CALLER } from "../secrets/credentials/caller.ts";
import { CredentialStore } from "../secrets/credentials/store.ts";
import { NO_ATTEMPT, NO_SPAN, type RequestSpan } from "../telemetry/telemetry.ts";

/** The SDK's bound on argument size: array elements plus object members. */
export const MAX_ARGUMENT_ELEMENTS = 10_000;
/** The tool-level timeout adds this much to the per-hop timeout. */
export const TOOL_TIMEOUT_SLACK_MS = 5_000;

export interface RunnerOptions {
  readonly transport: HopTransport;
  readonly secretSource: SecretSource;
  readonly vault: SecretVault;
  /**
   * Only from code or a CLI flag refused in production; never from a spec. "loopback": only to connections whose
   * resolved address is loopback (the development relaxation of `kervanc call`, `dev` and `test`).
   */
  readonly allowSecretsOverHttp: boolean | "loopback";
  /** Writes one line to the log (stderr); the runner redacts before calling it. */
  readonly log: (line: string) => void;
  /** Told once per call how it went (no argument values, no bodies), for the per-call log line. */
  readonly onCall?: (record: CallRecord) => void;
}

/** What one call may change as it runs: the vault its result and log lines are redacted with. */
interface CallScope {
  vault: SecretVault;
}

/** What one call's upstream exchange measured. */
interface CallStats {
  upstreamStatus: number | null;
  responseBytes: number | null;
}

interface PreparedTool {
  readonly compiled: CompiledTool;
  readonly head: ToolHead;
  /** Made on the tool's first call, with its plan: the limiter and what the hop loop needs about its secrets. */
  ready: { readonly limiter: ToolLimiter; readonly carry: SecretCarry | null } | null;
}

export class ToolRunner {
  readonly #tools: ReadonlyMap<string, PreparedTool>;
  readonly #bindings: ReadonlyMap<string, readonly string[] | undefined>;
  readonly #declaredAt: ReadonlyMap<string, string | undefined>;
  readonly #options: RunnerOptions;
  readonly #egress: (url: URL) => boolean;
  /** The kervanc upstream-auth extension's credentials; null for a spec without them. */
  readonly #credentials: CredentialStore | null;
  readonly #credentialPlans: NonNullable<CompiledServer["plan"]["credentials"]>;

  constructor(server: CompiledServer, options: RunnerOptions) {
    this.#options = options;
    this.#bindings = new Map(server.plan.secrets.map((s) => [s.name, s.hosts]));
    this.#credentialPlans = server.plan.credentials ?? [];
    this.#credentials =
      this.#credentialPlans.length === 0
        ? null
        : new CredentialStore(this.#credentialPlans, {
            transport: options.transport,
            allowSecretsOverHttp: options.allowSecretsOverHttp,
            secretSource: options.secretSource,
            vault: options.vault,
            bindings: this.#bindings,
          });
    this.#declaredAt = new Map(server.plan.secrets.map((s) => [s.name, s.at]));
    // Only the tools' heads are read here: a tool's plan waits for its first call.
    const heads = server.tools.map((compiled) => ({ compiled, head: headOf(compiled) }));
    // Derived from the tools' own URLs: the same list the build writes into manifest.json.
    this.#egress = egressCheck(heads.map(({ head }) => head));
    this.#tools = new Map(heads.map(({ compiled, head }) => [head.name, { compiled, head, ready: null }]));
  }

  has(name: string): boolean {
    return this.#tools.has(name);
  }

  /** The tool's output schema, for the SDK's projection of a structured result (read after the tool's call). */
  outputSchema(name: string): JsonObject | undefined {
    return this.#tools.get(name)?.compiled.plan.listing.outputSchema;
  }

  /**
   * Asks the secret source once per (secret, host) pair at start-up and adds the values to the vault, so
   * redaction knows them before the first call. Missing values are warnings (tools that need them fail until
   * they are set); values too short to redact are errors that stop the server.
   */
  prepareSecrets(): { warnings: string[]; errors: string[] } {
    const warnings: string[] = [];
    const errors: string[] = [];
    const seen = new Set<string>();
    /** One (secret, host) pair: asked once, its value added to the vault, a gap or a refusal reported. */
    const ask = (name: string, hostPort: string, tool: string, missing: string): void => {
      const key = `${name}\u0000${hostPort}`;
      if (seen.has(key)) return;
      seen.add(key);
      const value = this.#options.secretSource.get(name, { host: hostPort, tool });
      if (value === undefined) {
        warnings.push(`Secret ${name} is not configured for ${hostPort}; ${missing} fail until it is.`);
        return;
      }
      try {
        this.#options.vault.add(name, value);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        const at = this.#declaredAt.get(name);
        errors.push(at === undefined ? message : `${at}: ${message}`);
      }
    };
    for (const { head } of this.#tools.values())
      for (const name of head.secrets) ask(name, head.hostPort, head.name, "tools that use it there");
    // The upstream-auth extension's client ids and secrets go to their token endpoints.
    for (const credential of this.#credentialPlans) {
      if (credential.kind === "callerHeader") continue;
      for (const name of credential.secrets)
        ask(name, credential.hostPort, `credential ${credential.name}`, `tools that use credential ${credential.name}`);
    }
    return { warnings, errors };
  }

  async call(
    name: string,
    args: unknown,
    signal: AbortSignal,
    caller: CallerContext = STDIO_CALLER,
    span: RequestSpan = NO_SPAN,
  ): Promise<CallToolResult> {
    const started = Date.now();
    const stats: CallStats = { upstreamStatus: null, responseBytes: null };
    const outcome: { value: CallRecord["outcome"] } = { value: "ok" };
    try {
      const result = await this.#call(name, args, signal, stats, outcome, caller, span);
      if (result.isError && outcome.value === "ok") outcome.value = "error";
      return result;
    } finally {
      // The span's error.type says how the call failed, in the words the log uses (no argument, no text).
      span.end(ERROR_TYPES[outcome.value]);
      this.#options.onCall?.({
        tool: name,
        outcome: outcome.value,
        durationMs: Date.now() - started,
        upstreamStatus: stats.upstreamStatus,
        responseBytes: stats.responseBytes,
        requestId: crypto.randomUUID(),
      });
    }
  }

  async #call(
    name: string,
    args: unknown,
    signal: AbortSignal,
    stats: CallStats,
    outcome: { value: CallRecord["outcome"] },
    caller: CallerContext,
    span: RequestSpan,
  ): Promise<CallToolResult> {
    const prepared = this.#tools.get(name);
    // The vault this call's result and log lines are redacted with: the server's, or one that also knows what
    // belongs to this caller alone (upstream-auth: its header values and tokens), made when the call has any.
    const scope: CallScope = { vault: this.#options.vault };
    if (prepared === undefined) throw new Error(`Tool ${name} not found`);
    const { compiled } = prepared;
    try {
      const input = args ?? {};
      if (countElements(input, MAX_ARGUMENT_ELEMENTS) > MAX_ARGUMENT_ELEMENTS) {
        outcome.value = "invalid";
        return toolError(
          `Invalid arguments for tool ${name}: arguments contain more than the maximum of ${MAX_ARGUMENT_ELEMENTS} elements`,
        );
      }
      // Before the validator and the renderer, which both recurse once per level of the value.
      if (valueNestsDeeper(input, MAX_JSON_NESTING)) {
        outcome.value = "invalid";
        return toolError(
          `Invalid arguments for tool ${name}: arguments are nested more than ${MAX_JSON_NESTING} levels deep, the limit`,
        );
      }
      if (!compiled.validateInput(input)) {
        outcome.value = "invalid";
        return this.#redactResult(
          toolError(
            `Input validation error: Invalid arguments for tool ${name}: ${formatValidationErrors(compiled.validateInput.errors)}`,
          ),
        );
      }
      span.event("arguments validated");
      prepared.ready ??= {
        limiter: new ToolLimiter(name, compiled.plan.rateLimit),
        carry: this.#carryFor(compiled.plan),
      };
      const { limiter, carry } = prepared.ready;
      limiter.acquire();
      try {
        return this.#redactResult(
          await this.#run(compiled, carry, input as JsonValue, signal, stats, caller, scope, span),
          scope.vault,
        );
      } finally {
        limiter.release();
      }
    } catch (error) {
      if (error instanceof ToolError) return this.#redactResult(toolError(error.message), scope.vault);
      outcome.value = "internal";
      const ref = errorRef();
      const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
      this.#log(`Error: internal error in tool "${name}" (ref: ${ref}): ${detail}`, scope.vault);
      return toolError(`Internal error in tool "${name}" (ref: ${ref}).`);
    }
  }

  async #run(
    compiled: CompiledTool,
    carry: SecretCarry | null,
    args: JsonValue,
    callerSignal: AbortSignal,
    stats: CallStats,
    caller: CallerContext,
    scope: CallScope,
    span: RequestSpan,
  ): Promise<CallToolResult> {
    const plan = compiled.plan;
    const { request, limits } = plan;
    const toolTimeoutMs = limits.timeoutMs + TOOL_TIMEOUT_SLACK_MS;
    // One deadline for the call: the tool's timeout, and each hop's, which sendUpstream starts on it.
    const deadline = new CallDeadline(
      callerSignal,
      toolTimeoutMs,
      () => new ToolError(`Tool "${plan.listing.name}" timed out after ${toolTimeoutMs} ms.`),
    );
    try {
      const secrets = this.#secretsFor(plan);
      // The kervanc upstream-auth extension: the tool's credentials for this caller, and a vault and a secret
      // carry that know them (a credential, like a secret, goes to the tool's own host only).
      const cancelled = (reason: unknown): unknown =>
        reason instanceof ToolError ? reason : new ToolError("The call was cancelled.");
      const credentialNames = plan.credentials ?? [];
      const resolveCredentials = async (): Promise<ReadonlyMap<string, string> | undefined> => {
        if (credentialNames.length === 0 || this.#credentials === null) return undefined;
        const resolved = await deadline.race(this.#credentials.resolve(credentialNames, caller), cancelled);
        if (resolved.callerValues.length > 0) {
          try {
            scope.vault = this.#options.vault.derive(resolved.callerValues);
          } catch (error) {
            if (error instanceof SecretError) throw new ToolError(error.message);
            throw error;
          }
        }
        return resolved.values;
      };
      let credentials = await resolveCredentials();
      const secretCarry: SecretCarry | null =
        credentials === undefined
          ? carry
          : {
              mayReceive: (hostPort) => hostPort === request.hostPort && (carry?.mayReceive(hostPort) ?? true),
              containsSecret: (text) => scope.vault.containsSecret(text),
            };
      const prepare = (): RenderedRequest => {
        const rendered = renderRequest(request, {
          args,
          secrets,
          hostPort: request.hostPort,
          ...(credentials !== undefined ? { credentials } : {}),
        });
        const headers = rendered.headers.slice();
        let hasAccept = false;
        let hasContentType = false;
        for (const [n] of headers) {
          const lower = n.toLowerCase();
          if (lower === "accept") hasAccept = true;
          else if (lower === "content-type") hasContentType = true;
        }
        if (!hasAccept) headers.push(["accept", acceptFor(plan.output)]);
        headers.push(["accept-encoding", "gzip, deflate, br"]);
        if (rendered.body !== null && !hasContentType) headers.push(["content-type", "application/json"]);
        return { method: rendered.method, url: rendered.url, headers, body: rendered.body };
      };
      let hop = prepare();
      let attempts = 0;
      // The work may ignore its signal (a wedged transport): the call still ends, with the caller's words. Each
      // attempt is a child span of the call's (telemetry), and carries its traceparent where the operator allows.
      const send = async (): Promise<UpstreamResponse> => {
        // Without telemetry the attempt's description is not even built: this is the per-call path.
        const attempt =
          span === NO_SPAN
            ? NO_ATTEMPT
            : span.attempt({
                method: request.method,
                scheme: request.protocol.slice(0, -1),
                host: request.host.replace(/:\d+$/, "").replace(/^\[|\]$/g, ""),
                port: Number(request.hostPort.slice(request.hostPort.lastIndexOf(":") + 1)),
                template: urlTemplate(request),
                resend: attempts,
              });
        attempts++;
        const sent =
          attempt.traceparent === null
            ? hop
            : { ...hop, headers: [...hop.headers, ["traceparent", attempt.traceparent] as const] };
        try {
          const response = await deadline.race(
            sendUpstream(sent, {
              limits,
              transport: this.#options.transport,
              deadline,
              secrets: secretCarry,
              allowSecretsOverHttp: this.#options.allowSecretsOverHttp,
              egress: this.#egress,
            }),
            cancelled,
          );
          attempt.end(response.status);
          return response;
        } catch (error) {
          attempt.end(
            null,
            error instanceof ToolError && /timed out/.test(error.message) ? "timeout" : "request_failed",
          );
          throw error;
        }
      };
      let response = await send();
      // upstream-auth: a 401 to a request that carried a token may mean the token was revoked or expired early.
      // The token is forgotten, a new one fetched, and the request sent once more (once: a second 401 stands).
      if (
        response.status === 401 &&
        credentials !== undefined &&
        this.#credentials !== null &&
        this.#credentials.forget(credentials)
      ) {
        this.#log(
          `Warning: ${request.method} ${response.url.host}${response.url.pathname} returned 401; getting a new token for ${this.#credentials.renewable(credentialNames).join(", ")} and trying once more`,
          scope.vault,
        );
        credentials = await resolveCredentials();
        hop = prepare();
        response = await send();
      }
      // The kervanc retry extension (retry.ts); a tool without it sends once, as Kervan does.
      const retry = request.retry;
      let retryAfter: number | null = null;
      if (retry !== undefined) {
        for (let attempt = 1; ; attempt++) {
          if (!retries(retry, request.method, response.status)) break;
          retryAfter = retryAfterMs(response.retryAfter, Date.now());
          if (attempt >= retry.attempts) break;
          const wait = waitBefore(attempt + 1, retry, retryAfter, Math.random);
          if (!fits(wait, deadline.remainingMs)) break;
          this.#log(
            `Warning: ${request.method} ${response.url.host}${response.url.pathname} returned ${response.status}; attempt ${attempt + 1} of ${retry.attempts} in ${wait} ms`,
            scope.vault,
          );
          await deadline.race(sleep(wait), cancelled);
          response = await send();
        }
      }
      stats.upstreamStatus = response.status;
      stats.responseBytes = response.body.byteLength;
      if (response.status >= 400) {
        this.#log(
          `Warning: ${request.method} ${response.url.host}${response.url.pathname} returned ${response.status}`,
          scope.vault,
        );
        const error =
          (retry !== undefined ? spentError(response.status, response.url.host, retryAfter) : null) ??
          statusError(response.status);
        // The kervanc error-detail extension: part of the error answer, chosen by the spec, after the status line.
        const detail = plan.errorDetail !== undefined ? errorDetail(response, plan.errorDetail, scope.vault) : null;
        throw detail === null ? error : new ToolError(`${error.message} The API says: ${detail}`);
      }
      // The kervanc binary-output extension: a binary answer becomes a content block; text and JSON go on to
      // select or raw as in Kervan (binary-output.ts).
      if (plan.binary !== undefined && response.body.byteLength > 0) {
        const content = binaryResult(response, plan.binary, scope.vault);
        if (content !== null) {
          span.event("output shaped");
          return content;
        }
      }
      const shaped = shapeOutput(response, {
        toolName: plan.listing.name,
        output: plan.output,
        validateOutput: compiled.validateOutput,
        vault: scope.vault,
      });
      span.event("output shaped");
      return shaped;
    } finally {
      deadline.dispose();
    }
  }

  /** What the hop loop needs to know about a tool's secrets, or null when it sends none. */
  #carryFor(plan: ToolPlan): SecretCarry | null {
    if (plan.secrets.length === 0) return null;
    return {
      mayReceive: (hostPort) => plan.secrets.every((name) => this.#mayReceive(name, hostPort, plan.listing.name)),
      containsSecret: (text) => this.#options.vault.containsSecret(text),
    };
  }

  /** Checks each secret's binding for the tool's host, then asks the source again for this call. */
  #secretsFor(plan: ToolPlan): Map<string, string> {
    const values = new Map<string, string>();
    const { hostPort } = plan.request;
    for (const name of plan.secrets) {
      const hosts = this.#bindings.get(name);
      if (hosts !== undefined && !hosts.includes(hostPort))
        throw new ToolError(`Secret ${name} may not be sent to ${hostPort}.`);
      const value = this.#options.secretSource.get(name, { host: hostPort, tool: plan.listing.name });
      if (value === undefined) continue;
      try {
        this.#options.vault.add(name, value);
      } catch (error) {
        if (error instanceof SecretError) throw new ToolError(error.message);
        throw error;
      }
      values.set(name, value);
    }
    return values;
  }

  #mayReceive(name: string, hostPort: string, tool: string): boolean {
    const hosts = this.#bindings.get(name);
    if (hosts !== undefined && !hosts.includes(hostPort)) return false;
    return this.#options.secretSource.get(name, { host: hostPort, tool }) !== undefined;
  }

  #redactResult(result: CallToolResult, vault: SecretVault = this.#options.vault): CallToolResult {
    return vault.size === 0 ? result : (vault.redactValue(result as unknown as JsonValue) as unknown as CallToolResult);
  }

  #log(line: string, vault: SecretVault = this.#options.vault): void {
    this.#options.log(vault.redactText(line));
  }
}

/** The span's error.type for each way a call ends (none for a result). */
const ERROR_TYPES: Readonly<Record<CallRecord["outcome"], string | undefined>> = {
  ok: undefined,
  error: "tool_error",
  invalid: "invalid_arguments",
  internal: "internal",
};

/**
 * The request's path as the spec writes it, each reference as `{name}` (its last path part): telemetry's
 * `url.template`, which names the route without the values a call filled in.
 */
function urlTemplate(request: ToolPlan["request"]): string {
  let path = "";
  for (const part of request.path.parts)
    path += part.kind === "text" ? part.text : `{${part.ref.kind === "input" ? part.ref.path.at(-1) : part.ref.name}}`;
  return path === "" ? "/" : path;
}

function toolError(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}
