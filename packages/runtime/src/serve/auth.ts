/**
 * Authentication on /mcp, for every runtime that serves the fetch handler (Node through node-http.ts, Workers,
 * Deno, Bun).
 *
 * Two modes. Static bearer tokens, for internal services: the presented token's SHA-256 is compared in constant
 * time with each configured token's, so neither the comparison's time nor an early exit says how much of a
 * token matched. OAuth 2.1 resource server, as the MCP authorization specification describes it: a request
 * without a valid token gets 401 with `WWW-Authenticate: Bearer resource_metadata="..."`, the protected-resource
 * metadata (RFC 9728) is served at /.well-known/oauth-protected-resource, and JWT access tokens are verified by
 * `jose` against the authorization server's JWKS (signature, issuer, audience equal to this server's resource
 * URL, expiry, not-before; asymmetric algorithms only, so `alg: none` and HMAC tokens are refused). The key set
 * is cached and fetched again when a token names a key it does not hold (at most one attempt per cooldown, and
 * never more than MAX_JWKS_BYTES read).
 *
 * A JWT that passed verification is kept, by its SHA-256, for at most VERIFIED_TOKEN_MAX_AGE_MS and never past
 * its `exp`, so a client that sends the same token with every request (as MCP clients do) costs one signature
 * check per minute instead of one per request (an ES256 check was about a sixth of a call's CPU). Only tokens
 * that passed are kept, at most VERIFIED_TOKENS_MAX of them. A kept token is not checked against a changed key
 * set for up to that minute; the key set itself is kept for ten (`cacheMaxAge` below), so a removed key was
 * already honoured that long.
 *
 * A token is never logged or shown: refusals say why in fixed words. The subject (the JWT `sub`, or a digest
 * prefix of a static token) keys the per-client request limit.
 */
import { JOSEError } from "jose/errors";
import { createRemoteJWKSet, customFetch, type FetchImplementation } from "jose/jwks/remote";
import { jwtVerify } from "jose/jwt/verify";
import { isLoopbackHost } from "../net/loopback.ts";

/**
 * How far the clocks of this server and the authorization server may disagree: `exp` and `nbf` are read with this
 * much leeway, and an `iat` more than this far in the future is refused.
 */
export const CLOCK_SKEW_SECONDS = 30;

/**
 * Whether a JWT's `typ` header lets it be taken as an access token: `at+jwt` (RFC 9068), or the generic `JWT`,
 * each with or without `application/` (RFC 7515's shortening) and in any case. Any other type names another kind
 * of token (`logout+jwt`, `secevent+jwt`, `dpop+jwt`, ...), which is refused. The generic `JWT` says nothing of
 * what a token is for (RFC 8725 section 3.11: it is no explicit typing), no more than a missing `typ`, and it is
 * what Auth0's default token profile and Keycloak put on access tokens: refusing it, as RFC 9068 section 4 asks,
 * would refuse those issuers' every token, while an ID token (the confusion RFC 9068's typing guards against) is
 * already refused by the audience check, its `aud` being the client's id and not this server's resource URL.
 */
function isAccessTokenType(typ: unknown): boolean {
  return typeof typ === "string" && /^(?:application\/)?(?:at\+)?jwt$/i.test(typ);
}

export interface OAuthSettings {
  /** The authorization server's issuer identifier (the `iss` every token must carry). */
  readonly issuer: string;
  readonly jwksUrl: string;
  /** This server's resource URL: the `aud` every token must carry, and `resource` in the metadata. */
  readonly audience: string;
}

export interface AuthSettings {
  readonly tokens: readonly string[];
  readonly oauth: OAuthSettings | null;
}

export type AuthResult =
  | {
      readonly ok: true;
      readonly subject: string;
      /**
       * In OAuth mode, the verified access token and its `exp` (seconds): the kervanc upstream-auth extension's
       * token exchange sends it, and only it, to the exchange's token endpoint. Static bearer tokens have none.
       */
      readonly accessToken?: { readonly token: string; readonly exp: number };
    }
  | { readonly ok: false; readonly response: Response };

export interface Authenticator {
  readonly mode: "tokens" | "oauth";
  /** The protected-resource metadata document's path, in OAuth mode. */
  readonly metadataPaths: readonly string[];
  metadata(): Response;
  check(request: Request): Promise<AuthResult>;
}

