/**
 * The logger redacts on its own, whatever its caller did: a line that reaches it holding a secret, in any
 * encoding the redaction covers, leaves without it, in text and in JSON (field by field, so the JSON still
 * parses). The e2e test (test/e2e/json-logs.test.ts) covers the lines a real server writes.
 */
import { describe, expect, it } from "vitest";
import { createLogger } from "../../packages/runtime/src/log.ts";
import { SecretVault } from "../../packages/runtime/src/secrets.ts";
import { encodings, leaks } from "../helpers/secret-encodings.ts";

const CANARY = 'Cn4ry/+=&"x\\y-tok3n-ZQ';

function capture(format: "text" | "json"): { lines: string[]; logger: ReturnType<typeof createLogger> } {
  const vault = new SecretVault();
  vault.add("API_TOKEN", CANARY);
  const lines: string[] = [];
  return { lines, logger: createLogger(vault, (line) => lines.push(line), { format, level: "debug" }) };
}

describe("the logger", () => {
  for (const format of ["text", "json"] as const) {
    it(`redacts every encoding of a secret (${format})`, () => {
      const { lines, logger } = capture(format);
      for (const [name, form] of Object.entries(encodings(CANARY))) logger.line(`Warning: ${name} ${form}`);
      logger.ready(`Serving on ${CANARY}`);
      logger.refused(401, `reason ${CANARY}`);
      logger.call({
        tool: `t${CANARY}`,
        outcome: "ok",
        durationMs: 1,
        upstreamStatus: 200,
        responseBytes: 2,
        requestId: "r",
      });
      expect(lines.length).toBe(Object.keys(encodings(CANARY)).length + 3);
      for (const line of lines) {
        if (format === "json") expect(() => JSON.parse(line) as unknown).not.toThrow();
        expect(leaks(line, CANARY), line).toEqual([]);
      }
    });
  }

  it("keeps to its level", () => {
    const vault = new SecretVault();
    const lines: string[] = [];
    const logger = createLogger(vault, (line) => lines.push(line), { format: "json", level: "warn" });
    logger.line("Loaded x");
    logger.call({ tool: "t", outcome: "ok", durationMs: 1, upstreamStatus: 200, responseBytes: 2, requestId: "r" });
    logger.line("Warning: w");
    logger.call({ tool: "t", outcome: "error", durationMs: 1, upstreamStatus: 500, responseBytes: 2, requestId: "r" });
    expect(lines.map((l) => (JSON.parse(l) as { level: string }).level)).toEqual(["warn", "warn"]);
  });
});
