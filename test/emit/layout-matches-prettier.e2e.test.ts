/**
 * A build runs no formatter (issue 37: prettier is no longer a dependency of the installed kervanc): the
 * TypeScript it writes outside the runtime copy is laid out by its writers. The fixed texts (the entries, the
 * declaration files) are kept in prettier's layout: prettier, with the repository's settings, gives each back
 * unchanged. The server module has a layout of its own, like the tool modules: prettier must parse it, and its
 * layout must be stable (one line when it fits, else one argument and one tool per line). (The runtime copy is
 * checked by runtime-formatted.test.ts; tool modules and validators by tool-module-layouts.test.ts and
 * layout-generated-js.test.ts.)
 *
 * An e2e file because emitting reads the prebuilt bundles, which a fresh clone builds with esbuild on first use.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compileSpec } from "../../packages/compiler/src/compile.ts";
import { emitServer } from "../../packages/compiler/src/emit/emit.ts";
import { generateSpec } from "../../scripts/bench/gen-specs.ts";
import { format } from "../../scripts/prettier-style.ts";

const FOLDERS = ["fixtures/valid", "fixtures/specs"];

describe("the TypeScript a build writes", () => {
  const specs: [string, Uint8Array][] = FOLDERS.flatMap((folder) =>
    readdirSync(folder)
      .filter((name) => name.endsWith(".yaml"))
      .map((name): [string, Uint8Array] => [join(folder, name), readFileSync(join(folder, name))]),
  );
  // Enough tools that the list goes one per line.
  specs.push(["forty.yaml", new TextEncoder().encode(generateSpec(40, "http://127.0.0.1:9"))]);

  it("is in prettier's layout where it is fixed text, and valid TypeScript with lines within 120 columns in server.ts", async () => {
    let checked = 0;
    let servers = 0;
    for (const [file, bytes] of specs) {
      const compiled = compileSpec(file, bytes);
      if (compiled.planned === null) continue;
      const files = await emitServer(compiled.planned, { folder: "x", specFile: "x.yaml", sha256: "0".repeat(64) });
      for (const [path, text] of files) {
        // src/views.ts and src/views/ hold the views' page texts and renderer (views extension), as strings.
        if (!path.endsWith(".ts") || /^src\/(runtime|tools|views)\/|^src\/views\.ts$/.test(path)) continue;
        const formatted = await format(text, "typescript");
        if (path === "src/server.ts") {
          servers++;
          const last = text.slice(text.indexOf("export const server"));
          if (compiled.planned.tools.length === 40) expect(last, file).toMatch(/^ {2}\[\n {4}tool0,\n {4}tool1,$/m);
          // Only import lines, whose paths prettier does not break either, may be longer.
          const long = text.split("\n").filter((l) => l.length > 120 && !l.startsWith("import "));
          expect(
            long.filter((l) => !/^\s+(?:\w+|"[^"]*"): "/.test(l)),
            file,
          ).toEqual([]);
        } else expect(formatted, `${file}: ${path}`).toBe(text);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(30);
    expect(servers).toBeGreaterThan(5);
  });
});