/** Asymmetric JWS algorithms only: never `none`, never a shared-secret HMAC the JWKS cannot hold safely. */
const ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
];
const WELL_KNOWN = "/.well-known/oauth-protected-resource";
/**
 * After a fetch of the key set, no other for this long (jose's cooldown after a success, keySetFetch's after a
 * failure): a flood of tokens naming unknown keys costs the authorization server at most one request per
 * cooldown, and a rotated-in key is picked up within it.
 */
export const JWKS_COOLDOWN_MS = 5_000;
/** The largest key set read: one holds a few keys, a few kilobytes. */
export const MAX_JWKS_BYTES = 1024 * 1024;
/** How long a verified token is taken again without a new signature check (never past its `exp`). */
export const VERIFIED_TOKEN_MAX_AGE_MS = 60_000;
/** Verified tokens kept at once; past it the oldest goes. */
export const VERIFIED_TOKENS_MAX = 1024;

/**
 * The key set's fetch, for jose: after a failed fetch no other for a cooldown, and a body read only up to
 * MAX_JWKS_BYTES. jose spaces fetches by the last successful one only, so while the key set could not be read
 * (the server down, an error status, not a key set) every request that brought a token fetched it again; and it
 * reads the whole body, however large, within its timeout. Only failures hold fetches back: on Workers jose
 * shares no fetch between requests (a request cannot wait on another's I/O), and holding back every fetch
 * after any attempt refused the requests that came while the first was under way. A success is what jose
 * will take as a key set (status 200, a JSON object with a `keys` array of objects), so it spaces the next.
 */
function keySetFetch(cooldownMs: number): FetchImplementation {
  let failedAt = -Infinity;
  return async (url, init) => {
    if (Date.now() - failedAt < cooldownMs) throw new JOSEError("The key set could not be read moments ago.");
    try {
      // Never followed to another URL (jose asks for that too; said here so no caller's init can change it):
      // the key set is read from the configured URL only, so a redirect cannot move it to plain http.
      const response = await fetch(url, { ...init, redirect: "manual" });
      const reader = response.body?.getReader();
      const chunks: Uint8Array[] = [];
      let total = 0;
      for (;;) {
        const step = reader ? await reader.read() : { done: true as const, value: undefined };
        if (step.done) break;
        total += step.value.byteLength;
        if (total > MAX_JWKS_BYTES) {
          await reader?.cancel().catch(() => {});
          throw new JOSEError(`The key set is larger than ${MAX_JWKS_BYTES} bytes.`);
        }
        chunks.push(step.value);
      }
      const body = new Blob(chunks);
      if (response.status !== 200 || !isKeySet(await body.text())) failedAt = Date.now();
      return new Response(body, { status: response.status, headers: response.headers });
    } catch (error) {
      failedAt = Date.now();
      throw error;
    }
  };
}

/** Whether jose will take this text as a key set (its isJwkSet, on the parsed JSON). */
function isKeySet(text: string): boolean {
  try {
    const document: unknown = JSON.parse(text);
    const keys = (document as { keys?: unknown } | null)?.keys;
    return Array.isArray(keys) && keys.every((key) => typeof key === "object" && key !== null && !Array.isArray(key));
  } catch {
    return false;
  }
}

/** Bearer tokens shorter than this are refused: a token is a password a client sends on every request. */
export const MIN_AUTH_TOKEN_LENGTH = 16;

/**
 * Why a configured bearer token cannot be used, or null: too short to be a secret, or holding a character no
 * client can send in `Authorization: Bearer` (see `bearer`), so that it would never match.
 */
export function authTokenProblem(index: number, token: string): string | null {
  return token.length < MIN_AUTH_TOKEN_LENGTH || /[^\x21-\x7e]/.test(token)
    ? `Bearer token ${index + 1} is shorter than ${MIN_AUTH_TOKEN_LENGTH} characters or not printable ASCII; use long random tokens.`
    : null;
}

/**
 * Why an OAuth setting's URL cannot be used, or null. `keys` is the key set's URL: over plain http only on
 * loopback, since anyone on the path to it could answer with their own key set and then sign any token this
 * server accepts.
 */
