/**
 * Secrets end to end (docs/spec.md §5): a generated server, spawned as a process, sends secrets only over HTTPS
 * (a test CA on 127.0.0.1), and a hostile upstream that reflects the secret in every encoding never gets it back
 * to the client or into a log line.
 */
import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type TestClient } from "../helpers/clients.ts";
import { buildOneSpec, removeDir } from "../helpers/kervanc.ts";
import { json, startUpstream, TEST_CA, type Upstream } from "../helpers/upstream.ts";

const CANARY = 'Cn4ry/+=&"x\\y ü-tok3n';
const NUMERIC = "820461937520";
const REDACTED_LINE = "[redacted]";
const forms = (value: string): string[] => [
  value,
  encodeURIComponent(value),
  new URLSearchParams({ v: value }).toString().slice(2),
  JSON.stringify(value).slice(1, -1),
  Buffer.from(value).toString("base64"),
  Buffer.from(value).toString("base64url"),
];

/**
 * Spellings of a secret that the scanner once let through (each line of the body is one): numeric references
 * with eight leading zeros, JavaScript's \u{...}, unescape's %uXXXX, and a copy lacking its last character
 * that the replacement of a hex copy right after it completes (`\u006` + `&#101` is `n` once the hex form
 * that the reference read into is gone).
 */
function escapedForms(value: string): string[] {
  const each = (escape: (cp: number) => string): string => [...value].map((ch) => escape(ch.codePointAt(0)!)).join("");
  return [
    each((cp) => `&#00000000${cp};`),
    each((cp) => `&#x00000000${cp.toString(16)}`),
    each((cp) => `\\u{${cp.toString(16)}}`),
    each((cp) => `%u${cp.toString(16).padStart(4, "0")}`),
    `${value.slice(0, -1)}\\u006&#101${Buffer.from(value).toString("hex")}`,
  ];
}

let upstream: Upstream;
let elsewhere: Upstream;
let root: string;
let serverPath: string;
let client: TestClient;

