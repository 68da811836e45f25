/**
 * `kervanc dev`: one long-lived process that keeps serving while generated servers come and go under it.
 *
 * Each good build of the spec runs as a child server (the `server.mjs` that `build` writes, emitted to a private
 * temp folder). Toward an MCP client on stdio the session is a relay: it passes messages to the current child
 * and back, keeps the client's initialize, and on a rebuild starts the new child, replays that initialize to it,
 * switches new requests over, lets the old child finish what it has in flight, and then tells the client
 * `notifications/tools/list_changed` (so the `listChanged` capability it advertises is true here; with views, also
 * `notifications/resources/list_changed`, and its capability's `listChanged`). An edit with
 * errors prints its diagnostics and changes nothing: the last good build keeps serving.
 */
import { watch, type FSWatcher } from "node:fs";
import { basename, dirname } from "node:path";
import { errorCode } from "../load/regular-file.ts";
import type { Diagnostic } from "../diagnostics/diagnostic.ts";
import type { PlannedServer } from "../plan/plan.ts";
import { compileDev } from "./dev-package.ts";
import { type DevServer, type HttpServer, startDevServer, startHttpServer } from "./dev-server.ts";
import type { JsonRpcMessage } from "./server-child.ts";

type Id = string | number;

interface Generation {
  readonly server: DevServer;
  readonly planned: PlannedServer;
  /** The client's requests this child has not answered yet. */
  readonly inflight: Set<Id>;
  retired: boolean;
}

export interface DevSessionOptions {
  readonly spec: string;
  readonly secretsFile?: string;
  readonly env: NodeJS.ProcessEnv;
  /** Lines for the user (stderr). */
  readonly log: (line: string) => void;
  /** Each build's diagnostics, with the spec's text for code frames: the CLI prints them as build does. */
  readonly diagnostics: (diagnostics: readonly Diagnostic[], sources: ReadonlyMap<string, string>) => void;
  /** Relaying for an MCP client on stdio: each message for the client. Absent: the REPL drives the server. */
  readonly toClient?: (message: JsonRpcMessage) => void;
  /**
   * Also serve each build over Streamable HTTP on 127.0.0.1 at this port. Each good build restarts it on the
   * same port: HTTP clients see the new tools on their next request (a 2025-11-25 session starts over; no
   * list_changed is sent over HTTP).
   */
  readonly httpPort?: number;
}

export class DevSession {
  readonly #options: DevSessionOptions;
  #current: Generation | null = null;
  /** The client's initialize params, replayed to every new child; undefined until the client sends them. */
  #clientInit: unknown = undefined;
  #clientReady = false;
  /** The ids of the client's initialize requests, whose answers get `listChanged: true`. */
  readonly #initIds = new Set<Id>();
  /** Whether the initialize answer the client got declared resources (a spec with views). */
  #clientHasResources = false;
  #reloading: Promise<void> = Promise.resolve();
  #again = false;
  #busy = false;
  #watcher: FSWatcher | null = null;
  #timer: NodeJS.Timeout | null = null;
  #closed = false;
  #http: HttpServer | null = null;

  constructor(options: DevSessionOptions) {
    this.#options = options;
  }

