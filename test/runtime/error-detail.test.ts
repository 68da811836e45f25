/**
 * The error-detail extension's detail (runtime/call/error-detail.ts), in process: a secret the API echoes in its error
 * answer never reaches the detail, in any form; the detail is bounded; anything odd gives no detail at all.
 */
import { compile } from "@jmespath-community/jmespath";
import { describe, expect, it } from "vitest";
import { errorDetail } from "../../packages/runtime/src/call/error-detail.ts";
import type { UpstreamResponse } from "../../packages/runtime/src/net/upstream.ts";
import type { SelectNode } from "../../packages/runtime/src/index.ts";
import { SecretVault } from "../../packages/runtime/src/secrets/secrets.ts";

const SECRET = "sk_live_0123456789abcdef";
const vault = new SecretVault();
vault.add("API_KEY", SECRET);

const answer = (body: string, type = "application/json"): UpstreamResponse => ({
  status: 422,
  contentType: type,
  body: new TextEncoder().encode(body),
  url: new URL("https://api.example.com/x"),
  retryAfter: null,
});
const detail = (expression: string, maxChars = 600) => ({
  expression,
  ast: compile(expression) as unknown as SelectNode,
  maxChars,
});

describe("errorDetail", () => {
  it("redacts a secret the API echoes, as a value, inside a string, or built by the expression", () => {
    const body = JSON.stringify({
      message: `bad key ${SECRET}`,
      key: SECRET,
      parts: [SECRET.slice(0, 10), SECRET.slice(10)],
    });
    for (const expression of ["message", "key", "join('', parts)", "@"]) {
      const shown = errorDetail(answer(body), detail(expression), vault);
      expect(shown).not.toBeNull();
      expect(shown).not.toContain(SECRET);
      expect(shown).not.toContain(SECRET.slice(0, 10) + SECRET.slice(10, 12));
    }
  });

  it("is bounded by maxChars, on a 10 MiB answer too", () => {
    const big = JSON.stringify({ message: "x".repeat(10 * 1024 * 1024) });
    const shown = errorDetail(answer(big), detail("message", 2000), vault)!;
    expect(shown.length).toBeLessThanOrEqual(2000 + " [cut]".length);
  });

  it("gives nothing for a body that is not JSON, empty, invalid, or a result that is empty", () => {
    expect(errorDetail(answer("<h1>x</h1>", "text/html"), detail("@"), vault)).toBeNull();
    expect(errorDetail(answer(""), detail("@"), vault)).toBeNull();
    expect(errorDetail(answer("{"), detail("@"), vault)).toBeNull();
    expect(errorDetail(answer('{"errors": []}'), detail("errors"), vault)).toBeNull();
    expect(errorDetail(answer('{"a": 1}'), detail("b"), vault)).toBeNull();
  });
});