function spec(origin: string, port: number, elsewhereOrigin: string): string {
  return `
specVersion: 1
name: secrets
version: "1.0.0"
secrets:
  - name: API_TOKEN
    hosts: ["localhost:${port}"]
  - NUM_SECRET
  - MISSING_ONE
tools:
  - name: reflect
    description: The upstream reflects what it received, in many encodings.
    http:
      url: ${origin}/keys/{{secrets.API_TOKEN}}/reflect
      headers: { Authorization: "Bearer {{secrets.API_TOKEN}}" }
      query: { key: "{{secrets.API_TOKEN}}" }
    output: { select: "@" }
  - name: reshape
    description: Expressions cannot recover a redacted secret.
    http: { url: "${origin}/reshape", headers: { X-Key: "{{secrets.API_TOKEN}}" } }
    output: { select: "[upper(raw), reverse(raw), length(raw), starts_with(raw, 'Cn4'), split(raw, '/'), replace(raw, 'tok3n', ''), keys(obj)]" }
  - name: structured
    description: Structured output is redacted too.
    http: { url: "${origin}/structured", headers: { X-Key: "{{secrets.API_TOKEN}}" } }
    output: { select: "@", schema: { type: object } }
  - name: raw
    description: Raw text is redacted before it is cut.
    http: { url: "${origin}/raw", headers: { X-Key: "{{secrets.API_TOKEN}}" } }
    output: { raw: true, maxOutputChars: 40 }
  - name: raw_text
    description: Every encoding, as plain text.
    http: { url: "${origin}/forms", headers: { X-Key: "{{secrets.API_TOKEN}}" } }
    output: { raw: true }
  - name: fails
    description: Error paths are redacted.
    http: { url: "${origin}/fail/{{secrets.API_TOKEN}}" }
    output: { select: "@" }
  - name: number
    description: A numeric secret reflected as a JSON number.
    http: { url: "${origin}/number", headers: { X-Num: "{{secrets.NUM_SECRET}}" } }
    output: { select: "{n: n, gt: n > \`820461937519\`, big: big}", schema: { type: object } }
  - name: number_text
    description: The same, as text.
    http: { url: "${origin}/number", headers: { X-Num: "{{secrets.NUM_SECRET}}" } }
    output: { select: "[n, n > \`820461937519\`, big]" }
  - name: number_arith
    description: Arithmetic on the redacted value fails instead of leaking.
    http: { url: "${origin}/number", headers: { X-Num: "{{secrets.NUM_SECRET}}" } }
    output: { select: "n + \`1\`" }
  - name: missing
    description: A secret that is not configured.
    http: { url: "${origin}/m", headers: { X-M: "{{secrets.MISSING_ONE}}" } }
    output: { select: "@" }
  - name: redirect_away
    description: A redirect to another host never carries secrets there.
    http: { url: "${origin}/away", headers: { X-Key: "{{secrets.API_TOKEN}}" }, followRedirects: 2 }
    output: { select: "@" }
  - name: joined
    description: An expression that builds the secret from pieces is redacted before the cut.
    http: { url: "${origin}/pieces", headers: { X-Key: "{{secrets.API_TOKEN}}" } }
    output: { select: "join('', parts)", maxOutputChars: 40 }
  - name: joined_key
    description: A key built from pieces, named in an output validation error.
    http: { url: "${origin}/pieces", headers: { X-Key: "{{secrets.API_TOKEN}}" } }
    output:
      select: "from_items([[join('', parts[1:]), \`1\`]])"
      schema: { type: object, additionalProperties: { type: string } }
  - name: raw_escapes
    description: Escapes the scanner once missed, and a copy that appears only once another is replaced.
    http: { url: "${origin}/escapes", headers: { X-Key: "{{secrets.API_TOKEN}}" } }
    output: { raw: true }
  - name: elsewhere
    description: Puts the other host on the egress list, so only the secret's binding can stop redirect_away.
    http: { url: "${elsewhereOrigin}/x" }
    output: { select: "@" }
`;
}

beforeAll(async () => {
  elsewhere = await startUpstream((req, res) => json(res, 200, { got: req.headers }), {
    tls: true,
    hostname: "127.0.0.1",
  });
  upstream = await startUpstream(
    (req, res) => {
      const reflected = { headers: req.headers, target: req.target };
      if (req.path.startsWith("/keys/")) {
        json(res, 200, {
          ...reflected,
          forms: forms(CANARY),
          inKey: { [CANARY]: 1, [encodeURIComponent(CANARY)]: 2 },
          escaped: `${JSON.stringify(CANARY)}`,
        });
      } else if (req.path === "/reshape") json(res, 200, { raw: CANARY, obj: { [CANARY]: true } });
      else if (req.path === "/forms")
        res.writeHead(200, { "content-type": "text/plain" }).end(forms(CANARY).join("\n"));
      else if (req.path === "/structured")
        json(res, 200, { key: CANARY, nested: [{ deep: `prefix ${CANARY} suffix` }] });
      else if (req.path === "/raw") {
        res.writeHead(200, { "content-type": "application/json" });
        // \\u escapes and \\/ hide the secret from plain text matching; value-by-value redaction catches them.
        res.end(
          `{"a":"${"x".repeat(30)}${JSON.stringify(CANARY).slice(1, -1).replace("/", "\\/").replace("C", "\\u0043")}"}`,
        );
      } else if (req.path.startsWith("/fail/")) {
        res.statusMessage = `bad ${CANARY}`;
        json(res, 500, { echo: CANARY });
      } else if (req.path === "/number") {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(`{"n": ${NUMERIC}, "big": ${NUMERIC}000000000000000}`);
      } else if (req.path === "/pieces") {
        // The cut at 40 characters falls on the secret's last character: `"` + 17 x + 22 of its 23 characters.
        json(res, 200, { parts: ["x".repeat(17), CANARY.slice(0, 9), CANARY.slice(9)] });
      } else if (req.path === "/escapes") {
        res.writeHead(200, { "content-type": "text/plain" });
        res.end(escapedForms(CANARY).join("\n"));
      } else if (req.path === "/away") {
        res.writeHead(302, { location: `${elsewhere.origin}/steal?k=${encodeURIComponent(CANARY)}` }).end();
      } else json(res, 200, reflected);
    },
    { tls: true, hostname: "localhost" },
  );
  ({ root, serverPath } = await buildOneSpec(
    "secrets",
    "secrets.yaml",
    spec(upstream.origin, upstream.port, elsewhere.origin),
  ));
  client = await connect("modern", serverPath, {
    nodeArgs: ["--disallow-code-generation-from-strings"],
    serverArgs: ["--allow-private-network"],
    env: { API_TOKEN: CANARY, NUM_SECRET: NUMERIC, NODE_EXTRA_CA_CERTS: TEST_CA },
  });
}, 120_000);

