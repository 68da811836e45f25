/**
 * Requests, place by place (docs/spec.md §4 and docs/runtime.md, "A call"): what the runtime sends for each template slot, checked on the wire
 * by a real upstream on 127.0.0.1 that records the raw request.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inProcess, type InProcess } from "../helpers/inprocess.ts";
import { echo, startUpstream, type Upstream } from "../helpers/upstream.ts";

let upstream: Upstream;
let server: InProcess;

function spec(origin: string): string {
  return `
specVersion: 1
name: requests
version: "1.0.0"
tools:
  - name: path
    description: path templates
    input:
      type: object
      properties: { id: { type: [string, number, boolean, "null", object] }, sub: { type: string } }
    http:
      url: ${origin}/items/{{input.id}}/sub/{{ input.sub }}
      allowInsecureHttp: true
    output: { select: "@" }
  - name: dots
    description: a path value between dots
    input: { type: object, properties: { x: { type: string } } }
    http: { url: "${origin}/a/%2{{input.x}}/b", allowInsecureHttp: true }
    output: { select: "@" }
  - name: query
    description: query values
    input:
      type: object
      properties:
        q: { type: [string, "null"] }
        tags: { type: array }
        n: { type: number }
        o: { type: object }
    http:
      url: ${origin}/search?fixed=a%20b&z=1
      allowInsecureHttp: true
      query:
        q: "{{input.q}}"
        tag: "{{input.tags}}"
        mixed: "n={{input.n}}"
        obj: "{{input.o}}"
        literal: 5
        flag: true
        list: [one, "{{input.n}}"]
    output: { select: "@" }
  - name: headers
    description: header values
    input: { type: object, properties: { note: { type: string }, n: { type: number } } }
    http:
      url: ${origin}/h
      allowInsecureHttp: true
      headers:
        X-Note: "{{input.note}}"
        X-Count: "{{input.n}}"
        X-Fixed: fixed value
        Accept: application/vnd.test+json
    output: { select: "@" }
  - name: body
    description: JSON body
    input:
      type: object
      properties:
        name: { type: string }
        count: { type: number }
        flag: { type: boolean }
        tags: { type: array }
        obj: { type: object }
        optional: { type: string }
    http:
      method: POST
      url: ${origin}/b
      allowInsecureHttp: true
      body:
        name: "{{input.name}}"
        count: "{{input.count}}"
        flag: "{{input.flag}}"
        tags: "{{input.tags}}"
        nested: { obj: "{{input.obj}}", list: ["{{input.count}}", 2] }
        text: "hello {{input.name}}!"
        missing: "{{input.optional}}"
        literal: { a: 1 }
        escaped: "\\\\{{input.name}}"
    output: { select: "@" }
  - name: put
    description: PUT with an explicit content type
    input: { type: object, properties: { v: { type: string } } }
    http:
      method: PUT
      url: ${origin}/p
      allowInsecureHttp: true
      headers: { Content-Type: application/merge-patch+json }
      body: "{{input.v}}"
    output: { select: "@" }
  - name: patch
    description: PATCH
    http: { method: PATCH, url: "${origin}/p", allowInsecureHttp: true, body: [1, 2] }
    output: { select: method }
  - name: delete
    description: DELETE
    http: { method: DELETE, url: "${origin}/p", allowInsecureHttp: true }
    output: { select: method }
  - name: raw
    description: raw mode accept header
    http: { url: "${origin}/r", allowInsecureHttp: true }
    output: { raw: true }
`;
}

beforeAll(async () => {
  upstream = await startUpstream(echo);
  server = inProcess(spec(upstream.origin));
});
afterAll(async () => {
  await upstream.close();
});

async function sent(
  name: string,
  args: unknown,
): Promise<{ result: Awaited<ReturnType<InProcess["call"]>>; request: Upstream["requests"][number] | undefined }> {
  const before = upstream.requests.length;
  const result = await server.call(name, args);
  const requests = upstream.requests.slice(before);
  expect(requests.length).toBeLessThanOrEqual(1);
  return { result, request: requests[0] };
}

function errorText(result: Awaited<ReturnType<InProcess["call"]>>): string | undefined {
  return result.isError ? result.content?.[0]?.text : undefined;
}

describe("path values", () => {
  it.each([
    ["abc", "/items/abc/sub/x"],
    ["a/b?c#d%", "/items/a%2Fb%3Fc%23d%25/sub/x"],
    ["%2e%2e", "/items/%252e%252e/sub/x"],
    ["../admin", "/items/..%2Fadmin/sub/x"],
    [" space", "/items/%20space/sub/x"],
    ["ü€😀", "/items/%C3%BC%E2%82%AC%F0%9F%98%80/sub/x"],
    [42, "/items/42/sub/x"],
    [true, "/items/true/sub/x"],
    ["{{secrets.API_KEY}}", "/items/%7B%7Bsecrets.API_KEY%7D%7D/sub/x"],
  ])("%j is sent as one segment: %s", async (id, path) => {
    const { result, request } = await sent("path", { id, sub: "x" });
    expect(result.isError ?? false).toBe(false);
    expect(request?.path).toBe(path);
  });

  it.each([
    [{ id: "", sub: "x" }, "input.id is not allowed in a URL path."],
    [{ id: ".", sub: "x" }, "input.id is not allowed in a URL path."],
    [{ id: "..", sub: "x" }, "input.id is not allowed in a URL path."],
    [{ id: "a\nb", sub: "x" }, "input.id is not allowed in a URL path."],
    [{ id: "a\u007fb", sub: "x" }, "input.id is not allowed in a URL path."],
    [{ id: null, sub: "x" }, "Missing value for input.id."],
    [{ sub: "x" }, "Missing value for input.id."],
    [{ id: { a: 1 }, sub: "x" }, "input.id must be a string, number or boolean here."],
  ])("refuses %j: %s (and sends nothing)", async (args, message) => {
    const { result, request } = await sent("path", args);
    expect(errorText(result)).toBe(message);
    expect(request).toBeUndefined();
  });

  it("re-checks the rendered path: a value that completes a dot segment is refused", async () => {
    const { result, request } = await sent("dots", { x: "e" });
    expect(errorText(result)).toBe("The input values form a dot segment, which is not allowed in a URL path.");
    expect(request).toBeUndefined();
    const ok = await sent("dots", { x: "f" });
    expect(ok.request?.path).toBe("/a/%2f/b");
  });
});

describe("query values", () => {
  it("form-encodes values, repeats arrays, drops omitted and null, and re-serializes the literal query", async () => {
    const { request } = await sent("query", { q: "a b&c=d+é", tags: ["x y", 2, false], n: 7 });
    expect(request?.query).toBe(
      "fixed=a+b&z=1&q=a+b%26c%3Dd%2B%C3%A9&tag=x+y&tag=2&tag=false&mixed=n%3D7&literal=5&flag=true&list=one&list=7",
    );
  });

  it("drops a parameter whose single reference is null or omitted, and appends nothing for an empty array", async () => {
    const { request } = await sent("query", { q: null, tags: [], n: 1 });
    expect(request?.query).toBe("fixed=a+b&z=1&mixed=n%3D1&literal=5&flag=true&list=one&list=1");
  });

  it("refuses a missing value inside mixed text, an object, and a non-scalar array item", async () => {
    expect(errorText((await sent("query", {})).result)).toBe("Missing value for input.n.");
    expect(errorText((await sent("query", { n: 1, o: { a: 1 } })).result)).toBe(
      "input.o must be a string, number or boolean here.",
    );
    expect(errorText((await sent("query", { n: 1, tags: [[1]] })).result)).toBe(
      'Every value of query parameter "tag" must be a string, number or boolean.',
    );
  });

  it("keeps argument text as data: a value that looks like a template is sent literally", async () => {
    const { request } = await sent("query", { q: "{{secrets.API_KEY}}", n: 1 });
    expect(new URLSearchParams(request?.query).get("q")).toBe("{{secrets.API_KEY}}");
  });
});

describe("header values", () => {
  it("sends values as text, keeps the spec's names and its accept header", async () => {
    const { request } = await sent("headers", { note: "tab\there ok", n: 3 });
    expect(request?.headers["x-note"]).toBe("tab\there ok");
    expect(request?.headers["x-count"]).toBe("3");
    expect(request?.headers["x-fixed"]).toBe("fixed value");
    expect(request?.headers["accept"]).toBe("application/vnd.test+json");
    expect(request?.headers["accept-encoding"]).toBe("gzip, deflate, br");
    expect(request?.rawHeaders).toContain("X-Note");
    expect(request?.headers["user-agent"]).toBeUndefined();
  });

  it.each(["a\r\nX-Injected: 1", "a\nb", "a\rb", "a\u0000b", "a\u007fb", "a\u001bb"])(
    "refuses %j and sends nothing",
    async (note) => {
      const { result, request } = await sent("headers", { note, n: 1 });
      expect(errorText(result)).toBe('The value for header "X-Note" contains a line break or control character.');
      expect(request).toBeUndefined();
    },
  );

  it("refuses characters HTTP/1.1 cannot carry in a header, and sends Latin-1 ones", async () => {
    const { result, request } = await sent("headers", { note: "price in €", n: 1 });
    expect(errorText(result)).toBe(
      'The value for header "X-Note" contains a character that cannot be sent in an HTTP header.',
    );
    expect(request).toBeUndefined();
    const latin1 = await sent("headers", { note: "café", n: 1 });
    expect(Buffer.from(latin1.request!.headers["x-note"] as string, "latin1").toString("latin1")).toBe("café");
  });

  it("refuses a path value with an unpaired surrogate (it has no UTF-8 encoding)", async () => {
    const { result, request } = await sent("path", { id: "a\ud800", sub: "x" });
    expect(errorText(result)).toBe("input.id is not valid Unicode text (it has an unpaired surrogate).");
    expect(request).toBeUndefined();
  });

  // Issue 13, observation b: a query value was sent as U+FFFD while the path refused it. Every place now
  // refuses, with the same words, and nothing is sent.
  it.each([
    ["query value", "query", { q: "a\ud800" }, "input.q"],
    ["query value (low half alone)", "query", { q: "\udc00b" }, "input.q"],
    ["query list item", "query", { tags: ["ok", "x\udbff"] }, "input.tags"],
    ["header value", "headers", { note: "a\ud800", n: 1 }, "input.note"],
    ["body value", "body", { name: "a\ud800" }, "input.name"],
    ["body text template", "body", { name: "\ud800", count: 1 }, "input.name"],
    ["nested body string", "body", { obj: { deep: ["fine", { s: "x\udfff" }] } }, "input.obj"],
    ["nested body key", "body", { obj: { "k\ud800": 1 } }, "input.obj"],
  ])("refuses an unpaired surrogate in a %s", async (_place, tool, args, ref) => {
    const { result, request } = await sent(tool, args);
    expect(errorText(result)).toBe(`${ref} is not valid Unicode text (it has an unpaired surrogate).`);
    expect(request).toBeUndefined();
  });

  it("sends paired surrogates (an emoji) in every place", async () => {
    expect((await sent("query", { q: "😀", n: 1 })).request?.query).toContain("q=%F0%9F%98%80");
    expect(
      JSON.parse((await sent("body", { name: "😀", count: 1, obj: { "😀": "😀" } })).request!.body).nested.obj,
    ).toEqual({ "😀": "😀" });
  });

  it("refuses a missing optional argument in a header (it is not left out)", async () => {
    const { result, request } = await sent("headers", { n: 1 });
    expect(errorText(result)).toBe("Missing value for input.note.");
    expect(request).toBeUndefined();
  });
});

describe("JSON bodies", () => {
  it("builds the body as a value: lone references keep their type, omitted becomes null", async () => {
    const args = {
      name: 'Ada "quote" </script>',
      count: 3.5,
      flag: false,
      tags: ["a", 1, null],
      obj: { deep: { x: [1] } },
    };
    const { request, result } = await sent("body", args);
    expect(result.isError ?? false).toBe(false);
    expect(request?.method).toBe("POST");
    expect(request?.headers["content-type"]).toBe("application/json");
    expect(Number(request?.headers["content-length"])).toBe(Buffer.byteLength(request?.body ?? ""));
    expect(JSON.parse(request!.body)).toEqual({
      name: args.name,
      count: 3.5,
      flag: false,
      tags: ["a", 1, null],
      nested: { obj: { deep: { x: [1] } }, list: [3.5, 2] },
      text: `hello ${args.name}!`,
      missing: null,
      literal: { a: 1 },
      // `\{{` in the spec writes a literal `{{`.
      escaped: "{{input.name}}",
    });
  });

  it("refuses a missing value inside mixed text", async () => {
    const { result, request } = await sent("body", { count: 1 });
    expect(errorText(result)).toBe("Missing value for input.name.");
    expect(request).toBeUndefined();
  });

  it("sends a lone string reference as a JSON string, with the spec's content type", async () => {
    const { request } = await sent("put", { v: "plain" });
    expect(request?.method).toBe("PUT");
    expect(request?.body).toBe('"plain"');
    expect(request?.headers["content-type"]).toBe("application/merge-patch+json");
  });

  it("sends PATCH and DELETE", async () => {
    expect((await sent("patch", {})).request?.body).toBe("[1,2]");
    const del = await sent("delete", {});
    expect(del.request?.method).toBe("DELETE");
    expect(del.request?.body).toBe("");
    expect(del.request?.headers["content-type"]).toBeUndefined();
  });
});

describe("headers the runtime adds", () => {
  it("asks for text or JSON in raw mode", async () => {
    const { request } = await sent("raw", {});
    expect(request?.headers["accept"]).toBe("text/plain, application/json");
  });
});
