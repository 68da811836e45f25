/**
 * Input and output properties named like Object.prototype members (`constructor`, `toString`, `hasOwnProperty`,
 * `__proto__`) are data like any other name: the validators look at the object's own properties only (Ajv's
 * `ownProperties`), so a missing `constructor` is missing rather than the inherited function, and the request
 * reads only own properties. A schema cannot declare `__proto__` at all (KV5017): Ajv skips that name, so
 * nothing would check it. In process, against a real upstream on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileSpec } from "../../packages/compiler/src/compile.ts";
import { inProcess, type InProcess } from "../helpers/inprocess.ts";
import { echo, json, startUpstream, type Upstream } from "../helpers/upstream.ts";

let upstream: Upstream;
let server: InProcess;

const spec = (origin: string): string => `
specVersion: 1
name: proto-names
version: "1.0.0"
tools:
  - name: names
    description: inputs named like Object.prototype members
    input:
      type: object
      properties:
        constructor: { type: string }
        toString: { type: string }
        hasOwnProperty: { type: integer }
      required: [constructor]
    http:
      method: POST
      url: ${origin}/c/{{input.constructor}}
      allowInsecureHttp: true
      query: { t: "{{input.toString}}" }
      body: { h: "{{input.hasOwnProperty}}" }
    output: { select: "@" }
  - name: answer
    description: an answer checked by an output schema with such names
    http: { url: "${origin}/answer", allowInsecureHttp: true }
    output:
      select: "@"
      schema: { type: object, properties: { toString: { type: string }, valueOf: { type: integer } } }
`;

beforeAll(async () => {
  upstream = await startUpstream((req, res) => (req.path === "/answer" ? json(res, 200, { a: 1 }) : echo(req, res)));
  server = inProcess(spec(upstream.origin));
});
afterAll(async () => {
  await upstream.close();
});

const text = (result: Awaited<ReturnType<InProcess["call"]>>): string => result.content?.[0]?.text ?? "";

describe("input properties named like Object.prototype members", () => {
  it("a missing required constructor is missing, not the inherited function", async () => {
    const before = upstream.requests.length;
    const result = await server.call("names", {});
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      "Input validation error: Invalid arguments for tool names: data must have required property 'constructor'",
    );
    expect(upstream.requests.length).toBe(before);
  });

  it("absent optional toString and hasOwnProperty pass the schema and are left out of the request", async () => {
    const before = upstream.requests.length;
    const result = await server.call("names", { constructor: "c" });
    expect(result.isError, text(result)).toBeFalsy();
    const [request] = upstream.requests.slice(before);
    expect(request?.path).toBe("/c/c");
    expect(request?.query).toBe("");
    expect(JSON.parse(request!.body)).toEqual({ h: null });
  });

  it("given, they are checked and sent like any other property", async () => {
    const wrong = await server.call("names", { constructor: 5, toString: "x", hasOwnProperty: "y" });
    expect(text(wrong)).toBe(
      "Input validation error: Invalid arguments for tool names: data/constructor must be string, data/hasOwnProperty must be integer",
    );
    const before = upstream.requests.length;
    const result = await server.call("names", { constructor: "k", toString: "t s", hasOwnProperty: 3 });
    expect(result.isError, text(result)).toBeFalsy();
    const [request] = upstream.requests.slice(before);
    expect(request?.path).toBe("/c/k");
    expect(request?.query).toBe("t=t+s");
    expect(JSON.parse(request!.body)).toEqual({ h: 3 });
  });

  it("members an argument object inherits are neither validated nor sent", async () => {
    const inherited = Object.create({ constructor: "inherited", toString: "inherited" }) as Record<string, unknown>;
    const refused = await server.call("names", inherited);
    expect(text(refused)).toBe(
      "Input validation error: Invalid arguments for tool names: data must have required property 'constructor'",
    );
    const before = upstream.requests.length;
    inherited["constructor"] = "own";
    const result = await server.call("names", inherited);
    expect(result.isError, text(result)).toBeFalsy();
    const [request] = upstream.requests.slice(before);
    expect(request?.path).toBe("/c/own");
    expect(request?.query).toBe("");
  });

  it("an own __proto__ argument (as JSON.parse makes it) is an extra property that changes nothing", async () => {
    const args = JSON.parse('{"constructor":"c","__proto__":{"toString":"polluted","hasOwnProperty":1}}') as unknown;
    const before = upstream.requests.length;
    const result = await server.call("names", args);
    expect(result.isError, text(result)).toBeFalsy();
    const [request] = upstream.requests.slice(before);
    expect(request?.query).toBe("");
    expect(JSON.parse(request!.body)).toEqual({ h: null });
  });
});

describe("output properties named like Object.prototype members", () => {
  it("an answer without toString or valueOf passes the output schema", async () => {
    const result = await server.call("answer", {});
    expect(result.isError, text(result)).toBeFalsy();
    expect(result.structuredContent).toEqual({ a: 1 });
  });
});

describe("a schema property named __proto__", () => {
  it("is refused at build time (KV5017), in the input and in the output schema", () => {
    const withProto = spec("https://api.example.com")
      .replace(
        "constructor: { type: string }\n",
        "constructor: { type: string }\n        __proto__: { type: string }\n",
      )
      .replace("toString: { type: string }, valueOf", "__proto__: { type: string }, valueOf");
    const result = compileSpec("proto.yaml", new TextEncoder().encode(withProto));
    expect(result.planned).toBeNull();
    expect(result.diagnostics.map((d) => [d.code, d.path])).toEqual([
      ["KV5017", "tools[0].input.properties.__proto__"],
      ["KV5017", "tools[1].output.schema.properties.__proto__"],
    ]);
  });
});
