/**
 * `kervanc init [folder]`: a starter spec that builds as it is, so a new user's first build succeeds, and the
 * commands to run next. The spec's first line is a yaml-language-server modeline pointing at kervanc's JSON
 * Schema, so editors complete and check the file from the first keystroke.
 */
import { existsSync } from "node:fs";
import { lstat, mkdir, writeFile } from "node:fs/promises";
import { fileKind } from "../load/regular-file.ts";
import { join, relative, sep } from "node:path";
import type { Io } from "./io.ts";
import { SCHEMA_FILE } from "../kervanc-package.ts";
import { printable } from "./text.ts";

export const STARTER_SPEC = `# A starter spec: one tool that reads the current weather from Open-Meteo (a public API, no key needed).
# Change it, run \`kervanc build specs -o servers\`, and the server is in servers/example/.
specVersion: 1
name: example
version: "0.1.0"
description: Current weather for any place on Earth, from Open-Meteo.

tools:
  - name: get_current_weather
    title: Current weather
    description: Get the current temperature and wind speed at a latitude and longitude.
    annotations:
      readOnlyHint: true
    input:
      type: object
      properties:
        latitude: { type: number, minimum: -90, maximum: 90 }
        longitude: { type: number, minimum: -180, maximum: 180 }
      required: [latitude, longitude]
    http:
      method: GET
      url: https://api.open-meteo.com/v1/forecast
      query:
        latitude: "{{input.latitude}}"
        longitude: "{{input.longitude}}"
        current: temperature_2m,wind_speed_10m
    output:
      select: "{temperatureC: current.temperature_2m, windKmh: current.wind_speed_10m}"
      schema:
        type: object
        properties:
          temperatureC: { type: number }
          windKmh: { type: number }
        required: [temperatureC, windKmh]
`;

export async function initCommand(folder: string, io: Io): Promise<number> {
  const specDir = join(folder, "specs");
  const file = join(specDir, "example.yaml");
  // specs/ must be a folder of its own: a link there (in a cloned repository) would have the starter spec written
  // wherever it points, outside the folder the user named.
  const existing = await lstat(specDir).catch(() => null);
  if (existing !== null && !existing.isDirectory()) {
    io.stderr(
      `kervanc init: ${printable(specDir)} is ${fileKind(existing)}, not a folder; nothing was written. Run kervanc init in another folder.\n`,
    );
    return 1;
  }
  if (existsSync(file)) {
    io.stderr(
      `kervanc init: ${printable(file)} already exists; nothing was written. Edit it, or run kervanc init in another folder.\n`,
    );
    return 1;
  }
  try {
    await mkdir(specDir, { recursive: true });
    // "wx": never replace a file that appeared since the check above.
    await writeFile(file, `# yaml-language-server: $schema=${schemaReference(folder, specDir)}\n${STARTER_SPEC}`, {
      flag: "wx",
    });
  } catch (error) {
    const code = typeof error === "object" && error !== null && "code" in error ? String(error.code) : "error";
    io.stderr(`kervanc init: cannot write ${printable(file)} (${code}); nothing was written.\n`);
    return 1;
  }
  const cd = folder === "." ? [] : [`  cd ${printable(folder)}`];
  io.stdout(
    [
      `Wrote ${printable(file)}: one tool for the Open-Meteo weather API.`,
      "",
      "Next:",
      ...cd,
      "  npx kervanc build specs -o servers          # one MCP server package per spec",
      "  node --disallow-code-generation-from-strings servers/example/server.mjs   # speaks MCP over stdio",
      "  npx kervanc check specs -o servers          # in CI: the committed servers are what the specs build",
      "",
    ].join("\n"),
  );
  return 0;
}

/**
 * The modeline's path to the schema, relative to the spec's folder. When the project has kervanc installed in
 * its own node_modules, point there (the path survives upgrades and pnpm's versioned store folders); otherwise at
 * the schema of the kervanc that is running.
 */
function schemaReference(folder: string, specDir: string): string {
  const installed = join(folder, "node_modules", "kervanc", "schema", "kervan-spec.schema.json");
  const target = existsSync(installed) ? installed : SCHEMA_FILE;
  return relative(specDir, target).split(sep).join("/");
}
