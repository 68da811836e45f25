/**
 * OAuth client-credentials schemes as credentials (kervanc import --upstream-auth; the kervanc extension
 * upstream-auth, docs/extensions/upstream-auth.md). An `oauth2` scheme with a `clientCredentials` flow whose
 * `tokenUrl` is https becomes one `oauth2ClientCredentials` credential named after the scheme, with two secrets
 * (the client id and secret, bound to the token endpoint's host) and the scopes the imported operations ask for;
 * each tool sends `Authorization: Bearer {{credentials.<name>}}` instead of a static token secret.
 *
 * Without the flag the import stays plain Kervan: such a scheme is a static token secret, and its note says the
 * flag exists.
 */
import type { Auth, ClientCredentialsFlow, Security } from "./security.ts";

interface ImportedCredential {
  readonly name: string;
  readonly tokenUrl: string;
  readonly hostPort: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly scopes: Set<string>;
}

/** A credential name from a scheme name: letters, digits and `_`, starting with a letter or `_`. */
function credentialName(scheme: string): string {
  const name = scheme
    .replace(/[^A-Za-z0-9_]+/g, "_")
    .replace(/^(?=[0-9])/, "_")
    .slice(0, 64);
  return name === "" || /^_+$/.test(name) ? "oauth" : name;
}

/** The token endpoint's absolute https URL, resolved against the operation's server; null when it is not one. */
export function tokenEndpoint(tokenUrl: string, server: URL): URL | null {
  try {
    const url = new URL(tokenUrl, server);
    return url.protocol === "https:" && url.username === "" && url.password === "" && url.hash === "" ? url : null;
  } catch {
    return null;
  }
}

export class UpstreamAuthImport {
  readonly #security: Security;
  readonly #credentials = new Map<string, ImportedCredential>();
  readonly #names = new Set<string>();

  constructor(security: Security) {
    this.#security = security;
  }

  /**
   * Takes the client-credentials schemes out of an operation's auth: the rest stays static secrets, and each one
   * taken becomes a header template sending its credential.
   */
  take(auth: Auth, server: URL): { auth: Auth; headers: Record<string, string> } {
    const kept: Auth["credentials"][number][] = [];
    const headers: Record<string, string> = {};
    for (const entry of auth.credentials) {
      const url = entry.flow !== undefined ? tokenEndpoint(entry.flow.tokenUrl, server) : null;
      if (entry.flow === undefined || url === null || entry.credential.kind !== "header") {
        kept.push(entry);
        continue;
      }
      const credential = this.#credential(entry.flow, url);
      for (const scope of entry.flow.scopes) credential.scopes.add(scope);
      headers[entry.credential.name] = `${entry.credential.prefix}{{credentials.${credential.name}}}`;
    }
    return { auth: { ...auth, credentials: kept }, headers };
  }

  #credential(flow: ClientCredentialsFlow, url: URL): ImportedCredential {
    const key = `${flow.scheme}\u0000${url.href}`;
    let credential = this.#credentials.get(key);
    if (credential === undefined) {
      let name = credentialName(flow.scheme);
      for (let n = 2; this.#names.has(name); n++) name = `${credentialName(flow.scheme)}_${n}`;
      this.#names.add(name);
      const port = url.port !== "" ? url.port : "443";
      credential = {
        name,
        tokenUrl: url.href,
        hostPort: `${url.hostname}:${port}`,
        clientId: this.#security.secretName(`client-id:${key}`, `${flow.scheme}_CLIENT_ID`),
        clientSecret: this.#security.secretName(`client-secret:${key}`, `${flow.scheme}_CLIENT_SECRET`),
        scopes: new Set(),
      };
      this.#credentials.set(key, credential);
    }
    return credential;
  }

  get any(): boolean {
    return this.#credentials.size > 0;
  }

  /** The secrets the credentials use, each with the one host it may be sent to (the token endpoint). */
  secrets(): Map<string, string> {
    const out = new Map<string, string>();
    for (const c of this.#credentials.values()) {
      out.set(c.clientId, c.hostPort);
      out.set(c.clientSecret, c.hostPort);
    }
    return out;
  }

  /** The spec's `credentials` mapping, in the order the credentials were first used. */
  entries(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const c of this.#credentials.values())
      out[c.name] = {
        oauth2ClientCredentials: {
          tokenUrl: c.tokenUrl,
          clientId: `{{secrets.${c.clientId}}}`,
          clientSecret: `{{secrets.${c.clientSecret}}}`,
          ...(c.scopes.size > 0 ? { scopes: [...c.scopes].sort() } : {}),
        },
      };
    return out;
  }

  /** The note on each secret, for the comment above it. */
  notes(): Map<string, string> {
    const out = new Map<string, string>();
    for (const c of this.#credentials.values()) {
      out.set(c.clientId, `the OAuth client id of credential ${c.name}, sent to ${c.hostPort} only`);
      out.set(c.clientSecret, `the OAuth client secret of credential ${c.name}, sent to ${c.hostPort} only`);
    }
    return out;
  }
}
