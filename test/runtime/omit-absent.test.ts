/**
 * The kervanc omit-absent extension's rendering (render.ts, docs/extensions/omit-absent.md): with
 * `http.omitAbsent: true`, a header whose value is exactly one `{{input.x}}` is left out when the argument is absent
 * or null, and a body key whose value is exactly one `{{input.x}}` is left out when the argument is absent, at any
 * depth (multipart: its fields). Without the field, Kervan's rules hold: an error in a header, null in a body.
 */
import { describe, expect, it } from "vitest";
import { compileSpec } from "../../packages/compiler/src/compile.ts";
import type { JsonValue } from "../../packages/runtime/src/plan.ts";
import { renderRequest } from "../../packages/runtime/src/call/render.ts";
import { compileInProcess } from "../helpers/inprocess.ts";

const spec = (omit: boolean | null, encoding: "json" | "form" | "multipart" = "json"): string => `
specVersion: 1
${omit === null ? "" : "kervancExtensions: [omit-absent]\n"}name: omit
version: "1"
tools:
  - name: t
    description: t
    input:
      type: object
      properties:
        id: { type: string }
        trace: { type: string }
        note: { type: string }
        name: {}
        tags: {}
        city: {}
        zip: {}
        file: { type: string }
        label: {}
    http:
      method: POST
      url: "https://api.example.com/items/{{input.id}}"
      headers:
        X-Trace: "{{input.trace}}"
        X-Note: "note {{input.note}}"
        X-Fixed: fixed
${encoding === "multipart" ? multipartBody : jsonBody}
      bodyEncoding: ${encoding}${omit === null ? "" : `\n      omitAbsent: ${String(omit)}`}
    output: { select: "@" }
`;

const jsonBody = `      body:
        name: "{{input.name}}"
        tags: ["{{input.tags}}", "{{input.label}}"]
        address: { city: "{{input.city}}", zip: "{{input.zip}}", country: NL }
        items: [{ label: "{{input.label}}", kind: x }]
        greeting: "hi {{input.note}}"
        source: kervanc`;

const multipartBody = `      body:
        name: "{{input.name}}"
        file: { content: "{{input.file}}", encoding: base64, filename: "{{input.label}}" }`;

const plan = (text: string) => compileInProcess(text).tools[0]!.plan.request;

function render(text: string, args: Record<string, JsonValue>) {
  const rendered = renderRequest(plan(text), {
    args: { id: "7", note: "n", ...args },
    secrets: new Map(),
    hostPort: "api.example.com:443",
  });
  return {
    headers: Object.fromEntries(rendered.headers),
    body: typeof rendered.body === "string" ? rendered.body : new TextDecoder().decode(rendered.body ?? undefined),
  };
}

describe("omitAbsent: true", () => {
  const on = spec(true);

  it("leaves out a header whose single reference is absent or null; sends it when given", () => {
    expect(render(on, {}).headers).toEqual({ "X-Note": "note n", "X-Fixed": "fixed" });
    expect(render(on, { trace: null }).headers).not.toHaveProperty("X-Trace");
    expect(render(on, { trace: "abc" }).headers).toMatchObject({ "X-Trace": "abc" });
    // An empty string is a value: sent.
    expect(render(on, { trace: "" }).headers).toMatchObject({ "X-Trace": "" });
  });

  it("keeps Kervan's error for a missing value inside mixed text (header and body)", () => {
    const args = { note: undefined as unknown as JsonValue };
    expect(() => render(on, args)).toThrow("Missing value for input.note.");
    expect(() =>
      render(on.replace('        X-Note: "note {{input.note}}"\n', ""), { note: undefined as unknown as JsonValue }),
    ).toThrow("Missing value for input.note.");
  });

  it("leaves out body keys whose single reference is absent, at any depth, and keeps an explicit null", () => {
    expect(JSON.parse(render(on, {}).body)).toEqual({
      tags: [null, null],
      address: { country: "NL" },
      items: [{ kind: "x" }],
      greeting: "hi n",
      source: "kervanc",
    });
    expect(JSON.parse(render(on, { name: null, city: "Utrecht", zip: null, label: "L" }).body)).toEqual({
      name: null,
      tags: [null, "L"],
      address: { city: "Utrecht", zip: null, country: "NL" },
      items: [{ label: "L", kind: "x" }],
      greeting: "hi n",
      source: "kervanc",
    });
  });

  it("keeps values of every JSON type, falsy ones included", () => {
    expect(JSON.parse(render(on, { name: 0, city: false, zip: "" }).body)).toMatchObject({
      name: 0,
      address: { city: false, zip: "", country: "NL" },
    });
  });

  it("form bodies: an absent key is left out (and null, which a form cannot carry, as before)", () => {
    const form = spec(true, "form").replace(
      "kervancExtensions: [omit-absent]",
      "kervancExtensions: [form-body, omit-absent]",
    );
    expect(render(form, { city: "Utrecht" }).body).toBe(
      "address%5Bcity%5D=Utrecht&address%5Bcountry%5D=NL&items%5B0%5D%5Bkind%5D=x&greeting=hi+n&source=kervanc",
    );
  });

  it("multipart bodies: an absent field is left out, and a file object keeps its keys", () => {
    const multipart = spec(true, "multipart").replace(
      "kervancExtensions: [omit-absent]",
      "kervancExtensions: [multipart-body, omit-absent]",
    );
    const absent = render(multipart, {}).body;
    expect(absent).not.toContain('name="name"');
    expect(absent).not.toContain('name="file"');
    const given = render(multipart, { name: "x", file: "aGk=" }).body;
    expect(given).toContain('name="name"\r\n\r\nx\r\n');
    expect(given).toContain('name="file"; filename="file"');
  });
});

describe("without the extension: Kervan's rules", () => {
  for (const [label, text] of [
    ["omitAbsent: false", spec(false)],
    ["no omitAbsent field", spec(null)],
  ] as const) {
    it(`${label}: an absent header argument is an error`, () => {
      expect(() => render(text, {})).toThrow("Missing value for input.trace.");
      expect(() => render(text, { trace: null })).toThrow("Missing value for input.trace.");
    });

    it(`${label}: an absent body argument is sent as null`, () => {
      expect(JSON.parse(render(text, { trace: "t" }).body)).toEqual({
        name: null,
        tags: [null, null],
        address: { city: null, zip: null, country: "NL" },
        items: [{ label: null, kind: "x" }],
        greeting: "hi n",
        source: "kervanc",
      });
    });
  }

  it("plans no omitAbsent for omitAbsent: false or none", () => {
    expect(plan(spec(false))).not.toHaveProperty("omitAbsent");
    expect(plan(spec(null))).not.toHaveProperty("omitAbsent");
    expect(plan(spec(true))).toHaveProperty("omitAbsent", true);
  });

  it("refuses http.omitAbsent without the declaration (KV8002, at the field)", () => {
    const text = spec(true).replace("kervancExtensions: [omit-absent]\n", "");
    const diagnostics = compileSpec("omit.yaml", new TextEncoder().encode(text)).diagnostics;
    expect(diagnostics.map((d) => [d.severity, d.code, d.path])).toEqual([
      ["error", "KV8002", "tools[0].http.omitAbsent"],
    ]);
    expect(diagnostics[0]!.message).toMatch(/kervancExtensions: \[omit-absent\]/);
    const line = text.split("\n").findIndex((l) => l.includes("omitAbsent:")) + 1;
    expect(diagnostics[0]!.line).toBe(line);
  });
});
