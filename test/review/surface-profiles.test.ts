/**
 * What a review says of schema profiles and error detail (review/surface.ts), in process: a tool whose input schema
 * a profile rewrites says so when added or when that changes; showing an API's error text to the model is a
 * security-relevant change.
 */
import { describe, expect, it } from "vitest";
import { compileSpec } from "../../packages/compiler/src/compile.ts";
import { buildManifest, type Manifest } from "../../packages/compiler/src/emit/files/manifest.ts";
import { compareManifests } from "../../packages/compiler/src/review/surface.ts";

function manifest(input: string, error = ""): Manifest {
  const text = `specVersion: 1
${error !== "" ? "kervancExtensions: [error-detail]\n" : ""}name: s
version: "1"
tools:
  - name: t
    description: d
    input: ${input}
    http: { url: "https://api.example.com/x" }
    output: { select: "@"${error} }
`;
  const planned = compileSpec("s.yaml", new TextEncoder().encode(text)).planned!;
  const provenance = { kervancVersion: "0", kervancContentSha256: "0", specFile: "s.yaml", specSha256: "0" };
  return buildManifest(planned, provenance, []);
}

const FITS = "{ type: object, properties: { q: { type: string } } }";
const REWRITTEN = '{ type: object, properties: { q: { type: [string, "null"] } } }';

describe("the review of a package", () => {
  it("lists the profiles that rewrite a tool's input schema", () => {
    const changes = compareManifests(manifest(FITS), manifest(REWRITTEN));
    const change = changes.find((c) => c.field === "schemaProfiles")!;
    expect(change.summary).toBe("tool t: schema profiles that rewrite its input schema: none → gemini (1 change)");
    expect(change.security).toBe(false);
    expect(manifest(REWRITTEN).tools[0]!.schemaProfiles).toEqual({ gemini: ["inputSchema.properties.q: type list"] });
  });

  it("marks showing the API's error text to the model as security relevant", () => {
    const changes = compareManifests(manifest(FITS), manifest(FITS, ', error: { select: "message" }'));
    const change = changes.find((c) => c.field === "errorDetail")!;
    expect(change.security).toBe(true);
    expect(change.summary).toContain("prompt-injection surface");
  });
});
