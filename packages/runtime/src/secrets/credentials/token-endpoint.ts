/**
 * One request to an OAuth 2.0 token endpoint (kervanc extension upstream-auth): the client credentials grant
 * (RFC 6749 section 4.4) or a token exchange (RFC 8693), sent through the same hop loop, address policy and size
 * limits as a tool's request, to the endpoint alone (its own egress list of one; no redirect is followed).
 *
 * What can go wrong is said in fixed words that name the credential, the endpoint's host and status and, when the
 * answer carries one, the OAuth `error` code (RFC 6749 section 5.2). The endpoint's body is never shown: an
 * authorization server's error description can quote what it was sent.
 */
import { CallDeadline } from "../../call/deadline.ts";
import { ToolError } from "../../call/errors.ts";
import { FORM_CONTENT_TYPE } from "../../call/form.ts";
import { egressCheck, sendUpstream, type HopTransport, type UpstreamResponse } from "../../net/upstream.ts";
import type { TokenCredentialPlan } from "../../plan.ts";
import type { SecretVault } from "../secrets.ts";

/** How long a token request may take, connection and answer included. */
export const TOKEN_REQUEST_TIMEOUT_MS = 10_000;
/** The largest token endpoint answer read: a token answer is a few kilobytes at most. */
export const TOKEN_RESPONSE_MAX_BYTES = 65_536;

export const TOKEN_EXCHANGE_GRANT = "urn:ietf:params:oauth:grant-type:token-exchange";
export const ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token";

export interface TokenEndpointOptions {
  readonly transport: HopTransport;
  readonly allowSecretsOverHttp: boolean | "loopback";
  /** The server's vault: the client secret is in it, so the hop loop treats the request as one carrying secrets. */
  readonly vault: SecretVault;
}

export interface IssuedToken {
  readonly accessToken: string;
  /** Seconds the token is valid for, from `expires_in`; null when the endpoint does not say. */
  readonly expiresIn: number | null;
}

/**
 * Requests a token. `grant` holds the grant's own form fields (grant_type and, for an exchange, the subject
 * token); the client's authentication and the credential's scopes, audience and resource are added here.
 */
export async function requestToken(
  credential: TokenCredentialPlan,
  client: { readonly id: string; readonly secret: string },
  grant: Readonly<Record<string, string>>,
  options: TokenEndpointOptions,
): Promise<IssuedToken> {
  const url = new URL(credential.tokenUrl);
  const form = new URLSearchParams(grant);
  if (credential.scopes !== undefined && credential.scopes.length > 0) form.set("scope", credential.scopes.join(" "));
  if (credential.audience !== undefined) form.set("audience", credential.audience);
  if (credential.resource !== undefined) form.set("resource", credential.resource);
  const headers: [string, string][] = [
    ["accept", "application/json"],
    ["content-type", FORM_CONTENT_TYPE],
  ];
  if (credential.clientAuth === "body") {
    form.set("client_id", client.id);
    form.set("client_secret", client.secret);
  } else {
    // RFC 6749 section 2.3.1: the id and the secret are form-encoded before they are joined and base64-encoded.
    const pair = `${formComponent(client.id)}:${formComponent(client.secret)}`;
    headers.push(["authorization", `Basic ${base64(pair)}`]);
  }
  const where = `${credential.name} (token endpoint ${url.host})`;
  const deadline = new CallDeadline(
    new AbortController().signal,
    TOKEN_REQUEST_TIMEOUT_MS,
    () => new ToolError(`The token request for credential ${where} timed out.`),
  );
  let response: UpstreamResponse;
  try {
    response = await deadline.race(
      sendUpstream(
        { method: "POST", url, headers, body: form.toString() },
        {
          limits: {
            timeoutMs: TOKEN_REQUEST_TIMEOUT_MS,
            maxResponseBytes: TOKEN_RESPONSE_MAX_BYTES,
            allowInsecureHttp: false,
            followRedirects: 0,
          },
          transport: options.transport,
          deadline,
          // The request carries the client secret: never over plain http (outside the development relaxation),
          // and never to another host.
          secrets: {
            mayReceive: (hostPort) => hostPort === credential.hostPort,
            containsSecret: (text) => options.vault.containsSecret(text),
          },
          allowSecretsOverHttp: options.allowSecretsOverHttp,
          egress: egressCheck([credential]),
        },
      ),
      (reason) => reason,
    );
  } catch (error) {
    const why = error instanceof ToolError ? ` ${error.message}` : "";
    throw new ToolError(`Could not get a token for credential ${where}.${why}`);
  } finally {
    deadline.dispose();
  }
  return readTokenAnswer(response, credential, where);
}

function readTokenAnswer(response: UpstreamResponse, credential: TokenCredentialPlan, where: string): IssuedToken {
  const parsed = parseObject(response.body);
  if (response.status < 200 || response.status >= 300) {
    const code = parsed !== null ? oauthErrorCode(parsed["error"]) : null;
    throw new ToolError(
      `The token endpoint refused credential ${where}: HTTP ${response.status}${code !== null ? `, error ${code}` : ""}.`,
    );
  }
  if (parsed === null) throw new ToolError(`The token endpoint's answer for credential ${where} is not a JSON object.`);
  const token = parsed["access_token"];
  if (typeof token !== "string" || token === "")
    throw new ToolError(`The token endpoint's answer for credential ${where} has no access_token.`);
  const type = parsed["token_type"];
  // A bearer token is what a template can send; an exchange may answer N_A for a token that is not an OAuth
  // access token (RFC 8693 section 2.2.1), which is sent as it is all the same.
  if (typeof type === "string" && !/^bearer$/i.test(type) && !(credential.kind === "tokenExchange" && type === "N_A")) {
    const shown = /^[A-Za-z0-9_.+-]{1,40}$/.test(type) ? ` (${type})` : "";
    throw new ToolError(`The token endpoint issued credential ${where} a token that is not a bearer token${shown}.`);
  }
  const expiresIn = parsed["expires_in"];
  // Some endpoints send the number as a string; anything else is treated as unknown.
  const seconds =
    typeof expiresIn === "number"
      ? expiresIn
      : typeof expiresIn === "string" && /^\d{1,10}$/.test(expiresIn)
        ? Number(expiresIn)
        : null;
  return {
    accessToken: token,
    expiresIn: seconds !== null && Number.isFinite(seconds) && seconds > 0 ? seconds : null,
  };
}

function parseObject(body: Uint8Array): Record<string, unknown> | null {
  try {
    const value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(body)) as unknown;
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/**
 * An OAuth error code, when it is one (RFC 6749 section 5.2: printable ASCII without `"` and `\`, here also short
 * and without spaces, as every registered code is): a code is an identifier, so it may be shown.
 */
export function oauthErrorCode(value: unknown): string | null {
  return typeof value === "string" && /^[A-Za-z0-9_.:-]{1,64}$/.test(value) ? value : null;
}

/** application/x-www-form-urlencoded for one component (space as `+`), as RFC 6749 appendix B asks. */
function formComponent(text: string): string {
  return new URLSearchParams({ v: text }).toString().slice(2);
}

function base64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}
