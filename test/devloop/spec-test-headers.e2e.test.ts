/**
 * A spec-test file's response headers are sent by kervanc's stand-in API as they are. One that HTTP cannot carry
 * (a line break in a value, a space in a name, a character past U+00FF) is a positioned KV9010 error when the
 * file is loaded, not an exception that stops `kervanc test` with a stack trace.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kervanc, removeDir, tempDir } from "../helpers/kervanc.ts";
import { weatherSpec } from "./specs.ts";

let dir: string;

beforeAll(async () => {
  dir = await tempDir("spec-test-headers");
});
afterAll(() => removeDir(dir));

async function suite(name: string, tests: string): Promise<string> {
  const folder = join(dir, name);
  await mkdir(folder);
  await writeFile(join(folder, "weather.yaml"), weatherSpec("http://127.0.0.1:9"));
  await writeFile(join(folder, "weather.test.yaml"), tests);
  return folder;
}

const caseWith = (headers: string): string => `tests:
  - name: hostile headers
    tool: get_forecast
    arguments: { city: Paris }
    upstream:
      response:
        headers:
${headers}
        body: { city: Paris, temp: 1 }
    expect:
      structured: { city: Paris, temp: 1 }
`;

describe("kervanc test and response headers HTTP cannot carry", () => {
  it("reports each with its position, and runs no case", async () => {
    const folder = await suite(
      "bad",
      caseWith(
        [
          `          x-forged: "a\\r\\nset-cookie: x=1"`,
          `          "bad name": "x"`,
          `          x-wide: "price in €"`,
          `          x-fine: "ok"`,
        ].join("\n"),
      ),
    );
    const r = await kervanc(["test", folder]);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toContain("internal error");
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stderr).toContain(
      `weather.test.yaml:8:21 - error KV9010: tests[0].upstream.response.headers["x-forged"]: The value of header "x-forged" cannot be sent in HTTP`,
    );
    expect(r.stderr).toContain(
      `weather.test.yaml:9:11 - error KV9010: tests[0].upstream.response.headers["bad name"]: "bad name" cannot be an HTTP header name`,
    );
    expect(r.stderr).toContain(`weather.test.yaml:10:19 - error KV9010`);
    expect(r.stderr).not.toContain(`headers["x-fine"]`);
    expect(r.stdout).toContain("0 passed, 0 failed, 3 errors in specs or test files.");
  });

  it("sends headers HTTP can carry as they are", async () => {
    const folder = await suite("good", caseWith(`          x-fine: "ok; charset=latin-1 \u00e9"`));
    const r = await kervanc(["test", folder]);
    expect(r.stdout).toContain("PASS hostile headers");
    expect(r.code).toBe(0);
  });
});
