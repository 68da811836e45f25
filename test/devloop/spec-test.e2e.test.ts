/**
 * `kervanc test`: spec-test files run against kervanc's own stand-in API on 127.0.0.1, secrets from
 * placeholders; passing and failing cases (each failure message checked), a case recorded by `kervanc call
 * --record` that passes when replayed with its upstream gone, and the canary check.
 */
import { readFileSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Ajv } from "ajv";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { placeholders } from "../../packages/compiler/src/spectest/secrets.ts";
import { kervanc, REPO, removeDir, tempDir } from "../helpers/kervanc.ts";
import { json, startUpstream, type Upstream } from "../helpers/upstream.ts";
import { SECRET, weatherSpec } from "./specs.ts";

let dir: string;

/** The spec's tools point at a port nothing listens on: `kervanc test` must never call it. */
const NOWHERE = "http://127.0.0.1:9";

const PASSING = `tests:
  - name: sends the city and the key, gives the selection
    tool: get_forecast
    arguments: { city: Paris }
    upstream:
      request:
        method: GET
        path: /forecast
        query: { city: Paris }
        headers: { x-api-key: "{{secrets.API_KEY}}" }
      response:
        body: { city: Paris, temp: 21, extra: ignored }
    expect:
      text: '{"city":"Paris","temp":21}'
      structured: { city: Paris, temp: 21 }
  - name: an upstream that echoes the key gets it redacted
    tool: get_forecast
    arguments: { city: "{{secrets.API_KEY}}" }
    upstream:
      response:
        body: { city: "{{secrets.API_KEY}}", temp: 1 }
    expect:
      structured: { city: "[redacted]", temp: 1 }
  - name: a 404 is an error result
    tool: get_forecast
    arguments: { city: Atlantis }
    upstream:
      response: { status: 404, body: { error: no such city } }
    expect:
      error: Upstream returned 404
  - name: invalid arguments never reach the upstream
    tool: get_forecast
    arguments: { city: 5 }
    expect:
      error: data/city must be string
`;

const FAILING = `tests:
  - name: wrong request
    tool: get_forecast
    arguments: { city: Oslo }
    upstream:
      request:
        method: POST
        path: /weather
        query: { city: Bergen }
        headers: { x-api-key: not-the-key, x-missing: here }
      response:
        body: { city: Oslo, temp: 3 }
    expect:
      text: '{"city":"Oslo","temp":4}'
  - name: wrong structured content
    tool: get_forecast
    arguments: { city: Oslo }
    upstream:
      response:
        body: { city: Oslo, temp: 3 }
    expect:
      structured: { city: Oslo, temp: 4 }
  - name: expects an error, gets a success
    tool: get_forecast
    arguments: { city: Oslo }
    upstream:
      response:
        body: { city: Oslo, temp: 3 }
    expect:
      error: Upstream returned 500
  - name: expects a success, gets an error
    tool: get_forecast
    arguments: { city: Oslo }
    upstream:
      response: { status: 500, body: down }
    expect:
      text: "{}"
  - name: expects an upstream call, none made
    tool: get_forecast
    arguments: { city: 5 }
    upstream:
      response: { body: {} }
    expect:
      error: data/city must be string
  - name: expects no upstream call, one made
    tool: get_forecast
    arguments: { city: Oslo }
    expect:
      error: anything
`;

beforeAll(async () => {
  dir = await tempDir("spectest");
  for (const name of ["pass", "fail"]) {
    await mkdir(join(dir, name));
    await writeFile(join(dir, name, "weather.yaml"), weatherSpec(NOWHERE));
  }
  await writeFile(join(dir, "pass", "weather.test.yaml"), PASSING);
  await writeFile(join(dir, "fail", "weather.test.yaml"), FAILING);
});

afterAll(async () => {
  await removeDir(dir);
});

