/**
 * The logger redacts on its own, whatever its caller did: a line that reaches it holding a secret, in any
 * encoding the redaction covers, leaves without it, in text and in JSON (field by field, so the JSON still
 * parses). The e2e test (test/e2e/json-logs.e2e.test.ts) covers the lines a real server writes.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { createLogger, REFUSAL_RECORDS_PER_WINDOW, REFUSAL_WINDOW_MS } from "../../packages/runtime/src/serve/log.ts";
import { SecretVault } from "../../packages/runtime/src/secrets/secrets.ts";
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

describe("refused requests in the log", () => {
  afterEach(() => void vi.useRealTimers());

  for (const format of ["json", "text"] as const) {
    it(`writes ${REFUSAL_RECORDS_PER_WINDOW} of a kind per window and counts the rest, however many come (${format})`, () => {
      vi.useFakeTimers();
      const lines: string[] = [];
      const logger = createLogger(new SecretVault(), (line) => lines.push(line), { format, level: "debug" });
      for (let i = 0; i < 5000; i++) logger.refused(401, "not authenticated");
      logger.refused(403, "Host or Origin not allowed");
      expect(lines.length).toBe(REFUSAL_RECORDS_PER_WINDOW + 1);
      // The window's end says how many were left out, even when no refusal follows it.
      vi.advanceTimersByTime(REFUSAL_WINDOW_MS);
      expect(lines.length).toBe(REFUSAL_RECORDS_PER_WINDOW + 2);
      const summary = lines.at(-1)!;
      if (format === "json") {
        expect(JSON.parse(summary)).toMatchObject({
          level: "warn",
          event: "refused",
          status: 401,
          reason: "not authenticated",
          omitted: 5000 - REFUSAL_RECORDS_PER_WINDOW,
        });
        expect(lines.slice(0, 3).map((l) => JSON.parse(l) as Record<string, unknown>)).toEqual([
          expect.objectContaining({ event: "refused", status: 401, reason: "not authenticated" }),
          expect.objectContaining({ status: 401 }),
          expect.objectContaining({ status: 401 }),
        ]);
        expect(JSON.parse(lines[0]!)).not.toHaveProperty("omitted");
      } else {
        expect(summary).toBe(
          `Refused ${5000 - REFUSAL_RECORDS_PER_WINDOW} more HTTP requests with 401: not authenticated (not logged one by one)`,
        );
        expect(lines[0]).toBe("Refused an HTTP request with 401: not authenticated");
      }
      // A new window writes one by one again.
      logger.refused(401, "not authenticated");
      expect(lines.length).toBe(REFUSAL_RECORDS_PER_WINDOW + 3);
      vi.advanceTimersByTime(REFUSAL_WINDOW_MS);
      // Nothing was left out of that window: no count.
      expect(lines.length).toBe(REFUSAL_RECORDS_PER_WINDOW + 3);
    });
  }

  it("counts without writing below the log level", () => {
    vi.useFakeTimers();
    const lines: string[] = [];
    const logger = createLogger(new SecretVault(), (line) => lines.push(line), { format: "text", level: "info" });
    for (let i = 0; i < 50; i++) logger.refused(401, "not authenticated");
    vi.advanceTimersByTime(REFUSAL_WINDOW_MS);
    expect(lines).toEqual([]);
  });
});
