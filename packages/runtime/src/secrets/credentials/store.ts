/**
 * The upstream credentials of a server (kervanc extension upstream-auth, docs/extensions/upstream-auth.md): what
 * `{{credentials.name}}` is for one call.
 *
 * - `clientCredentials`: one token for the server, fetched on first use, kept until shortly before `expires_in`
 *   runs out, fetched by one request however many calls wait for it (single flight), and forgotten when the
 *   upstream answers 401 to a request that carried it (the runner then gets a new one and tries once more).
 * - `tokenExchange`: the caller's verified OAuth access token exchanged for a token per subject (RFC 8693), kept
 *   until it expires and never past the caller's own token. The caller's token goes to the token endpoint only.
 * - `callerHeader`: a header of the caller's HTTP request, read per call.
 *
 * Every value is redacted like a secret: a client-credentials token in the server's vault (the last few of each
 * credential, older ones forgotten), what belongs to one caller in that call's vault only (runner.ts).
 */
import { ToolError } from "../../call/errors.ts";
import type { HopTransport } from "../../net/upstream.ts";
import type { CallerHeaderCredentialPlan, CredentialPlan, Template, TokenCredentialPlan } from "../../plan.ts";
import { SecretError, type SecretSource, type SecretVault } from "../secrets.ts";
import type { CallerContext } from "./caller.ts";
import { ACCESS_TOKEN_TYPE, type IssuedToken, requestToken, TOKEN_EXCHANGE_GRANT } from "./token-endpoint.ts";

/** A token is renewed this long before it expires, or at half its life when that is shorter. */
export const REFRESH_MARGIN_MS = 60_000;
/** Exchanged tokens kept, one per subject; the oldest is dropped beyond this. */
export const EXCHANGED_TOKENS_MAX = 1000;
/** Client-credentials tokens of one credential kept in the server's vault after they were replaced. */
const OLD_TOKENS_REDACTED = 2;

/** A kept token: its value, when to get a new one, and the request getting it. */
interface Kept {
  token: string | null;
  /** When to renew (ms since the epoch); Infinity when the endpoint said no lifetime (kept until a 401). */
  renewAt: number;
  pending: Promise<string> | null;
}

export interface CredentialStoreOptions {
  readonly transport: HopTransport;
  readonly allowSecretsOverHttp: boolean | "loopback";
  readonly secretSource: SecretSource;
  /** The server's vault: client secrets and client-credentials tokens go in it. */
  readonly vault: SecretVault;
  /** Each secret's host bindings (undefined: not bound). */
  readonly bindings: ReadonlyMap<string, readonly string[] | undefined>;
  readonly now?: () => number;
}

export interface ResolvedCredentials {
  /** Each named credential's value for this call. */
  readonly values: ReadonlyMap<string, string>;
  /** The values that belong to this caller alone (redacted in the call's vault), with a name for messages. */
  readonly callerValues: readonly (readonly [string, string])[];
}

export class CredentialStore {
  readonly #plans: ReadonlyMap<string, CredentialPlan>;
  readonly #options: CredentialStoreOptions;
  readonly #now: () => number;
  /** Client-credentials tokens by credential name. */
  readonly #server = new Map<string, Kept>();
  /** Replaced client-credentials tokens still redacted, by credential name, oldest first. */
  readonly #old = new Map<string, string[]>();
  /** Exchanged tokens by credential name and subject; insertion order is age order. */
  readonly #exchanged = new Map<string, Kept & { subjectExp: number }>();

