/**
 * Issue 13, findings 2 and 8, end to end: a generated server, spawned as a process, calls a hostile HTTPS
 * upstream on 127.0.0.1 that echoes the secrets back in every encoding of test/helpers/secret-encodings.ts, in
 * raw mode (JSON, invalid JSON, JSON nested deeper than any stack, text/plain, text/html) and in select mode.
 * No string the client receives, and no line on stderr, may read as a secret after JSON, HTML or percent
 * unescaping, base64 decoding at any offset, hex decoding, reversing or case folding.
 */
import type http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type TestClient } from "../helpers/clients.ts";
import { buildOneSpec, removeDir } from "../helpers/kervanc.ts";
import { encodings, leaks, stringsOf, unicodeEscape } from "../helpers/secret-encodings.ts";
import { startUpstream, TEST_CA, type Upstream } from "../helpers/upstream.ts";

const CANARY = 'Cn4ry/+=&"x\\y ü-tok3n';
const PLAIN = "sk_live_51HxYzAbCdEf0123";
const SECRETS = [CANARY, PLAIN];

let upstream: Upstream;
let root: string;
let client: TestClient;

/** Every encoding of every secret, one a line. */
function lines(): string[] {
  return SECRETS.flatMap((secret) => Object.values(encodings(secret)));
}

const bodies: Record<string, { type: string; body: () => string }> = {
  // Valid JSON: each encoding as a string value, so its backslashes are escaped once more.
  "raw-json": { type: "application/json", body: () => JSON.stringify({ values: lines() }) },
  // Invalid JSON (a trailing comma) with the escapes written straight into the strings.
  "raw-invalid": {
    type: "application/json; charset=utf-8",
    body: () =>
      `{"a":"${unicodeEscape(CANARY, (i) => i % 2 === 0)}","b":"${JSON.stringify(PLAIN).slice(1, -1).replace(/_/g, "\\u005F")}","c":"${JSON.stringify(CANARY).slice(1, -1).replace(/\//g, "\\/")}",}`,
  },
  // Nested far deeper than JSON.stringify's stack allows.
  "raw-deep": {
    type: "application/json",
    body: () =>
      `{"k":"${unicodeEscape(CANARY, () => true)}","p":"\\u0073k_live_51HxYzAbCdEf0123","d":${"[".repeat(100_000)}${"]".repeat(100_000)}}`,
  },
  "raw-plain": { type: "text/plain", body: () => lines().join("\n") },
  "raw-html": {
    type: "text/html; charset=utf-8",
    body: () =>
      `<html><body>${lines()
        .map((l) => `<p>${l}</p>`)
        .join("\n")}</body></html>`,
  },
  "raw-unknown-text": { type: "text/x-whatever", body: () => lines().join(" | ") },
  "select-values": {
    type: "application/json",
    body: () => JSON.stringify({ values: lines(), keyed: Object.fromEntries(lines().map((l, i) => [l, i])) }),
  },
  // The content type carries a secret, mangled beyond any form the vault knows.
  "ctype-select": { type: `application/x-${[...PLAIN].reverse().join("-")}`, body: () => "{}" },
  "ctype-raw": { type: `image/x-${[...PLAIN].join(".")}`, body: () => "x" },
};

function spec(origin: string, port: number): string {
  const tool = (name: string, output: string): string => `
  - name: ${name.replace(/-/g, "_")}
    description: ${name}
    http: { url: "${origin}/${name}", headers: { X-Key: "{{secrets.API_TOKEN}}", X-Plain: "{{secrets.PLAIN_TOKEN}}" } }
    output: ${output}`;
  return `
specVersion: 1
name: encodings
version: "1.0.0"
secrets:
  - name: API_TOKEN
    hosts: ["localhost:${port}"]
  - name: PLAIN_TOKEN
    hosts: ["localhost:${port}"]
tools:${Object.keys(bodies)
    .map((name) =>
      tool(
        name,
        name.startsWith("raw") || name === "ctype-raw" ? "{ raw: true, maxOutputChars: 1000000 }" : '{ select: "@" }',
      ),
    )
    .join("")}
`;
}

beforeAll(async () => {
  upstream = await startUpstream(
    (req, res: http.ServerResponse) => {
      const entry = bodies[req.path.slice(1)];
      if (entry === undefined) return void res.writeHead(404).end();
      res.writeHead(200, { "content-type": entry.type }).end(entry.body());
    },
    { tls: true, hostname: "localhost" },
  );
  const built = await buildOneSpec("secret-encodings", "encodings.yaml", spec(upstream.origin, upstream.port));
  root = built.root;
  client = await connect("modern", built.serverPath, {
    serverArgs: ["--allow-private-network"],
    env: { API_TOKEN: CANARY, PLAIN_TOKEN: PLAIN, NODE_EXTRA_CA_CERTS: TEST_CA },
  });
}, 120_000);

afterAll(async () => {
  await client?.close();
  await upstream?.close();
  if (root) await removeDir(root);
});

function expectNoReading(value: unknown): void {
  for (const text of stringsOf(value)) {
    for (const secret of SECRETS) expect(leaks(text, secret), `${secret} in ${text.slice(0, 300)}`).toEqual([]);
  }
}

describe("an upstream that echoes secrets in every encoding", () => {
  for (const name of [
    "raw-json",
    "raw-invalid",
    "raw-deep",
    "raw-plain",
    "raw-html",
    "raw-unknown-text",
    "select-values",
  ]) {
    it(`redacts every reading in ${name} (${bodies[name]!.type})`, async () => {
      const result = await client.callTool(name.replace(/-/g, "_"), {});
      expect(result.isError ?? false).toBe(false);
      const text = result.content?.[0]?.text ?? "";
      expect(text).toContain("[redacted]");
      expectNoReading(result);
    });
  }

  it("keeps the rest of a raw body as the upstream sent it", async () => {
    const result = await client.callTool("raw_invalid", {});
    expect(result.content?.[0]?.text).toBe('{"a":"[redacted]","b":"[redacted]","c":"[redacted]",}');
    const deep = await client.callTool("raw_deep", {});
    expect(deep.content?.[0]?.text?.slice(0, 40)).toBe('{"k":"[redacted]","p":"[redacted]","d":[');
  });

  it("names only a recognised content type in an error, never one the upstream made up", async () => {
    const select = await client.callTool("ctype_select", {});
    expect(select).toMatchObject({
      isError: true,
      content: [{ type: "text", text: "Upstream returned an unrecognised content type; expected JSON." }],
    });
    const raw = await client.callTool("ctype_raw", {});
    expect(raw).toMatchObject({
      isError: true,
      content: [
        { type: "text", text: "Upstream returned an unrecognised content type; raw output needs text or JSON." },
      ],
    });
  });

  it("never writes a reading of a secret to stderr", () => {
    for (const secret of SECRETS) expect(leaks(client.stderr(), secret)).toEqual([]);
  });
});
