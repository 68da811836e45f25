/**
 * The one YAML reader (load/yaml-source.ts) under its two policies, a spec's (loadSpec, KV1xxx) and an OpenAPI
 * document's (readOpenApi, KV7001/KV7002), over the same hostile inputs: each refused with its own code and words,
 * at the same place. The two readers had drifted: only the spec reader refused YAML 1.1, named an unknown tag,
 * cut a broken stream's cascade and placed a stack overflow where the nesting gets deep, and the OpenAPI reader's
 * JSON fast path took nesting that its YAML path refuses.
 */
import { describe, expect, it } from "vitest";
import type { Finding } from "../../packages/compiler/src/diagnostics/diagnostic.ts";
import { MAX_DOCUMENT_BYTES, readOpenApi } from "../../packages/compiler/src/import/document.ts";
import { loadSpec, MAX_SPEC_BYTES } from "../../packages/compiler/src/load/load.ts";

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

/** A finding as one line: code, place and message, so that a wrong one of any of them fails the comparison. */
const line = (f: Finding): string => `${f.code} ${f.at?.line ?? "?"}:${f.at?.column ?? "?"} ${f.message}`;

/** What each policy makes of the same bytes: its findings as lines, or "accepted". */
function read(input: Uint8Array): { spec: string[] | "accepted"; openapi: string[] | "accepted" } {
  const spec = loadSpec("s.yaml", input);
  const openapi = readOpenApi("d.yaml", input);
  return {
    spec: spec.ok ? "accepted" : spec.findings.map(line),
    openapi: openapi.ok ? "accepted" : openapi.problems.map(line),
  };
}

const TAGS = "tags other than !!str, !!int, !!float, !!bool, !!null, !!map and !!seq are refused";

