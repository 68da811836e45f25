/**
 * `kervanc call` as a user runs it, against an upstream on 127.0.0.1 over plain http with a secret: success,
 * a tool error, invalid arguments, secrets from a file, arguments from stdin; the development relaxation's
 * banner, its refusal under NODE_ENV=production, and that build never gets it.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CODES } from "../../packages/compiler/src/diagnostics/codes.ts";
import { kervanc, removeDir, tempDir } from "../helpers/kervanc.ts";
import { json, startUpstream, type Upstream } from "../helpers/upstream.ts";
import { kervancIn, SECRET, weatherSpec } from "./specs.ts";

let dir: string;
let upstream: Upstream;
let spec: string;
let secrets: string;

beforeAll(async () => {
  dir = await tempDir("call");
  upstream = await startUpstream((req, res) => {
    if (req.headers["x-api-key"] !== SECRET) return json(res, 401, { error: "bad key" });
    const city = new URLSearchParams(req.query).get("city");
    if (city === "Atlantis") return json(res, 404, { error: "no such city" });
    // The upstream echoes the key: the result must carry it redacted.
    json(res, 200, { city, temp: 21, echoed: SECRET });
  });
  spec = join(dir, "weather.yaml");
  // A second tool without an output schema: --json prints its whole result too (it printed null).
  await writeFile(
    spec,
    weatherSpec(
      upstream.origin,
      `  - name: city_only
    description: The city's name only.
    input: { type: object, properties: { city: { type: string } }, required: [city] }
    http: { url: ${upstream.origin}/forecast, query: { city: "{{input.city}}" }, headers: { X-Api-Key: "{{secrets.API_KEY}}" } }
    output: { select: "city" }
`,
    ),
  );
  secrets = join(dir, "secrets.env");
  await writeFile(secrets, `API_KEY=${SECRET}\n`);
});

afterAll(async () => {
  await upstream.close();
  await removeDir(dir);
});

describe("kervanc call", () => {
  it("prints the result text on stdout, secrets from --secrets-file, with the development banner on stderr", async () => {
    const r = await kervanc(["call", spec, "get_forecast", '{"city": "Paris"}', "--secrets-file", secrets]);
    expect(r.stderr).toContain("kervanc development mode");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('{"city":"Paris","temp":21}\n');
    expect(upstream.requests.at(-1)!.headers["x-api-key"]).toBe(SECRET);
    expect(r.stdout + r.stderr).not.toContain(SECRET);
  });

  it("prints the whole result as JSON with --json, arguments from stdin", async () => {
    const r = await kervancIn(["call", spec, "get_forecast", "--json", "--secrets-file", secrets], '{"city": "Rome"}');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      content: [{ type: "text", text: '{"city":"Rome","temp":21}' }],
      structuredContent: { city: "Rome", temp: 21 },
      isError: false,
    });
  });

  it("prints the whole result as JSON with --json for a tool without an output schema, and for an error", async () => {
    const plain = await kervancIn(["call", spec, "city_only", "--json", "--secrets-file", secrets], '{"city": "Oslo"}');
    expect(plain.code).toBe(0);
    expect(JSON.parse(plain.stdout)).toEqual({ content: [{ type: "text", text: '"Oslo"' }], isError: false });
    const failed = await kervancIn(
      ["call", spec, "city_only", "--json", "--secrets-file", secrets],
      '{"city": "Atlantis"}',
    );
    expect(failed.code).toBe(1);
    const result = JSON.parse(failed.stdout) as { content: { text: string }[]; isError: boolean };
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toContain("Upstream returned 404");
  });

  it("says in its --help what --json prints: the whole result, not only the structured content", async () => {
    const r = await kervanc(["call", "--help"]);
    expect(r.code).toBe(0);
    const option = r.stdout.split("\n").find((line) => line.trimStart().startsWith("--json"));
    expect(option).toContain("the whole result as JSON (content, structuredContent, isError)");
    expect(r.stdout).not.toContain("structured content as JSON");
  });

  it("exits 1 with the error on stderr when the result is an error", async () => {
    const r = await kervanc(["call", spec, "get_forecast", '{"city": "Atlantis"}', "--secrets-file", secrets]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("Upstream returned 404");
  });

  it("exits 1 on invalid arguments, naming what is wrong, and calls nothing", async () => {
    const before = upstream.requests.length;
    const r = await kervanc(["call", spec, "get_forecast", '{"city": 5}', "--secrets-file", secrets]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("data/city must be string");
    expect(upstream.requests.length).toBe(before);
  });

  it("without the secret, the tool fails and says which secret is missing", async () => {
    const env = { ...process.env };
    delete env["API_KEY"];
    const r = await kervancIn(["call", spec, "get_forecast", '{"city": "Paris"}'], "", env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("API_KEY");
  });

  it("refuses a spec path that is a folder or missing with the messages of codes.ts (KV9009, KV1010)", async () => {
    const missing = join(dir, "missing.yaml");
    for (const [path, expected] of [
      [dir, `KV9009: ${CODES.KV9009.messages.notRegularFile({ file: dir, what: "a folder" })}`],
      [missing, `KV1010: ${CODES.KV1010.messages.unreadable({ code: "ENOENT" })}`],
    ] as const) {
      const call = await kervanc(["call", path, "get_forecast", "{}"]);
      expect(call.code).toBe(1);
      expect(call.stderr.split("\n")[0]).toBe(`${path}:1:1 - error ${expected}`);
    }
  });

  it("prints a broken spec's diagnostics as build does, with the code frame, and calls nothing", async () => {
    const broken = join(dir, "broken.yaml");
    const text = weatherSpec(upstream.origin).replace("    description:", "    descripton:");
    await writeFile(broken, text);
    const line = text.split("\n").findIndex((l) => l.startsWith("    descripton:")) + 1;
    const r = await kervanc(["call", broken, "get_forecast", "{}"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`> ${line} |     descripton:`);
    expect(r.stderr).toContain("  see kervanc docs/diagnostics.md#kv2001\n");
  });

  it("refuses arguments that are not a JSON object, and an unknown tool, as usage errors (exit 2)", async () => {
    const notJson = await kervanc(["call", spec, "get_forecast", "{city: Paris}"]);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toContain("kervanc call: the arguments are not valid JSON");
    const array = await kervanc(["call", spec, "get_forecast", "[1]"]);
    expect(array.code).toBe(2);
    expect(array.stderr).toContain("the arguments must be a JSON object");
    const unknown = await kervanc(["call", spec, "get_forcast", "{}"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('has no tool "get_forcast". Did you mean "get_forecast"?');
  });

  it("is refused when NODE_ENV=production: the relaxations never reach production", async () => {
    const r = await kervanc(["call", spec, "get_forecast", '{"city": "Paris"}', "--secrets-file", secrets], {
      env: { ...process.env, NODE_ENV: "production" },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("refused when NODE_ENV=production");
    expect(r.stdout).toBe("");
  });

  it("build still refuses the same spec: a secret over plain http is a development relaxation only", async () => {
    const r = await kervanc(["build", spec, "-o", join(dir, "out")]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("KV3007");
  });

  it("the relaxation covers loopback hosts only: a secret over plain http elsewhere is still refused", async () => {
    const remote = join(dir, "remote.yaml");
    await writeFile(remote, weatherSpec("http://api.example.com"));
    const r = await kervanc(["call", remote, "get_forecast", '{"city": "Paris"}']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("error KV3007");
    expect(r.stderr).toContain("nothing was called");
  });
});
