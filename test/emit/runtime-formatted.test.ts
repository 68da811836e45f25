/**
 * The runtime is copied into every package as it is, so its sources must already be in the form the compiler's
 * formatter gives them (otherwise a build would not be the formatted output it claims to be).
 */
import { readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { format, OPTIONS } from "../../scripts/prettier-style.ts";
import { RUNTIME_SRC } from "../../packages/compiler/src/emit/versions.ts";

describe("packages/runtime/src", () => {
  it("is formatted exactly as the compiler formats (npm run accept fixes it)", async () => {
    const files = (await readdir(RUNTIME_SRC, { recursive: true })).filter((f) => f.endsWith(".ts")).sort();
    expect(files.length).toBeGreaterThan(20);
    const drifted: string[] = [];
    for (const file of files) {
      const source = await readFile(join(RUNTIME_SRC, file), "utf8");
      if ((await format(source, "typescript")) !== source) drifted.push(file);
    }
    expect(drifted, "These runtime files are not in the compiler's format: run npm run accept").toEqual([]);
  });

  it("is formatted with the settings npm run format uses for the rest of the repository (.prettierrc.json)", async () => {
    // Otherwise `npm run format` and `npm run format:runtime` would undo each other.
    const rc = JSON.parse(await readFile(join(import.meta.dirname, "../../.prettierrc.json"), "utf8")) as unknown;
    expect(rc).toEqual(OPTIONS);
  });
});