afterAll(async () => {
  await client?.close();
  await upstream?.close();
  await elsewhere?.close();
  if (root) await removeDir(root);
});

/** Checks every string in a value (and its keys), as the client would read them, for every form of a secret. */
function expectNoSecret(value: unknown): void {
  const strings: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === "string") strings.push(v);
    else if (typeof v === "number") strings.push(String(v));
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) (strings.push(k), walk(x));
  };
  walk(value);
  for (const text of strings) for (const form of [...forms(CANARY), NUMERIC]) expect(text).not.toContain(form);
}

describe("a hostile upstream that reflects secrets", () => {
  it("sends the secret where the spec puts it, over https", async () => {
    const before = upstream.requests.length;
    const result = await client.callTool("reflect", {});
    const request = upstream.requests[before]!;
    expect(request.headers["authorization"]).toBe(`Bearer ${CANARY}`);
    expect(request.path).toBe(`/keys/${encodeURIComponent(CANARY)}/reflect`);
    expect(new URLSearchParams(request.query).get("key")).toBe(CANARY);
    expectNoSecret(result);
    expect(JSON.stringify(result)).toContain("[redacted]");
  });

  it("redacts before select runs, so reshaping cannot recover or probe it", async () => {
    const result = await client.callTool("reshape", {});
    expectNoSecret(result);
    const value = JSON.parse(result.content?.[0]?.text ?? "null") as unknown[];
    expect(value).toEqual(["[REDACTED]", "]detcader[", 10, false, ["[redacted]"], "[redacted]", ["[redacted]"]]);
  });

  it("redacts structured content, keys and nested strings", async () => {
    const result = await client.callTool("structured", {});
    expectNoSecret(result);
    expect(result.structuredContent).toEqual({ key: "[redacted]", nested: [{ deep: "prefix [redacted] suffix" }] });
  });

  it("redacts raw JSON behind its escapes (\\u0043, \\/) before cutting", async () => {
    const result = await client.callTool("raw", {});
    expectNoSecret(result);
    expect(result.content?.[0]?.text).toBe(`{"a":"${"x".repeat(30)}[red\n[truncated: 8 more characters]`);
  });

  it("redacts every encoding from raw text", async () => {
    const result = await client.callTool("raw_text", {});
    expectNoSecret(result);
    expect(result.content?.[0]?.text?.split("\n").every((line) => line.startsWith("[redacted]"))).toBe(true);
  });

  it("redacts error paths and log lines", async () => {
    const result = await client.callTool("fails", {});
    expect(result).toMatchObject({
      isError: true,
      content: [{ type: "text", text: "Upstream returned 500 Internal Server Error." }],
    });
    expect(client.stderr()).toContain("Warning: GET localhost:");
    expect(client.stderr()).toContain("/fail/[redacted] returned 500");
  });

  it("redacts a numeric secret reflected as a JSON number, with no arithmetic or comparison oracle", async () => {
    const structured = await client.callTool("number", {});
    expectNoSecret(structured);
    expect(structured.structuredContent).toEqual({ n: "[redacted]", gt: null, big: "[redacted]" });
    const text = await client.callTool("number_text", {});
    expectNoSecret(text);
    expect(JSON.parse(text.content?.[0]?.text ?? "null")).toEqual(["[redacted]", null, "[redacted]"]);
    const arith = await client.callTool("number_arith", {});
    expect(arith.isError).toBe(true);
    expect(arith.content?.[0]?.text).toMatch(/^Internal error in tool "number_arith" \(ref: [0-9a-f]{8}\)\.$/);
  });

  it("redacts what an expression builds from pieces before cutting it (no prefix of the secret is left)", async () => {
    const result = await client.callTool("joined", {});
    expectNoSecret(result);
    expect(result.content?.[0]?.text).toBe(`"${"x".repeat(17)}[redacted]"`);
    expect(result.content?.[0]?.text).not.toContain(CANARY.slice(0, 12));
  });

  it("redacts a key built from pieces before an output validation error names it", async () => {
    const result = await client.callTool("joined_key", {});
    expect(result).toMatchObject({
      isError: true,
      content: [
        {
          type: "text",
          text: "Output validation error: Invalid structured content for tool joined_key: data/[redacted] must be string",
        },
      ],
    });
  });

  it("redacts the escapes the scanner once missed, and a copy that shows only once another is replaced", async () => {
    const result = await client.callTool("raw_escapes", {});
    expectNoSecret(result);
    const lines = result.content?.[0]?.text?.split("\n") ?? [];
    expect(lines).toEqual([REDACTED_LINE, REDACTED_LINE, REDACTED_LINE, REDACTED_LINE, "[redacted][redacted]"]);
  });

  it("fails only the calls that need a missing secret", async () => {
    expect(client.stderr()).toContain(
      `Warning: Secret MISSING_ONE is not configured for localhost:${upstream.port}; tools that use it there fail until it is.`,
    );
    const result = await client.callTool("missing", {});
    expect(result).toMatchObject({
      isError: true,
      content: [{ type: "text", text: `Secret MISSING_ONE is not configured for localhost:${upstream.port}.` }],
    });
  });

  it("never follows a redirect that would carry the secret to another host", async () => {
    const before = elsewhere.requests.length;
    const result = await client.callTool("redirect_away", {});
    expect(result).toMatchObject({
      isError: true,
      content: [
        {
          type: "text",
          text: `Request to localhost:${upstream.port} was redirected to a host that may not receive this tool's secrets; not followed.`,
        },
      ],
    });
    expect(elsewhere.requests.length).toBe(before);
  });

  it("never writes a secret to stderr", () => {
    expectNoSecret(client.stderr());
  });
});

