/**
 * The server an operation calls: `--server-url`, else the operation's, path item's or document's servers, with
 * `{variables}` filled from their defaults. Each distinct server is parsed once (its problems too).
 */
import { CODES } from "../diagnostics/codes.ts";
import type { SpecPath } from "../diagnostics/diagnostic.ts";
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
        throw new ImportProblem("KV7008", [], CODES.KV7008.messages.noServer);
      }
      const list = found[0] as unknown[];
      // The first https server, else the first: documents often list a plain-http one first (27 of the AWS
      // documents do), and secrets never travel over http.
      const https = list.findIndex((s) => /^https:\/\//i.test(String(own(s, "url") ?? "")));
      const chosen = https < 0 ? 0 : https;
      const first = list[chosen];
      at = [...found[1], chosen];
      const url = own(first, "url");
      if (typeof url !== "string") throw new ImportProblem("KV7003", at, CODES.KV7003.messages.serverWithoutUrl);
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
  const substituted = text.replace(/\{([^{}]*)\}/g, (_whole, name: string) => {
    const value = own(own(variables, name), "default");
    if (typeof value !== "string" && typeof value !== "number") {
      throw new ImportProblem("KV7008", at, CODES.KV7008.messages.variableWithoutDefault({ where, url, name }));
    }
    return String(value);
  });
  let parsed: URL;
  try {
    parsed = new URL(substituted);
  } catch {
    const withOption = fromOption ? "" : " with --server-url";
    throw new ImportProblem("KV7008", at, CODES.KV7008.messages.relative({ where, url, withOption }));
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:")
    throw new ImportProblem("KV7008", at, CODES.KV7008.messages.notHttp({ where, url }));
  if (parsed.username !== "" || parsed.password !== "")
    throw new ImportProblem("KV7008", at, CODES.KV7008.messages.credentials({ where, url }));
  if (parsed.search !== "" || parsed.hash !== "")
    throw new ImportProblem("KV7008", at, CODES.KV7008.messages.queryOrFragment({ where, url }));
  return { url: parsed, text, at, fromOption };
}

/** The server URL's path without a trailing slash, so `/v2` + `/pets` joins to `/v2/pets`. */
export function basePath(url: URL): string {
  return url.pathname.replace(/\/+$/, "");
}

/** `host:port` as a secret binding states it, with the scheme's default port written out. */
export function hostPort(url: URL): string {
  return `${url.hostname}:${url.port !== "" ? url.port : url.protocol === "https:" ? "443" : "80"}`;
}