export function oauthUrlProblem(name: string, value: string, keys: boolean): string | null {
  let url: URL | null = null;
  try {
    url = new URL(value);
  } catch {
    // Not a URL: said below.
  }
  if (url === null || !/^https?:\/\/[^\s]+$/i.test(value)) return `${name} must be an http(s) URL.`;
  if (keys && url.protocol === "http:" && !isLoopbackHost(url.hostname))
    return `${name} must be https (plain http only on loopback): anyone on the path to it could send their own keys and sign tokens this server accepts.`;
  return null;
}

/** The metadata URL of RFC 9728 §3.1: the well-known segment goes between the host and the resource's path. */
export function resourceMetadataUrl(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === "/" ? "" : url.pathname;
  return `${url.origin}${WELL_KNOWN}${path}`;
}

async function digest(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
}

/** Compares two equal-length digests without an early exit. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ (b[i] ?? 0);
  return diff === 0;
}

const hex = (bytes: Uint8Array): string => [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");

function bearer(request: Request): string | null {
  const header = request.headers.get("authorization");
  if (header === null) return null;
  const match = /^Bearer[ ]+([\x21-\x7e]+)[ ]*$/i.exec(header);
  return match ? match[1]! : "";
}

function unauthorized(challenge: string, message: string): AuthResult {
  return {
    ok: false,
    response: new Response(`${message}\n`, {
      status: 401,
      headers: { "content-type": "text/plain", "www-authenticate": challenge, "cache-control": "no-store" },
    }),
  };
}

export function createAuthenticator(
  settings: AuthSettings,
  options: { cooldownMs?: number } = {},
): Authenticator | null {
  if (settings.oauth !== null) return oauthAuthenticator(settings.oauth, options.cooldownMs ?? JWKS_COOLDOWN_MS);
  if (settings.tokens.length === 0) return null;
  const expected = Promise.all(settings.tokens.map((token) => digest(token)));
  return {
    mode: "tokens",
    metadataPaths: [],
    metadata: () => new Response(null, { status: 404 }),
    async check(request) {
      const token = bearer(request);
      if (token === null)
        return unauthorized('Bearer realm="mcp"', "Unauthorized: send Authorization: Bearer <token>.");
      const presented = await digest(token);
      let match: Uint8Array | null = null;
      // Every configured token is compared, whichever matches.
      for (const candidate of await expected) if (sameBytes(presented, candidate)) match = candidate;
      if (match === null)
        return unauthorized('Bearer realm="mcp", error="invalid_token"', "Unauthorized: the token is not valid.");
      return { ok: true, subject: `token:${hex(match).slice(0, 16)}` };
    },
  };
}

/**
 * Tokens that passed verification, by the hex of their SHA-256 (a fixed-size key: no token text is kept), with
 * the subject they proved and until when they may be taken again. Insertion order is age order.
 */
export class VerifiedTokens {
  readonly #kept = new Map<
    string,
    { readonly subject: string; readonly exp: number; readonly at: number; readonly until: number }
  >();

  /** The subject of a kept token still within its time, else null (and a stale entry is dropped). */
  subject(key: string, now: number): string | null {
    return this.entry(key, now)?.subject ?? null;
  }

  /** A kept token's subject and `exp` while it is within its time, else null (and a stale entry is dropped). */
  entry(key: string, now: number): { readonly subject: string; readonly exp: number } | null {
    const kept = this.#kept.get(key);
    if (kept === undefined) return null;
    // A clock that went back is not trusted to say the token is still young.
    if (now >= kept.at && now < kept.until) return kept;
    this.#kept.delete(key);
    return null;
  }

  /** Tokens kept now. */
  get size(): number {
    return this.#kept.size;
  }