describe("secret configuration", () => {
  const run = promisify(execFile);
  const start = async (env: Record<string, string>, args: string[] = []): Promise<{ code: number; stderr: string }> => {
    try {
      const r = await run(process.execPath, [serverPath, "--version", ...args], {
        env: { PATH: process.env["PATH"] ?? "", ...env },
      });
      return { code: 0, stderr: r.stderr };
    } catch (error) {
      const e = error as { code: number; stderr: string };
      return { code: e.code, stderr: e.stderr };
    }
  };

  it("refuses to start with a secret too short to redact, at the place the spec declares it", async () => {
    let stderr = "";
    let code = 0;
    try {
      await run(process.execPath, [serverPath, "--allow-private-network"], {
        env: { PATH: process.env["PATH"] ?? "", API_TOKEN: "short" },
        timeout: 10_000,
      });
    } catch (error) {
      const e = error as { code: number; stderr: string };
      code = e.code;
      stderr = e.stderr;
    }
    expect(code).toBe(1);
    // Kervan's load-error form, `file:line:col path: message`, with the spec's base name as manifest.json has it.
    expect(stderr).toContain(
      "Error: secrets.yaml:6:5 secrets[0]: Secret API_TOKEN is shorter than 8 characters. Short values cannot be redacted reliably; use a longer secret.",
    );
    expect(stderr).not.toContain("short\n");
  });

  it("reads --secrets-file, and the environment wins", async () => {
    const file = join(root, "secrets.env");
    await writeFile(file, `API_TOKEN=${JSON.stringify("from-the-file-value")}\nNUM_SECRET=123456789012\n`);
    const viaFile = await connect("legacy", serverPath, {
      serverArgs: ["--allow-private-network", "--secrets-file", file],
      env: { NODE_EXTRA_CA_CERTS: TEST_CA },
    });
    try {
      const before = upstream.requests.length;
      await viaFile.callTool("reflect", {});
      expect(upstream.requests[before]!.headers["authorization"]).toBe("Bearer from-the-file-value");
    } finally {
      await viaFile.close();
    }
    const envWins = await connect("legacy", serverPath, {
      serverArgs: ["--allow-private-network", "--secrets-file", file],
      env: { NODE_EXTRA_CA_CERTS: TEST_CA, API_TOKEN: "from-the-environment" },
    });
    try {
      const before = upstream.requests.length;
      await envWins.callTool("reflect", {});
      expect(upstream.requests[before]!.headers["authorization"]).toBe("Bearer from-the-environment");
    } finally {
      await envWins.close();
    }
  });

  it("refuses a --secrets-file value cut by an unquoted #, naming the line and key and never the value; quoted, takes it whole", async () => {
    const cut = join(root, "cut.env");
    await writeFile(cut, "# a comment line is fine\nNUM_SECRET=123456789012\nAPI_TOKEN=first-part#second-part\n");
    // Without --version: the file is read at start, and the server stops before serving (or the run times out).
    const r = await run(process.execPath, [serverPath, "--secrets-file", cut], {
      env: { PATH: process.env["PATH"] ?? "" },
      timeout: 20_000,
    }).then(
      (ok) => ({ code: 0, stderr: ok.stderr }),
      (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--secrets-file ${cut}, line 3: the value of API_TOKEN holds "#"`);
    expect(r.stderr).not.toContain("first-part");
    expect(r.stderr).not.toContain("second-part");
    const quoted = join(root, "quoted.env");
    await writeFile(quoted, "API_TOKEN='first-part#second-part'\n");
    const viaFile = await connect("legacy", serverPath, {
      serverArgs: ["--allow-private-network", "--secrets-file", quoted],
      env: { NODE_EXTRA_CA_CERTS: TEST_CA },
    });
    try {
      const before = upstream.requests.length;
      await viaFile.callTool("reflect", {});
      expect(upstream.requests[before]!.headers["authorization"]).toBe("Bearer first-part#second-part");
    } finally {
      await viaFile.close();
    }
  });

  it("refuses the old --env-file spelling when it reaches the server, saying why and what to use", async () => {
    // Node itself reads --env-file, even after the script name: a missing file stops Node (exit 9) before the
    // server runs; an existing one is loaded by Node and the flag then reaches the server, which refuses it.
    const file = join(root, "old-spelling.env");
    await writeFile(file, "API_TOKEN=from-the-old-spelling\n");
    const r = await start({}, ["--env-file", file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--env-file is not a server option any more: Node reads --env-file itself");
    expect(r.stderr).toContain("Use --secrets-file FILE.");
  });

  it("refuses --allow-private-network and --allow-insecure-secrets in production", async () => {
    for (const flag of [
      "--allow-private-network",
      "--allow-insecure-secrets",
      "--allow-insecure-secrets-to-loopback",
    ]) {
      const r = await start({ NODE_ENV: "production" }, [flag]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`Error: ${flag} is refused when NODE_ENV=production.`);
    }
  });
});
