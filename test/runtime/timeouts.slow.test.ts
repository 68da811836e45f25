/**
 * The tool-level timeout (hop timeout + 5 s) and cancellation, with a transport that ignores its signal: the
 * call must still end, with the reference's words, when the transport never does.
 */
import { describe, expect, it } from "vitest";
import type { HopTransport } from "../../packages/runtime/src/net/upstream.ts";
import { ToolRunner } from "../../packages/runtime/src/call/runner.ts";
import { envSecrets, SecretVault } from "../../packages/runtime/src/secrets/secrets.ts";
import { compileInProcess } from "../helpers/inprocess.ts";

const SPEC = `
specVersion: 1
name: timeouts
version: "1"
tools:
  - name: stuck
    description: stuck
    http: { url: "https://api.example.com/x", timeoutMs: 100 }
    output: { select: "@" }
`;

/** A transport that never answers and ignores every signal, like a wedged platform call. */
const wedged: HopTransport = { decoders: new Map(), send: () => new Promise(() => {}) };

function runner(): ToolRunner {
  return new ToolRunner(compileInProcess(SPEC), {
    transport: wedged,
    secretSource: envSecrets({}),
    vault: new SecretVault(),
    allowSecretsOverHttp: false,
    log: () => {},
  });
}

describe("tool-level limits", () => {
  it("ends a call after timeoutMs + 5000 ms even if the transport never does", async () => {
    const started = Date.now();
    const result = await runner().call("stuck", {}, new AbortController().signal);
    const elapsed = Date.now() - started;
    expect(result).toEqual({
      content: [{ type: "text", text: 'Tool "stuck" timed out after 5100 ms.' }],
      isError: true,
    });
    expect(elapsed).toBeGreaterThanOrEqual(5000);
  }, 15_000);

  it("ends a cancelled call at once", async () => {
    const controller = new AbortController();
    const pending = runner().call("stuck", {}, controller.signal);
    setTimeout(() => controller.abort(), 50);
    expect(await pending).toEqual({ content: [{ type: "text", text: "The call was cancelled." }], isError: true });
  });
});