  constructor(plans: readonly CredentialPlan[], options: CredentialStoreOptions) {
    this.#plans = new Map(plans.map((plan) => [plan.name, plan]));
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** The token credentials among `names`: the ones a 401 can be answered for by getting a new token. */
  renewable(names: readonly string[]): string[] {
    return names.filter((name) => this.#plans.get(name)?.kind !== "callerHeader");
  }

  async resolve(names: readonly string[], caller: CallerContext): Promise<ResolvedCredentials> {
    const values = new Map<string, string>();
    const callerValues: [string, string][] = [];
    for (const name of names) {
      const plan = this.#plans.get(name);
      if (plan === undefined) throw new Error(`Credential ${name} is not in the server plan.`);
      switch (plan.kind) {
        case "callerHeader": {
          const value = callerHeader(plan, caller);
          callerValues.push([`credential ${name}`, value]);
          values.set(name, value);
          break;
        }
        case "clientCredentials":
          values.set(name, await this.#clientCredentials(plan));
          break;
        case "tokenExchange": {
          const oauth = caller.oauth;
          if (oauth === undefined)
            throw new ToolError(
              caller.transport === "stdio"
                ? `Credential ${name} exchanges the caller's OAuth access token for a token of its own, so it is available only over Streamable HTTP with OAuth authentication; this server runs over stdio.`
                : `Credential ${name} exchanges the caller's OAuth access token for a token of its own, so it needs this server's OAuth authentication (--oauth-issuer); the server has none.`,
            );
          callerValues.push([`the caller's access token`, oauth.token]);
          const token = await this.#exchange(plan, oauth);
          callerValues.push([`credential ${name}`, token]);
          values.set(name, token);
          break;
        }
      }
    }
    return { values, callerValues };
  }

  /**
   * After an upstream 401 to a request that carried these values: forgets each token credential's value, so the
   * next resolve gets a new one. True when some value was forgotten (then one more attempt is worth making).
   */
  forget(values: ReadonlyMap<string, string>): boolean {
    let forgot = false;
    for (const [name, value] of values) {
      const server = this.#server.get(name);
      if (server !== undefined && server.token === value) {
        server.token = null;
        server.renewAt = 0;
        forgot = true;
      }
      for (const [key, kept] of this.#exchanged)
        if (key.startsWith(`${name}\u0000`) && kept.token === value) {
          this.#exchanged.delete(key);
          forgot = true;
        }
    }
    return forgot;
  }

  async #clientCredentials(plan: TokenCredentialPlan): Promise<string> {
    let kept = this.#server.get(plan.name);
    if (kept === undefined) this.#server.set(plan.name, (kept = { token: null, renewAt: 0, pending: null }));
    if (kept.token !== null && this.#now() < kept.renewAt) return kept.token;
    // One request for every call that waits: the first starts it, the rest wait for the same answer.
    kept.pending ??= this.#fetch(plan, { grant_type: "client_credentials" })
      .then((issued) => {
        const old = kept.token;
        try {
          this.#options.vault.addRemovable(`credential ${plan.name}`, issued.accessToken);
        } catch (error) {
          if (error instanceof SecretError)
            throw new ToolError(`The token issued for credential ${plan.name} cannot be redacted: ${error.message}`);
          throw error;
        }
        if (old !== null && old !== issued.accessToken) this.#retire(plan.name, old);
        kept.token = issued.accessToken;
        kept.renewAt = renewAt(this.#now(), issued.expiresIn);
        return issued.accessToken;
      })
      .finally(() => {
        kept.pending = null;
      });
    return kept.pending;
  }

  /** Keeps a replaced token redacted for a while (a slow answer may still echo it), then forgets it. */
  #retire(name: string, token: string): void {
    const old = this.#old.get(name) ?? [];
    old.push(token);
    while (old.length > OLD_TOKENS_REDACTED) this.#options.vault.remove(old.shift()!);
    this.#old.set(name, old);
  }

  async #exchange(plan: TokenCredentialPlan, oauth: NonNullable<CallerContext["oauth"]>): Promise<string> {
    const key = `${plan.name}\u0000${oauth.subject}`;
    let kept = this.#exchanged.get(key);
    const now = this.#now();
    // The exchanged token is taken only while the caller's own token is valid, and only for the token it came
    // from: a caller who presents another token (a new sign-in) gets a new exchange.
    if (kept !== undefined && (kept.subjectExp !== oauth.exp || now >= oauth.exp * 1000)) {
      this.#exchanged.delete(key);
      kept = undefined;
    }
    if (kept !== undefined && kept.token !== null && now < kept.renewAt) return kept.token;
    if (kept === undefined) {
      if (this.#exchanged.size >= EXCHANGED_TOKENS_MAX) this.#exchanged.delete(this.#exchanged.keys().next().value!);
      kept = { token: null, renewAt: 0, pending: null, subjectExp: oauth.exp };
      this.#exchanged.set(key, kept);
    }
    const entry = kept;
    entry.pending ??= this.#fetch(plan, {
      grant_type: TOKEN_EXCHANGE_GRANT,
      subject_token: oauth.token,
      subject_token_type: ACCESS_TOKEN_TYPE,
      requested_token_type: ACCESS_TOKEN_TYPE,
    })
      .then((issued) => {
        entry.token = issued.accessToken;
        entry.renewAt = Math.min(renewAt(this.#now(), issued.expiresIn), oauth.exp * 1000);
        return issued.accessToken;
      })
      .finally(() => {
        entry.pending = null;
      });
    return entry.pending;
  }

  async #fetch(plan: TokenCredentialPlan, grant: Record<string, string>): Promise<IssuedToken> {
    const client = { id: this.#text(plan, plan.clientId), secret: this.#text(plan, plan.clientSecret) };
    return requestToken(plan, client, grant, this.#options);
  }

  /** A client id or secret template: literal text and declared secrets, each checked against its bindings. */
  #text(plan: TokenCredentialPlan, template: Template): string {
    let out = "";
    for (const part of template.parts) {
      if (part.kind === "text") {
        out += part.text;
        continue;
      }
      if (part.ref.kind !== "secret") throw new Error(`Credential ${plan.name} has a reference that is not a secret.`);
      const name = part.ref.name;
      const hosts = this.#options.bindings.get(name);
      if (hosts !== undefined && !hosts.includes(plan.hostPort))
        throw new ToolError(`Secret ${name} may not be sent to ${plan.hostPort}.`);
      const value = this.#options.secretSource.get(name, { host: plan.hostPort, tool: `credential ${plan.name}` });
      if (value === undefined)
        throw new ToolError(`Secret ${name} of credential ${plan.name} is not configured for ${plan.hostPort}.`);
      try {
        this.#options.vault.add(name, value);
      } catch (error) {
        if (error instanceof SecretError) throw new ToolError(error.message);
        throw error;
      }
      out += value;
    }
    return out;
  }
}

/** When to renew a token that lives `expiresIn` seconds from `now`: a minute early, or at half its life. */
export function renewAt(now: number, expiresIn: number | null): number {
  if (expiresIn === null) return Infinity;
  const life = expiresIn * 1000;
  return now + life - Math.min(REFRESH_MARGIN_MS, life / 2);
}

/** Visible ASCII and inner spaces: what a credential header may carry (no line breaks, no other text). */
const HEADER_VALUE = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

function callerHeader(plan: CallerHeaderCredentialPlan, caller: CallerContext): string {
  if (caller.headers === undefined)
    throw new ToolError(
      `Credential ${plan.name} is read from the ${plan.header} header of each Streamable HTTP request; this server runs over stdio, where there are no request headers.`,
    );
  const value = caller.headers.get(plan.header);
  if (value === null || value === "")
    throw new ToolError(
      `This tool needs the ${plan.header} header on the MCP request (credential ${plan.name}); the request has none. No request was sent.`,
    );
  if (!HEADER_VALUE.test(value))
    throw new ToolError(
      `The ${plan.header} header of the MCP request holds a line break, a control character or a character that is not ASCII (credential ${plan.name}). No request was sent.`,
    );
  return value;
}
