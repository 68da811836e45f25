/**
 * Document text cannot change what the written spec means. An OpenAPI document often comes from a third party;
 * each text it holds (names, descriptions, enum values, examples, routes, media types, extensions) is put where
 * the importer puts it, as data, whatever YAML syntax, template markers or line breaks it contains. The spec the
 * import writes is loaded by the compiler's own loader, and checked against what the document may cause: one
 * declared secret bound to the one server, templates only the importer wrote, no setting the document did not
 * ask for, one tool per operation. (Templates are parsed in http.url, query values, header values and the body
 * only: "{{" in a description or an enum value is text.)
 */
import { describe, expect, it } from "vitest";
import { compileSpec } from "../../packages/compiler/src/compile.ts";
import { api, imp, specOf } from "./helpers.ts";

/** Texts that mean something to YAML, to templates, to URLs or to a reader's eye. */
const HOSTILE = [
  'a\nsecrets: [{name: EVIL, hosts: ["evil.example:443"]}]',
  "x\r  allowPrivateNetwork: true",
  "y\u2028allowInsecureHttp: true",
  "z\u0085headers: {X-Evil: 1}",
  "{{secrets.API_KEY}}",
  "}}{{input.q}}",
  "{{ secrets.API_KEY }}",
  "%7B%7Bsecrets.API_KEY%7D%7D",
  "# comment",
  "key: value",
  "- item",
  "? k",
  "*alias",
  "&anchor",
  "!!binary",
  "'single",
  '"double',
  "|",
  "> folded",
  "@evil.example",
  "\\evil.example",
  "../..",
  "__proto__",
  "constructor",
  "\u202eevil\u202c",
  "nul\u0000byte",
  "   ",
  "",
];

/** One document with `text` in every place the importer copies document text from. */
function document(text: string): Record<string, unknown> {
  const p = (name: string, where: string, extra: Record<string, unknown> = {}) => ({
    name,
    in: where,
    description: text,
    schema: { type: "string", enum: [text, "b"], example: text, default: text, "x-note": text },
    ...extra,
  });
  return api(
    {
      [`/items/{id}/${encodeURIComponent(text)}`]: {
        post: {
          operationId: text,
          summary: text,
          description: text,
          tags: [text],
          "x-extension": { [text]: text },
          parameters: [
            p("id", "path", { required: true }),
            p(text, "query"),
            p(text, "header", { required: true }),
            p("X-Trace", "header", { required: true }),
            p(text, "cookie"),
          ],
          requestBody: {
            description: text,
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  description: text,
                  properties: { [text]: { type: "string", title: text, pattern: "^a$", format: text }, ok: {} },
                  required: [text],
                  example: { [text]: text },
                },
              },
            },
          },
          responses: {
            "200": {
              description: text,
              content: {
                "application/json": { schema: { type: "object", properties: { [text]: { type: "string" }, id: {} } } },
              },
            },
          },
        },
      },
      [`/other/${text}`]: { get: { operationId: `other ${text}`, responses: { "200": { description: text } } } },
    },
    {
      info: { title: text, version: text, description: text },
      components: { securitySchemes: { apiKey: { type: "apiKey", in: "header", name: "X-Api-Key" } } },
      security: [{ apiKey: [] }],
      "x-top": text,
    },
  );
}

/** Every string in a value, with where it is. */
function strings(value: unknown, at: string[] = []): [string[], string][] {
  if (typeof value === "string") return [[at, value]];
  if (Array.isArray(value)) return value.flatMap((v, i) => strings(v, [...at, String(i)]));
  if (typeof value === "object" && value !== null)
    return Object.entries(value).flatMap(([k, v]) => [
      ...(k.includes("{{") ? [[[...at, k], k] as [string[], string]] : []),
      ...strings(v, [...at, k]),
    ]);
  return [];
}

