/**
 * The upstream-auth credential store in process, with a token endpoint that is a function and a clock the test
 * moves: when a token is renewed, how long a replaced token stays redacted, and how exchanged tokens are kept
 * (per subject, never past the caller's own token, at most EXCHANGED_TOKENS_MAX of them). The end-to-end suites
 * (test/extensions/upstream-auth*.e2e.test.ts) run the same store in a server process against real endpoints.
 */
import { describe, expect, it } from "vitest";
import type { CallerContext } from "../../packages/runtime/src/secrets/credentials/caller.ts";
import {
  CredentialStore,
  EXCHANGED_TOKENS_MAX,
  renewAt,
} from "../../packages/runtime/src/secrets/credentials/store.ts";
import type { Hop, HopTransport } from "../../packages/runtime/src/net/upstream.ts";
import type { TokenCredentialPlan } from "../../packages/runtime/src/plan.ts";
import { SecretVault } from "../../packages/runtime/src/secrets/secrets.ts";

const text = (t: string) => ({ parts: [{ kind: "text" as const, text: t }] });

function plan(kind: TokenCredentialPlan["kind"]): TokenCredentialPlan {
  return {
    name: kind === "clientCredentials" ? "crm" : "crm_user",
    kind,
    tokenUrl: "https://login.example.com/token",
    protocol: "https:",
    hostPort: "login.example.com:443",
    clientId: text("client-id"),
    clientSecret: text("client-secret-literal"),
    clientAuth: "basic",
    secrets: [],
  };
}

/** A token endpoint in process: each request gets the next token, valid for `lifetime` seconds. */
function endpoint(lifetime: number | null) {
  const requests: URLSearchParams[] = [];
  const transport: HopTransport = {
    decoders: new Map(),
    async send(hop: Hop) {
      const form = new URLSearchParams(typeof hop.body === "string" ? hop.body : "");
      requests.push(form);
      const subject = form.get("subject_token") ?? "server";
      const body = new TextEncoder().encode(
        JSON.stringify({
          access_token: `token-${subject}-${requests.length}`,
          token_type: "Bearer",
          ...(lifetime !== null ? { expires_in: lifetime } : {}),
        }),
      );
      return {
        status: 200,
        headers: { get: (name: string) => (name === "content-type" ? "application/json" : undefined) },
        body: (async function* () {
          yield body;
        })(),
        discard() {},
      };
    },
  };
  return { transport, requests };
}

function store(lifetime: number | null, kind: TokenCredentialPlan["kind"]) {
  const clock = { now: 1_000_000 };
  const vault = new SecretVault();
  const { transport, requests } = endpoint(lifetime);
  const credentials = new CredentialStore([plan(kind)], {
    transport,
    allowSecretsOverHttp: false,
    secretSource: { get: () => undefined },
    vault,
    bindings: new Map(),
    now: () => clock.now,
  });
  return { clock, vault, requests, credentials };
}

const stdio: CallerContext = { transport: "stdio" };
const caller = (token: string, subject: string, exp: number): CallerContext => ({
  transport: "http",
  oauth: { token, subject, exp },
});

describe("renewAt", () => {
  it("renews a minute early, at half the life of a short token, and never for a token without a lifetime", () => {
    expect(renewAt(0, 3600)).toBe(3_540_000);
    expect(renewAt(0, 10)).toBe(5_000);
    expect(renewAt(0, null)).toBe(Infinity);
  });
});

describe("client credentials", () => {
  it("keeps the token until it is due, then gets another; a replaced token stays redacted for two more", async () => {
    const { clock, vault, requests, credentials } = store(3600, "clientCredentials");
    const values: string[] = [];
    for (let round = 0; round < 5; round++) {
      values.push((await credentials.resolve(["crm"], stdio)).values.get("crm")!);
      expect((await credentials.resolve(["crm"], stdio)).values.get("crm")).toBe(values.at(-1));
      clock.now += 3_540_000;
    }
    expect(requests).toHaveLength(5);
    expect(new Set(values).size).toBe(5);
    // The current token and the two before it are redacted; older ones are forgotten, so the vault does not grow.
    expect(values.map((v) => vault.containsSecret(`x ${v} x`))).toEqual([false, false, true, true, true]);
  });

  it("keeps a token without expires_in until forgotten, and forgets only the value it holds", async () => {
    const { clock, requests, credentials } = store(null, "clientCredentials");
    const first = (await credentials.resolve(["crm"], stdio)).values;
    clock.now += 365 * 86_400_000;
    expect((await credentials.resolve(["crm"], stdio)).values).toEqual(first);
    expect(credentials.forget(new Map([["crm", "some-other-token"]]))).toBe(false);
    expect(credentials.forget(first)).toBe(true);
    expect((await credentials.resolve(["crm"], stdio)).values.get("crm")).not.toBe(first.get("crm"));
    expect(requests).toHaveLength(2);
  });
});

describe("token exchange", () => {
  it("exchanges once per subject and token, never keeping an exchanged token past the caller's own", async () => {
    const { clock, requests, credentials } = store(3600, "tokenExchange");
    const exp = clock.now / 1000 + 120;
    const alice = caller("alice-token-1", "sub:alice", exp);
    const first = await credentials.resolve(["crm_user"], alice);
    expect((await credentials.resolve(["crm_user"], alice)).values).toEqual(first.values);
    expect(first.callerValues.map(([, value]) => value)).toEqual(["alice-token-1", first.values.get("crm_user")]);
    expect(requests).toHaveLength(1);
    // The caller's token expires in two minutes, the exchanged one in an hour: it is not used past the first.
    clock.now += 121_000;
    const later = caller("alice-token-2", "sub:alice", exp + 3600);
    expect((await credentials.resolve(["crm_user"], later)).values.get("crm_user")).not.toBe(
      first.values.get("crm_user"),
    );
    expect(requests).toHaveLength(2);
    expect(requests[1]!.get("subject_token")).toBe("alice-token-2");
    // A new sign-in (another token, another exp) of the same subject gets its own exchange.
    await credentials.resolve(["crm_user"], caller("alice-token-3", "sub:alice", exp + 7200));
    expect(requests).toHaveLength(3);
  });

  it(`keeps at most ${EXCHANGED_TOKENS_MAX} subjects, dropping the oldest`, async () => {
    const { clock, requests, credentials } = store(3600, "tokenExchange");
    const exp = clock.now / 1000 + 3600;
    for (let n = 0; n <= EXCHANGED_TOKENS_MAX; n++)
      await credentials.resolve(["crm_user"], caller(`token-${n}`, `sub:${n}`, exp));
    expect(requests).toHaveLength(EXCHANGED_TOKENS_MAX + 1);
    await credentials.resolve(
      ["crm_user"],
      caller(`token-${EXCHANGED_TOKENS_MAX}`, `sub:${EXCHANGED_TOKENS_MAX}`, exp),
    );
    expect(requests).toHaveLength(EXCHANGED_TOKENS_MAX + 1);
    await credentials.resolve(["crm_user"], caller("token-0", "sub:0", exp));
    expect(requests).toHaveLength(EXCHANGED_TOKENS_MAX + 2);
  });

  it("refuses without a verified caller token, saying why", async () => {
    const { credentials } = store(3600, "tokenExchange");
    await expect(credentials.resolve(["crm_user"], { transport: "http" })).rejects.toThrow(
      "needs this server's OAuth authentication",
    );
    await expect(credentials.resolve(["crm_user"], stdio)).rejects.toThrow("this server runs over stdio");
  });
});