  get tools(): readonly { name: string; description: string }[] {
    return (this.#current?.planned.tools ?? []).map((t) => ({
      name: t.plan.listing.name,
      description: t.plan.listing.description,
    }));
  }

  /**
   * Watches the spec's folder (editors often replace the file rather than write it), then builds. Watching starts
   * first, so that a save made while the first build runs (or just after it printed where it serves) is built
   * too, not lost: reload() runs once more when asked during a build.
   */
  async start(): Promise<void> {
    const name = basename(this.#options.spec);
    const folder = dirname(this.#options.spec);
    try {
      this.#watcher = watch(folder, (_event, file) => {
        if (file !== null && file !== name) return;
        // Saves come as bursts of events; build once they settle.
        if (this.#timer !== null) clearTimeout(this.#timer);
        this.#timer = setTimeout(() => {
          this.#timer = null;
          void this.reload();
        }, 150);
      });
      // A watcher that fails later (the folder's file system goes away) stops rebuilding on save, not kervanc.
      this.#watcher.on("error", (error) => this.#options.log(cannotWatch(folder, error)));
    } catch (error) {
      // Out of inotify watches, for one: serve anyway; the reload command still rebuilds.
      this.#options.log(cannotWatch(folder, error));
    }
    await this.reload();
  }

  /** Rebuilds and swaps; a reload asked for while one runs makes one more run after it. */
  reload(): Promise<void> {
    if (this.#busy) {
      this.#again = true;
      return this.#reloading;
    }
    this.#busy = true;
    this.#reloading = (async () => {
      do {
        this.#again = false;
        await this.#rebuild();
      } while (this.#again && !this.#closed);
      this.#busy = false;
    })();
    return this.#reloading;
  }

  async #rebuild(): Promise<void> {
    const { log } = this.#options;
    const compiled = await compileDev(this.#options.spec);
    if (compiled.diagnostics.length > 0) this.#options.diagnostics(compiled.diagnostics, compiled.sources);
    if (!compiled.ok) {
      const errors = compiled.diagnostics.filter((d) => d.severity === "error").length;
      log(
        this.#current === null
          ? `The spec has ${errors} error(s); nothing is served until it builds.`
          : `The edit has ${errors} error(s); still serving the last good build (${this.#current.planned.tools.length} tools).`,
      );
      return;
    }
    const planned = compiled.compiled.planned;
    let generation: Generation;
    try {
      const server = await startDevServer(compiled.compiled, planned, {
        env: this.#options.env,
        ...(this.#options.secretsFile !== undefined ? { secretsFile: this.#options.secretsFile } : {}),
        onLog: (line) => log(`server: ${line}`),
        onMessage: (message) => this.#fromChild(generation, message),
        // Relaying: replay the client's handshake (none yet: none). The REPL makes its own.
        initialize: this.#options.toClient !== undefined ? (this.#clientInit ?? null) : undefined,
      });
      generation = { server, planned, inflight: new Set(), retired: false };
    } catch (error) {
      log(
        `The new build did not start (${error instanceof Error ? error.message : String(error)}); still serving the last good build.`,
      );
      return;
    }
    if (this.#closed) {
      await generation.server.close();
      return;
    }
    const old = this.#current;
    this.#current = generation;
    if (this.#options.httpPort !== undefined) await this.#restartHttp(generation);
    const names = planned.tools.map((t) => t.plan.listing.name);
    if (old === null) {
      log(`Serving ${names.length} tool(s): ${names.join(", ")}.`);
      return;
    }
    const before = new Set(old.planned.tools.map((t) => t.plan.listing.name));
    const added = names.filter((n) => !before.has(n));
    const removed = [...before].filter((n) => !names.includes(n));
    const change = [
      added.length > 0 ? `added ${added.join(", ")}` : "",
      removed.length > 0 ? `removed ${removed.join(", ")}` : "",
    ]
      .filter((s) => s !== "")
      .join("; ");
    log(`Reloaded: ${names.length} tool(s)${change !== "" ? ` (${change})` : ""}.`);
    old.retired = true;
    if (old.inflight.size === 0) await old.server.close();
    if (this.#options.toClient !== undefined && this.#clientReady) {
      this.#options.toClient({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
      // The views extension: the pages may have changed too, for a client told of resources (a host that cached
      // a page reads it again). A spec that gains its first view keeps the capabilities of its first build.
      if (this.#clientHasResources)
        this.#options.toClient({ jsonrpc: "2.0", method: "notifications/resources/list_changed" });
    }
  }

  /** The HTTP server of the old build stops (freeing the port) before the new build's starts on it. */
  async #restartHttp(generation: Generation): Promise<void> {
    await this.#http?.close();
    this.#http = null;
    try {
      this.#http = await startHttpServer(generation.server.serverFile, this.#options.httpPort!, {
        env: this.#options.env,
        ...(this.#options.secretsFile !== undefined ? { secretsFile: this.#options.secretsFile } : {}),
        onLog: (line) => this.#options.log(`http server: ${line}`),
      });
      this.#options.log(`Serving MCP over HTTP at ${this.#http.url}`);
    } catch (error) {
      this.#options.log(`The HTTP server did not start: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** A message from a child: answers go to the client; a retired child is closed once it has answered all. */
  #fromChild(generation: Generation | undefined, message: JsonRpcMessage): void {
    const toClient = this.#options.toClient;
    if (toClient === undefined) return;
    const id = message.id;
    if (message.method === undefined && id !== undefined && id !== null) {
      generation?.inflight.delete(id);
      if (this.#initIds.delete(id) && message.result !== undefined) {
        message = withListChanged(message);
        this.#clientHasResources = hasResources(message);
      }
      toClient(message);
      if (generation?.retired === true && generation.inflight.size === 0) void generation.server.close();
      return;
    }
    // Notifications and requests from a retired child are about a server the client no longer talks to.
    if (generation === undefined || generation === this.#current) toClient(message);
  }

  /** A message from the MCP client on stdio. */
  fromClient(message: JsonRpcMessage): void {
    const current = this.#current;
    const isRequest = message.method !== undefined && message.id !== undefined && message.id !== null;
    if (message.method === "initialize" && isRequest) {
      this.#clientInit = message.params;
      this.#initIds.add(message.id!);
    }
    if (message.method === "notifications/initialized") this.#clientReady = true;
    if (current === null) {
      if (isRequest)
        this.#options.toClient?.({
          jsonrpc: "2.0",
          id: message.id!,
          error: {
            code: -32603,
            message: "The spec has errors, so nothing is served yet; kervanc dev prints them on stderr.",
          },
        });
      return;
    }
    if (isRequest) current.inflight.add(message.id!);
    current.server.child.send(message);
  }

  /** `call` in the REPL: the current build's server, the same way a client calls it. */
  async call(tool: string, args: unknown): Promise<{ isError: boolean; text: string }> {
    const current = this.#current;
    if (current === null) return { isError: true, text: "Nothing is served: the spec has errors." };
    try {
      const result = (await current.server.child.request("tools/call", { name: tool, arguments: args })) as {
        content?: { type: string; text?: string }[];
        isError?: boolean;
      };
      const text = (result.content ?? [])
        .filter((p) => p.type === "text")
        .map((p) => p.text ?? "")
        .join("\n");
      return { isError: result.isError === true, text };
    } catch (error) {
      return { isError: true, text: error instanceof Error ? error.message : String(error) };
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#watcher?.close();
    if (this.#timer !== null) clearTimeout(this.#timer);
    await this.#reloading;
    await this.#http?.close();
    await this.#current?.server.close();
    this.#current = null;
  }
}

/**
 * dev sends tools/list_changed on every reload, so it says so, whatever the child advertises; and
 * resources/list_changed too when the child declares resources (the views extension's pages).
 */
function withListChanged(message: JsonRpcMessage): JsonRpcMessage {
  const result = message.result as { capabilities?: { tools?: object; resources?: object } } | undefined;
  if (typeof result !== "object" || result === null) return message;
  const resources = result.capabilities?.resources;
  return {
    ...message,
    result: {
      ...result,
      capabilities: {
        ...result.capabilities,
        tools: { ...result.capabilities?.tools, listChanged: true },
        ...(typeof resources === "object" && resources !== null
          ? { resources: { ...resources, listChanged: true } }
          : {}),
      },
    },
  };
}

function hasResources(message: JsonRpcMessage): boolean {
  const resources = (message.result as { capabilities?: { resources?: unknown } } | undefined)?.capabilities?.resources;
  return typeof resources === "object" && resources !== null;
}

function cannotWatch(folder: string, error: unknown): string {
  return `Cannot watch ${JSON.stringify(folder)} for saves (${errorCode(error)}); rebuild with the reload command.`;
}
