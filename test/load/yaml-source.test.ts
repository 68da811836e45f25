/**
 * The one YAML reader (load/yaml-source.ts) under its two policies, spec (loadSpec, KV1xxx) and OpenAPI document
 * (readOpenApi, KV7001/KV7002), over the same hostile inputs: each refused with its own code, at the place of the
 * problem, with the same rules (they had drifted: only specs refused YAML 1.1 and unknown tags by name, cut a
 * broken stream's cascade, and placed a stack overflow where the nesting gets deep).
 */
import { describe, expect, it } from "vitest";
import type { Finding } from "../../packages/compiler/src/diagnostics/diagnostic.ts";
import { readOpenApi } from "../../packages/compiler/src/import/document.ts";
import { loadSpec } from "../../packages/compiler/src/load/load.ts";

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

interface Seen {
  code: string;
  line: number;
  column: number;
  message: string;
}
const seen = (findings: readonly Finding[]): Seen[] =>
  findings.map((f) => ({ code: f.code, line: f.at?.line ?? 0, column: f.at?.column ?? 0, message: f.message }));

function bothRefuse(input: Uint8Array): { spec: Seen[]; openapi: Seen[] } {
  const spec = loadSpec("s.yaml", input);
  const openapi = readOpenApi("d.yaml", input);
  if (spec.ok || openapi.ok) throw new Error("accepted");
  return { spec: seen(spec.findings), openapi: seen(openapi.problems) };
}

describe("one YAML reader, two policies", () => {
  it("places the first byte that is not UTF-8", () => {
    const input = new Uint8Array([...bytes("a: 1\nb: x"), 0xc3, 0x28, ...bytes("\n")]);
    const { spec, openapi } = bothRefuse(input);
    expect(spec).toEqual([expect.objectContaining({ code: "KV1002", line: 2, column: 5 })]);
    expect(openapi).toEqual([expect.objectContaining({ code: "KV7001", line: 2, column: 5 })]);
  });

  it("refuses a control character where it is", () => {
    const { spec, openapi } = bothRefuse(bytes("a: 1\nb: \u0007\n"));
    expect(spec).toEqual([
      expect.objectContaining({ code: "KV1004", line: 2, column: 4, message: expect.stringMatching(/U\+0007/) }),
    ]);
    expect(openapi).toEqual([
      expect.objectContaining({ code: "KV7002", line: 2, column: 4, message: expect.stringMatching(/0007/) }),
    ]);
  });

  it("calls a file of comments empty", () => {
    const { spec, openapi } = bothRefuse(bytes("# nothing here\n\n"));
    expect(spec.map((s) => s.code)).toEqual(["KV1003"]);
    expect(openapi).toEqual([expect.objectContaining({ code: "KV7002", message: "The OpenAPI document is empty." })]);
  });

  it("refuses YAML 1.1 at its directive", () => {
    const { spec, openapi } = bothRefuse(bytes("%YAML 1.1\n---\nopenapi: 3.0.0\n"));
    expect(spec).toEqual([expect.objectContaining({ code: "KV1013", line: 1, column: 1 })]);
    expect(openapi).toEqual([
      expect.objectContaining({ code: "KV7002", line: 1, column: 1, message: expect.stringMatching(/YAML 1\.1/) }),
    ]);
  });

  it("refuses an unknown tag by name", () => {
    const { spec, openapi } = bothRefuse(bytes("a: !!js/function 'x'\n"));
    expect(spec).toEqual([
      expect.objectContaining({ code: "KV1006", line: 1, column: 4, message: expect.stringMatching(/!!js\/function/) }),
    ]);
    expect(openapi).toEqual([
      expect.objectContaining({
        code: "KV7002",
        line: 1,
        column: 4,
        message: expect.stringMatching(/^The tag !!js\/function is not allowed/),
      }),
    ]);
  });

  it("refuses a repeated key at the second one", () => {
    const { spec, openapi } = bothRefuse(bytes("a: 1\nb: 2\na: 3\n"));
    expect(spec).toEqual([expect.objectContaining({ code: "KV1005", line: 3, column: 1 })]);
    expect(openapi).toEqual([expect.objectContaining({ code: "KV7002", line: 3, column: 1 })]);
  });

  it("stops an alias bomb under each policy's budget", () => {
    const laughs = ["a: &a [x, x, x, x, x, x, x, x, x, x]"];
    for (let i = 1; i < 9; i++)
      laughs.push(
        `${"abcdefghi"[i]}: &${"abcdefghi"[i]} [${Array(10)
          .fill(`*${"abcdefghi"[i - 1]}`)
          .join(", ")}]`,
      );
    const { spec, openapi } = bothRefuse(bytes(`${laughs.join("\n")}\n`));
    expect(spec.map((s) => s.code)).toEqual(["KV1008"]);
    expect(openapi.map((s) => s.code)).toEqual(["KV7002"]);
    expect(openapi[0]!.message).toMatch(/alias/i);
  });

  it("places a stack overflow where the nesting gets deep, not at the start", () => {
    const { spec, openapi } = bothRefuse(bytes(`a: ${"[".repeat(10_000)}${"]".repeat(10_000)}\n`));
    for (const found of [spec, openapi]) {
      expect(found).toHaveLength(1);
      expect(found[0]!.column).toBeGreaterThan(50);
    }
    expect(spec[0]!.code).toBe("KV1009");
    expect(openapi[0]).toMatchObject({ code: "KV7002", message: "The document is nested too deeply to read." });
  });

  it("keeps the first error of a broken stream, not its cascade", () => {
    const broken = `a: 1\n}\n${Array.from({ length: 30 }, (_, i) => `k${i}: v`).join("\n")}\n`;
    const { spec, openapi } = bothRefuse(bytes(broken));
    expect(spec.length).toBeLessThan(5);
    expect(openapi.length).toBe(spec.length);
    expect(openapi[0]!.line).toBe(2);
  });

  it("refuses a file over each policy's limit before reading it", () => {
    const spec = loadSpec("s.yaml", new Uint8Array(1_048_577));
    expect(spec.ok ? [] : seen(spec.findings)).toEqual([
      expect.objectContaining({ code: "KV1001", line: 1, column: 1 }),
    ]);
    const openapi = readOpenApi("d.yaml", new Uint8Array(32 * 1_048_576 + 1));
    expect(openapi.ok ? [] : seen(openapi.problems)).toEqual([expect.objectContaining({ code: "KV7001" })]);
  });
});