describe("document text in the written spec", () => {
  it.each(HOSTILE.map((t) => [JSON.stringify(t), t]))("%s stays data", (_label, hostile) => {
    const result = imp(document(hostile!));
    if (!result.ok) {
      // Refusing is allowed; a refusal is positioned diagnostics, never a crash.
      expect(result.diagnostics.every((d) => d.line > 0 && d.column > 0)).toBe(true);
      return;
    }
    const text = result.text!;
    // One kind of line break (the importer's own), no raw bidi control, and the header is comment lines.
    expect(text).not.toMatch(/[\r\u0085\u2028\u2029\u202a-\u202e\u2066-\u2069]/);
    expect(
      text
        .split("\n")
        .slice(0, 2)
        .every((l) => l.startsWith("# ")),
    ).toBe(true);
    const spec = specOf(result);
    expect(Object.keys(spec).sort()).toEqual(
      ["specVersion", "kervancExtensions", "name", "version", "description", "secrets", "tools"]
        .filter((k) => k in spec)
        .sort(),
    );
    // The body's optional property is left out when absent: the one extension an import of this document uses.
    if ("kervancExtensions" in spec) expect(spec["kervancExtensions"]).toEqual(["omit-absent"]);
    expect(spec["specVersion"]).toBe(1);
    expect(spec.secrets).toEqual([{ name: "API_KEY", hosts: ["api.example.com:443"] }]);
    // A path key with a "." or ".." segment is left out (route-paths.test.ts), and so is one whose ?query is not
    // plain text (a query a path key carries is sent as written, never dropped: fidelity.test.ts).
    const query = `/other/${hostile}`.split("#")[0]!.split("?").slice(1).join("?");
    const leftOut = hostile === "../.." || (query !== "" && !/^[A-Za-z0-9._~=&%+-]+$/.test(query));
    expect(spec.tools.length).toBe(leftOut ? 1 : 2);
    // What the built server sends: the one origin, under the server's base path.
    const planned = compileSpec("spec.yaml", new TextEncoder().encode(text)).planned!;
    for (const tool of planned.tools) {
      const request = tool.plan.request as unknown as { origin: string; path: { parts: { text?: string }[] } };
      expect(request.origin).toBe("https://api.example.com");
      expect(request.path.parts[0]!.text).toMatch(/^\/v1\//);
    }
    for (const tool of spec.tools) {
      const http = tool["http"] as Record<string, unknown>;
      expect(
        Object.keys(http).every((k) => ["method", "url", "query", "headers", "body", "omitAbsent"].includes(k)),
      ).toBe(true);
      expect(new URL((http["url"] as string).replace(/\{\{[^}]*\}\}/g, "x")).host).toBe("api.example.com");
      expect(http["url"]).toMatch(/^https:\/\/api\.example\.com\/v1\//);
      const headers = (http["headers"] ?? {}) as Record<string, unknown>;
      expect(headers["X-Api-Key"]).toBe("{{secrets.API_KEY}}");
      const properties = Object.keys(tool["input"]["properties"] as object);
      // Templates (parsed in the url, query values, header values and the body only): the one secret in its
      // header, else input references the importer wrote. Elsewhere (descriptions, enums) "{{" is only text.
      for (const [at, value] of strings(http)) {
        const templates = value.match(/\{\{.*?\}\}/gs) ?? [];
        if (at.length === 2 && at[0] === "headers" && at[1] === "X-Api-Key") continue;
        for (const t of templates) {
          const ref = /^\{\{input\.([A-Za-z_][A-Za-z0-9_]*)(\.[A-Za-z_][A-Za-z0-9_]*)?\}\}$/.exec(t);
          expect(ref, `${JSON.stringify(at)}: ${t}`).not.toBeNull();
          expect(properties).toContain(ref![1]);
        }
      }
    }
  });
});

describe("a security scheme's names in the written spec", () => {
  it.each(HOSTILE.map((t) => [JSON.stringify(t), t]))(
    "%s as an apiKey name is sent as that name, or not at all",
    (_l, name) => {
      for (const where of ["query", "header", "cookie"]) {
        const result = imp(
          api(
            { "/a": { get: { operationId: "a", responses: { "200": { description: "OK" } } } } },
            {
              components: { securitySchemes: { [`s ${name}`]: { type: "apiKey", in: where, name } } },
              security: [{ [`s ${name}`]: [] }],
            },
          ),
        );
        if (!result.ok) {
          expect(result.diagnostics.every((d) => d.line > 0 && d.column > 0)).toBe(true);
          continue;
        }
        const spec = specOf(result);
        const http = spec.tools[0]!["http"] as Record<string, Record<string, string> | string>;
        const secret = spec.secrets?.[0]?.name;
        const sent =
          where === "query"
            ? http["query"]
            : where === "header"
              ? http["headers"]
              : { cookie: (http["headers"] as Record<string, string> | undefined)?.["Cookie"] ?? "" };
        if (secret === undefined) {
          // Not expressible: imported without it, with a warning, and nothing else sent.
          expect(result.diagnostics.map((d) => d.code)).toContain("KV7009");
          expect(http["query"] ?? http["headers"]).toBeUndefined();
          continue;
        }
        expect(spec.secrets).toEqual([{ name: secret, hosts: ["api.example.com:443"] }]);
        const expected =
          where === "cookie" ? { cookie: `${name}={{secrets.${secret}}}` } : { [name!]: `{{secrets.${secret}}}` };
        expect(sent).toEqual(expected);
      }
    },
  );
});