describe("one YAML reader, two policies, the same hostile inputs", () => {
  it("refuses a file over the policy's limit before decoding it, and only over that policy's limit", () => {
    expect(read(new Uint8Array(MAX_DOCUMENT_BYTES + 1))).toEqual({
      spec: [`KV1001 1:1 The spec is larger than ${MAX_SPEC_BYTES} bytes (it has ${MAX_DOCUMENT_BYTES + 1}).`],
      openapi: [
        `KV7001 1:1 The OpenAPI document is larger than ${MAX_DOCUMENT_BYTES} bytes (it has ${MAX_DOCUMENT_BYTES + 1}).`,
      ],
    });
    // Over a spec's limit, under a document's: the document is read (and found empty).
    expect(read(bytes(" ".repeat(MAX_SPEC_BYTES + 1)))).toEqual({
      spec: [`KV1001 1:1 The spec is larger than ${MAX_SPEC_BYTES} bytes (it has ${MAX_SPEC_BYTES + 1}).`],
      openapi: ["KV7002 1:1 The OpenAPI document is empty."],
    });
  });

  it("places the first byte that is not UTF-8", () => {
    // "é" is fine; 0xC3 0x28 is a lead byte without its continuation, at line 2, column 5.
    const input = new Uint8Array([...bytes("a: é\nb: x"), 0xc3, 0x28, ...bytes("\n")]);
    expect(read(input)).toEqual({
      spec: ["KV1002 2:5 The spec is not valid UTF-8 text; save it as UTF-8."],
      openapi: ["KV7001 2:5 The OpenAPI document is not valid UTF-8 text."],
    });
  });

  it("refuses a control character where it is", () => {
    expect(read(bytes("a: 1\nb: \u0007\n"))).toEqual({
      spec: ["KV1004 2:4 YAML does not allow the control character U+0007; is this a text file?"],
      openapi: ["KV7002 2:4 YAML and JSON do not allow the control character U+0007; is this a text file?"],
    });
  });

  it("calls a file with no document empty: nothing, comments, a BOM", () => {
    for (const input of [bytes(""), bytes("# nothing here\n\n"), new Uint8Array([0xef, 0xbb, 0xbf])])
      expect(read(input)).toEqual({
        spec: ["KV1003 1:1 The spec file is empty: it has no YAML document."],
        openapi: ["KV7002 1:1 The OpenAPI document is empty."],
      });
  });

  it("refuses YAML 1.1 at its directive", () => {
    expect(read(bytes("# old\n%YAML 1.1\n---\nopenapi: 3.0.0\n"))).toEqual({
      spec: [
        "KV1013 2:1 Specs are YAML 1.2; remove the %YAML 1.1 directive (YAML 1.1 reads yes/no as booleans, dates as timestamps and applies << merge keys).",
      ],
      openapi: [
        "KV7002 2:1 The document asks for YAML 1.1 (%YAML 1.1), which reads yes as true, 0777 as octal and applies << merge keys; kervanc reads YAML 1.2 only: remove the directive.",
      ],
    });
  });

  it("refuses an unknown tag by the name the file writes", () => {
    expect(read(bytes("a: 1\nb: !!js/function 'x'\n"))).toEqual({
      spec: [`KV1006 2:4 The tag !!js/function is not allowed: a spec holds plain YAML values only (${TAGS}).`],
      openapi: ["KV7002 2:4 The tag !!js/function is not allowed: an OpenAPI document holds plain JSON values."],
    });
    expect(read(bytes("a: !include other.yaml\n"))).toEqual({
      spec: [`KV1006 1:4 The tag !include is not allowed: a spec holds plain YAML values only (${TAGS}).`],
      openapi: ["KV7002 1:4 The tag !include is not allowed: an OpenAPI document holds plain JSON values."],
    });
  });

  it("refuses a repeated key at its second place, in YAML and in JSON (the document's fast path)", () => {
    expect(read(bytes("a: 1\nb: 2\na: 3\n"))).toEqual({
      spec: ['KV1005 3:1 The key "a" appears twice in the same mapping.'],
      openapi: ['KV7002 3:1 The key "a" appears twice in the same mapping.'],
    });
    expect(read(bytes('{"a": 1,\n "b": {"c": 2, "c": 3},\n "a": 4}\n'))).toEqual({
      spec: [
        'KV1005 2:16 The key "c" appears twice in the same mapping.',
        'KV1005 3:2 The key "a" appears twice in the same mapping.',
      ],
      openapi: [
        'KV7002 2:16 The key "c" appears twice in the same mapping.',
        'KV7002 3:2 The key "a" appears twice in the same mapping.',
      ],
    });
  });

  it("stops a billion-laughs alias bomb at the alias that passes each policy's budget", () => {
    // Nine levels of ten: the last would expand to 10^9 copies of "x".
    const names = "abcdefghi";
    const laughs = ["a: &a [x, x, x, x, x, x, x, x, x, x]"];
    for (let i = 1; i < 9; i++)
      laughs.push(
        `${names[i]}: &${names[i]} [${Array(10)
          .fill(`*${names[i - 1]}`)
          .join(", ")}]`,
      );
    expect(read(bytes(`${laughs.join("\n")}\n`))).toEqual({
      // Copies (at most 50, yaml's rule: uses so far, the anchor counted, times the copies inside): *b holds 11
      // (its ten *a and the anchor), so the fourth *b in line 3 makes 5 * 11.
      spec: [
        "KV1008 3:20 The YAML aliases expand too much (more than 50 copies); write the values out or use fewer aliases.",
      ],
      // Uses (80 here, under 1,000) cost nothing, so the expansion cap (32 MiB of values and text) stops it: at
      // the first *g in line 8, whose 2.1 * 10^7 join the earlier levels' 2.3 * 10^7.
      openapi: [
        `KV7002 8:8 The document's YAML aliases expand to more than ${MAX_DOCUMENT_BYTES} values and characters of text in all; an OpenAPI document shares schemas with $ref, not aliases.`,
      ],
    });
  });

  it("refuses 10,000 nested brackets at the hundredth, as YAML and as JSON", () => {
    const deep = `${"[".repeat(10_000)}${"]".repeat(10_000)}`;
    // As JSON (the document's fast path: JSON.parse takes any depth) and as the value of a YAML key.
    expect(read(bytes(deep))).toEqual({
      spec: ["KV1009 1:100 The YAML is nested too deeply to read."],
      openapi: ["KV7002 1:100 The document is nested too deeply to read."],
    });
    expect(read(bytes(`openapi: 3.1.0\nx: ${deep}\n`))).toEqual({
      spec: ["KV1009 2:103 The YAML is nested too deeply to read."],
      openapi: ["KV7002 2:103 The document is nested too deeply to read."],
    });
  });

  it("keeps the first error of a broken stream, not its cascade", () => {
    // After the stray "}", every later token is "in YAML stream": 30 more lines of them.
    const broken = `a: 1\n}\n${Array.from({ length: 30 }, (_, i) => `k${i}: v`).join("\n")}\n`;
    expect(read(bytes(broken))).toEqual({
      spec: ['KV1004 2:1 Unexpected flow-map-end token in YAML stream: "}"'],
      openapi: ['KV7002 2:1 Unexpected flow-map-end token in YAML stream: "}"'],
    });
  });

  it("places broken flow syntax in JSON as in YAML (the fast path leaves it to the parser)", () => {
    expect(read(bytes('{"a": [1, 2},\n "b": 3}\n'))).toEqual({
      spec: ["KV1004 1:12 Flow sequence in block collection must be sufficiently indented and end with a ]"],
      openapi: ["KV7002 1:12 Flow sequence in block collection must be sufficiently indented and end with a ]"],
    });
  });

  it("drops a doubled BOM for a document (so JSON stays on the fast path), and leaves it to the parser for a spec", () => {
    const input = new Uint8Array([0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf, ...bytes('{"a": 1, "a": 2}')]);
    // The spec's text keeps the second BOM (the parser skips it), so its columns count it.
    expect(read(input)).toEqual({
      spec: ['KV1005 1:11 The key "a" appears twice in the same mapping.'],
      openapi: ['KV7002 1:10 The key "a" appears twice in the same mapping.'],
    });
  });
});