  keep(key: string, subject: string, now: number, exp: number): void {
    const until = Math.min(now + VERIFIED_TOKEN_MAX_AGE_MS, exp * 1000);
    if (!(until > now)) return;
    this.#kept.delete(key);
    if (this.#kept.size >= VERIFIED_TOKENS_MAX) this.#kept.delete(this.#kept.keys().next().value!);
    this.#kept.set(key, { subject, exp, at: now, until });
  }
}

function oauthAuthenticator(oauth: OAuthSettings, cooldownMs: number): Authenticator {
  const metadataUrl = resourceMetadataUrl(oauth.audience);
  const metadataPath = new URL(metadataUrl).pathname;
  const keys = createRemoteJWKSet(new URL(oauth.jwksUrl), {
    cooldownDuration: cooldownMs,
    cacheMaxAge: 10 * 60_000,
    timeoutDuration: 5_000,
    [customFetch]: keySetFetch(cooldownMs),
  });
  const challenge = (error?: string): string =>
    `Bearer resource_metadata="${metadataUrl}"${error !== undefined ? `, error="${error}"` : ""}`;
  const document = JSON.stringify({
    resource: oauth.audience,
    authorization_servers: [oauth.issuer],
    bearer_methods_supported: ["header"],
  });
  const verified = new VerifiedTokens();
  return {
    mode: "oauth",
    metadataPaths: [...new Set([WELL_KNOWN, metadataPath])],
    metadata: () =>
      new Response(document, {
        status: 200,
        headers: {
          "content-type": "application/json",
          "cache-control": "max-age=300",
          "access-control-allow-origin": "*",
        },
      }),
    async check(request) {
      const token = bearer(request);
      if (token === null) return unauthorized(challenge(), "Unauthorized: this server needs an OAuth access token.");
      // Keyed by the whole token, signature included: a token that differs in any byte is verified on its own.
      const key = hex(await digest(token));
      const kept = verified.entry(key, Date.now());
      if (kept !== null) return { ok: true, subject: kept.subject, accessToken: { token, exp: kept.exp } };
      try {
        const verifiedAt = Date.now();
        const { payload, protectedHeader } = await jwtVerify(token, keys, {
          issuer: oauth.issuer,
          audience: oauth.audience,
          algorithms: ALGORITHMS,
          requiredClaims: ["exp", "sub"],
          clockTolerance: CLOCK_SKEW_SECONDS,
          currentDate: new Date(verifiedAt),
        });
        // RFC 9068 section 4: a JWT access token says so in its header. A token whose `typ` names another kind of
        // token (a logout token, a security event) is not an access token, whatever its claims. One without `typ`,
        // or with the generic `JWT`, is taken: issuers before RFC 9068 send one or the other (isAccessTokenType).
        // jose's own `typ` option cannot say this: it requires the header to name exactly one type.
        if (protectedHeader.typ !== undefined && !isAccessTokenType(protectedHeader.typ))
          return unauthorized(
            challenge("invalid_token"),
            "Unauthorized: the token is not an access token (its typ names another kind of JWT, RFC 9068).",
          );
        // Issued in the future beyond the allowed skew: a clock or a token that cannot be trusted. jose checks this
        // only with its `maxTokenAge` option, which makes `iat` required; many access tokens carry none.
        if (typeof payload.iat === "number" && payload.iat > verifiedAt / 1000 + CLOCK_SKEW_SECONDS)
          return unauthorized(challenge("invalid_token"), "Unauthorized: the token is issued in the future.");
        // jose requires `sub` to be present, not to be a name: a number, an object or "" would key the per-client
        // limit by one shared string ("sub:[object Object]") for unrelated clients.
        if (typeof payload.sub !== "string" || payload.sub === "")
          return unauthorized(challenge("invalid_token"), "Unauthorized: the token names no subject.");
        const subject = `sub:${payload.sub}`;
        verified.keep(key, subject, verifiedAt, payload.exp!);
        return { ok: true, subject, accessToken: { token, exp: payload.exp! } };
      } catch (error) {
        const code = typeof error === "object" && error !== null && "code" in error ? String(error.code) : "";
        const reason =
          code === "ERR_JWT_EXPIRED"
            ? "the token has expired"
            : code === "ERR_JWT_CLAIM_VALIDATION_FAILED"
              ? "the token is not for this server, not from its authorization server, or not yet valid"
              : code === "ERR_JWKS_NO_MATCHING_KEY"
                ? "the token's signing key is not in the authorization server's key set"
                : code === "ERR_JWKS_TIMEOUT" || code === "ERR_JOSE_GENERIC" || code === "ERR_JWKS_INVALID"
                  ? "the authorization server's key set could not be read"
                  : "the token is not valid";
        return unauthorized(challenge("invalid_token"), `Unauthorized: ${reason}.`);
      }
    },
  };
}
