/**
 * The server an operation calls: `--server-url`, else the operation's, path item's or document's servers, with
 * `{variables}` filled from their defaults. Each distinct server is parsed once (its problems too).
 */
import { report, type SpecPath } from "../diagnostics/diagnostic.ts";
import type { Operation } from "./context.ts";
import { ImportProblem, own } from "./refs.ts";

export interface Server {
  readonly url: URL;
  readonly text: string;
  readonly at: SpecPath;
  readonly fromOption: boolean;
  /** Set when an https server was chosen over a plain-http one listed before it: that one's URL. */
  readonly passedOver?: string;
}

export class Servers {
  readonly #root: Record<string, unknown>;
  readonly #serverUrl: string | undefined;
  readonly #cache = new Map<string, Server | ImportProblem>();

  constructor(root: Record<string, unknown>, serverUrl: string | undefined) {
    this.#root = root;
    this.#serverUrl = serverUrl;
  }

  /** The operation's server; throws ImportProblem when there is none that works. */
  for(operation: Operation): Server {
    let text: string;
    let at: SpecPath;
    let fromOption = false;
    let variables: unknown;
    let passedOver: string | undefined;
    if (this.#serverUrl !== undefined) {
      text = this.#serverUrl;
      at = [];
      fromOption = true;
    } else {
      const candidates: [unknown, SpecPath][] = [
        [operation.op["servers"], [...operation.at, "servers"]],
        [operation.item["servers"], [...operation.itemAt, "servers"]],
        [this.#root["servers"], ["servers"]],
      ];
      const found = candidates.find(([list]) => Array.isArray(list) && list.length > 0);
      if (found === undefined) {
        throw new ImportProblem(report("KV7008", [], (m) => m.noServer));
      }
      const list = found[0] as unknown[];
      // The first https server, else the first: documents often list a plain-http one first (27 of the AWS
      // documents do), and secrets never travel over http.
      const https = list.findIndex((s) => /^https:\/\//i.test(String(own(s, "url") ?? "")));
      const chosen = https < 0 ? 0 : https;
      const first = list[chosen];
      at = [...found[1], chosen];
      const url = own(first, "url");
      if (typeof url !== "string") throw new ImportProblem(report("KV7003", at, (m) => m.serverWithoutUrl));
      text = url;
      at = [...at, "url"];
      variables = own(first, "variables");
      if (chosen > 0) passedOver = String(own(list[0], "url"));
    }
    const key = `${JSON.stringify(at)}\u0000${text}`;
    const cached = this.#cache.get(key);
    if (cached instanceof ImportProblem) throw cached;
    if (cached !== undefined) return cached;
    try {
      const parsed = parseServer(text, at, variables, fromOption);
      const server = passedOver !== undefined ? { ...parsed, passedOver } : parsed;
      this.#cache.set(key, server);
      return server;
    } catch (error) {
      if (error instanceof ImportProblem) this.#cache.set(key, error);
      throw error;
    }
  }
}

export function parseServer(text: string, at: SpecPath, variables: unknown, fromOption: boolean): Server {
  const where = fromOption ? "--server-url" : "The server URL";
  const url = JSON.stringify(text);
  const hostEnd = authorityEnd(text);
  const substituted = text.replace(/\{([^{}]*)\}/g, (_whole, name: string, offset: number) => {
    const value = own(own(variables, name), "default");
    if (typeof value !== "string" && typeof value !== "number") {
      throw new ImportProblem(report("KV7008", at, (m) => m.variableWithoutDefault({ where, url, name })));
    }
    // In the scheme or the host, a default such as "evil.example/" would end the host early: only name characters.
    if (offset < hostEnd && !/^[A-Za-z0-9.-]*$/.test(String(value))) {
      const shown = JSON.stringify(String(value));
      throw new ImportProblem(report("KV7008", at, (m) => m.variableInHost({ where, url, name, value: shown })));
    }
    return String(value);
  });
  let parsed: URL;
  try {
    parsed = new URL(substituted);
  } catch {
    const withOption = fromOption ? "" : " with --server-url";
    throw new ImportProblem(report("KV7008", at, (m) => m.relative({ where, url, withOption })));
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:")
    throw new ImportProblem(report("KV7008", at, (m) => m.notHttp({ where, url })));
  // A WHATWG URL reads a backslash as "/", drops tabs and line breaks, decodes %-escapes in the host and rewrites
  // numbers (0x7f.1 is 127.0.0.1): the host a URL is sent to must be the one its text shows a reviewer.
  const written = substituted.slice(hostStart(substituted), authorityEnd(substituted)).toLowerCase();
  const defaultPort = parsed.protocol === "https:" ? "443" : "80";
  if (
    /[\\\u0000-\u0020\u007f]/.test(substituted) ||
    (written !== parsed.host && written !== `${parsed.host}:${defaultPort}` && !written.includes("@"))
  )
    throw new ImportProblem(report("KV7008", at, (m) => m.unclearHost({ where, url, host: parsed.hostname })));
  if (parsed.username !== "" || parsed.password !== "")
    throw new ImportProblem(report("KV7008", at, (m) => m.credentials({ where, url })));
  if (parsed.search !== "" || parsed.hash !== "")
    throw new ImportProblem(report("KV7008", at, (m) => m.queryOrFragment({ where, url })));
  return { url: parsed, text, at, fromOption };
}

/** Where the host starts in a URL's text: after "scheme://" (0 when there is none; the URL is then refused). */
function hostStart(text: string): number {
  const i = text.indexOf("://");
  return i < 0 ? 0 : i + 3;
}

/** Where the authority ends in a URL's text (variables skipped whole): at the first "/", "\\", "?" or "#". */
function authorityEnd(text: string): number {
  for (let i = hostStart(text); i < text.length; i++) {
    const c = text[i]!;
    if (c === "{") {
      const close = text.indexOf("}", i);
      if (close < 0) return text.length;
      i = close;
    } else if (c === "/" || c === "\\" || c === "?" || c === "#") return i;
  }
  return text.length;
}

/** The server URL's path without a trailing slash, so `/v2` + `/pets` joins to `/v2/pets`. */
export function basePath(url: URL): string {
  // A loop, not /\/+$/, which is quadratic over a run of slashes inside the path.
  const path = url.pathname;
  let end = path.length;
  while (end > 0 && path[end - 1] === "/") end--;
  return path.slice(0, end);
}

/** `host:port` as a secret binding states it, with the scheme's default port written out. */
export function hostPort(url: URL): string {
  return `${url.hostname}:${url.port !== "" ? url.port : url.protocol === "https:" ? "443" : "80"}`;
}