describe("kervanc test", () => {
  it("passes every case of a passing file, offline, and exits 0", async () => {
    const r = await kervanc(["test", join(dir, "pass")]);
    expect(r.stderr).toContain("kervanc development mode");
    expect(r.stdout).toContain("PASS sends the city and the key, gives the selection");
    expect(r.stdout).toContain("PASS an upstream that echoes the key gets it redacted");
    expect(r.stdout).toContain("PASS a 404 is an error result");
    expect(r.stdout).toContain("PASS invalid arguments never reach the upstream");
    expect(r.stdout).toContain("4 passed, 0 failed.");
    expect(r.code).toBe(0);
  });

  it("reports each failure with what differs, and exits 1", async () => {
    const r = await kervanc(["test", join(dir, "fail", "weather.yaml")]);
    expect(r.code).toBe(1);
    const out = r.stdout;
    expect(out).toContain("FAIL wrong request");
    expect(out).toContain("- request method: expected POST, got GET");
    expect(out).toContain("- request path: expected /weather, got /forecast");
    expect(out).toContain('- request query: expected {"city":"Bergen"}, got {"city":"Oslo"}');
    // The placeholder value is never shown: the header as sent reads as its placeholder.
    expect(out).toContain('- request header x-api-key: expected "not-the-key", got "{{secrets.API_KEY}}"');
    expect(out).toContain('- request header x-missing: expected "here", got none');
    expect(out).toContain(
      '- result text differs:\n           - {"city":"Oslo","temp":4}\n           + {"city":"Oslo","temp":3}',
    );
    expect(out).toContain("FAIL wrong structured content");
    expect(out).toContain(
      '- structured content differs:\n             {\n               "city": "Oslo",\n           -   "temp": 4\n           +   "temp": 3\n             }',
    );
    expect(out).toContain(
      'FAIL expects an error, gets a success\n       - expected an error containing "Upstream returned 500", got a success:\n             {"city":"Oslo","temp":3}',
    );
    expect(out).toContain(
      "FAIL expects a success, gets an error\n       - expected a success, got an error:\n             Upstream returned 500",
    );
    expect(out).toContain(
      "FAIL expects an upstream call, none made\n       - the case expects an upstream request, but the tool made none",
    );
    expect(out).toContain(
      "FAIL expects no upstream call, one made\n       - the tool called the upstream (GET /forecast?city=Oslo), but the case expects no upstream call",
    );
    expect(out).toContain("0 passed, 6 failed.");
    expect(out).not.toMatch(/kervanc-test-api_key-[0-9a-f]/);
  });

  it("--format json gives each case's result and failures", async () => {
    const r = await kervanc(["test", join(dir, "fail", "weather.test.yaml"), "--format", "json"]);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as {
      ok: boolean;
      passed: number;
      failed: number;
      files: { cases: { name: string; ok: boolean; failures: string[] }[] }[];
    };
    expect(report).toMatchObject({ ok: false, passed: 0, failed: 6 });
    expect(report.files[0]!.cases[1]).toMatchObject({ name: "wrong structured content", ok: false });
    expect(report.files[0]!.cases[1]!.failures[0]).toMatch(/^structured content differs:/);
  });

  it("gives the server placeholders, never a real secret from the environment", async () => {
    const real = "real-production-key-0123456789";
    const file = join(dir, "real");
    await mkdir(file);
    await writeFile(join(file, "weather.yaml"), weatherSpec(NOWHERE));
    await writeFile(
      join(file, "weather.test.yaml"),
      `tests:\n  - name: real key\n    tool: get_forecast\n    arguments: { city: Oslo }\n    upstream:\n      request: { headers: { x-api-key: ${real} } }\n      response: { body: { city: Oslo, temp: 1 } }\n    expect: { text: '{"city":"Oslo","temp":1}' }\n`,
    );
    const r = await kervanc(["test", file], { env: { ...process.env, API_KEY: real } });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`- request header x-api-key: expected "${real}", got "{{secrets.API_KEY}}"`);
  });

  it("reports test-file problems as positioned diagnostics", async () => {
    const file = join(dir, "bad");
    await mkdir(file);
    await writeFile(join(file, "weather.yaml"), weatherSpec(NOWHERE));
    await writeFile(
      join(file, "weather.test.yaml"),
      "tests:\n  - name: typo\n    tool: get_forcast\n    expect: { text: x }\n",
    );
    const r = await kervanc(["test", file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `${join(file, "weather.test.yaml")}:3:11 - error KV9010: tests[0].tool: This case calls "get_forcast", which the spec does not have. Did you mean "get_forecast"?\n  see kervanc docs/diagnostics.md#kv9010\n`,
    );
    // --format json: the diagnostics as build's JSON has them, with the documentation anchor.
    const json = await kervanc(["test", file, "--format", "json"]);
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout) as { diagnostics: { code: string; doc: string }[] };
    expect(report.diagnostics.map((d) => `${d.code} ${d.doc}`)).toEqual(["KV9010 docs/diagnostics.md#kv9010"]);
  });

  it("is refused when NODE_ENV=production", async () => {
    const r = await kervanc(["test", join(dir, "pass")], { env: { ...process.env, NODE_ENV: "production" } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("refused when NODE_ENV=production");
  });
});

describe("the canary check", () => {
  it("finds a placeholder in any form the runtime redacts (raw, base64, percent-encoded), and only its own", () => {
    const s = placeholders(["API_KEY", "OTHER_KEY"]);
    const value = s.values.get("API_KEY")!;
    expect(s.leaked(`{"text":"${value}"}`)).toEqual(["API_KEY"]);
    expect(s.leaked(Buffer.from(value).toString("base64"))).toEqual(["API_KEY"]);
    expect(s.leaked(encodeURIComponent(`x ${value}`))).toEqual(["API_KEY"]);
    expect(s.leaked("[redacted]")).toEqual([]);
    expect(s.mask(`key=${value}`)).toBe("key={{secrets.API_KEY}}");
  });
});

describe("kervanc call --record", () => {
  let upstream: Upstream;
  let recordDir: string;

  beforeAll(async () => {
    upstream = await startUpstream((req, res) => {
      const city = new URLSearchParams(req.query).get("city");
      if (city === "Leak") return json(res, 200, { city: Buffer.from(SECRET).toString("base64"), temp: 0 });
      json(res, 200, { city, temp: 18, key: req.headers["x-api-key"] });
    });
    recordDir = join(dir, "record");
    await mkdir(recordDir);
    await writeFile(join(recordDir, "weather.yaml"), weatherSpec(upstream.origin));
    await writeFile(join(recordDir, "secrets.env"), `API_KEY=${SECRET}\n`);
  });

  afterAll(async () => {
    await upstream.close();
  });

  it("writes a case with secrets as placeholders, which passes when replayed with the upstream gone", async () => {
    const spec = join(recordDir, "weather.yaml");
    const testFile = join(recordDir, "weather.test.yaml");
    const r = await kervanc([
      "call",
      spec,
      "get_forecast",
      '{"city": "Lima"}',
      "--secrets-file",
      join(recordDir, "secrets.env"),
      "--record",
      testFile,
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`Recorded the case "get_forecast (recorded)" in ${testFile}.`);
    const text = await readFile(testFile, "utf8");
    expect(text).not.toContain(SECRET);
    const recorded = parse(text) as { tests: { upstream: { request: { headers: Record<string, string> } } }[] };
    expect(recorded.tests[0]!.upstream.request.headers).toEqual({ "x-api-key": "{{secrets.API_KEY}}" });
    const schema = JSON.parse(readFileSync(join(REPO, "schema", "kervan-test.schema.json"), "utf8")) as object;
    const validate = new Ajv({ strict: true, allowUnionTypes: true }).compile(schema);
    expect(validate(recorded), JSON.stringify(validate.errors)).toBe(true);

    await upstream.close();
    const replay = await kervanc(["test", recordDir]);
    expect(replay.stdout).toContain("PASS get_forecast (recorded)");
    expect(replay.code).toBe(0);
  });

  it("relays only to the tool's own origin: a path that starts with // does not change the host", async () => {
    const other = await startUpstream((_req, res) => json(res, 200, { city: "wrong host", temp: 0 }));
    const own = await startUpstream((_req, res) => json(res, 200, { city: "own host", temp: 1 }));
    const slashDir = join(dir, "slashes");
    await mkdir(slashDir);
    await writeFile(join(slashDir, "weather.yaml"), weatherSpec(`${own.origin}//127.0.0.1:${other.port}`));
    const r = await kervanc([
      "call",
      join(slashDir, "weather.yaml"),
      "get_forecast",
      '{"city": "X"}',
      "--secrets-file",
      join(recordDir, "secrets.env"),
      "--record",
      join(slashDir, "weather.test.yaml"),
    ]);
    await other.close();
    await own.close();
    expect(other.requests).toEqual([]);
    expect(own.requests.map((q) => q.path)).toEqual([`//127.0.0.1:${other.port}/forecast`]);
    expect(r.stdout).toContain("own host");
  });

  it("refuses to write a case in which a secret remains in an encoded form", async () => {
    const leakUpstream = await startUpstream((_req, res) =>
      json(res, 200, { city: Buffer.from(SECRET).toString("base64"), temp: 0 }),
    );
    const leakDir = join(dir, "leak");
    await mkdir(leakDir);
    await writeFile(join(leakDir, "weather.yaml"), weatherSpec(leakUpstream.origin));
    const testFile = join(leakDir, "weather.test.yaml");
    const r = await kervanc([
      "call",
      join(leakDir, "weather.yaml"),
      "get_forecast",
      '{"city": "Leak"}',
      "--secrets-file",
      join(recordDir, "secrets.env"),
      "--record",
      testFile,
    ]);
    await leakUpstream.close();
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      "kervanc call --record: the recorded exchange still holds API_KEY in an encoded form; nothing was written.",
    );
    await expect(readFile(testFile, "utf8")).rejects.toThrow(/ENOENT/);
  });
});

describe("folders of specs", () => {
  it("build and check leave *.test.yaml files out", async () => {
    const folder = join(dir, "buildable");
    await mkdir(folder);
    await writeFile(join(folder, "hn.yaml"), readFileSync(join(REPO, "fixtures", "specs", "hn.yaml")));
    await writeFile(join(folder, "hn.test.yaml"), "tests:\n  - name: x\n    tool: y\n    expect: { text: z }\n");
    const out = join(dir, "buildable-out");
    const built = await kervanc(["build", folder, "-o", out]);
    expect(built.stderr).toContain("Built 1 server");
    expect(built.code).toBe(0);
    const checked = await kervanc(["check", folder, "-o", out]);
    expect(checked.code).toBe(0);
  });
});
