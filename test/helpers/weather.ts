/**
 * The open-meteo fixture built against a local upstream that always answers the same current weather: the server
 * the transport suites (stdio framing, Streamable HTTP, HTTP authentication) talk to, where the tool's answer is
 * only there to be checked end to end.
 */
import { join } from "node:path";
import { expect } from "vitest";
import { buildFixtures, removeDir } from "./kervanc.ts";
import { json, startUpstream, type Upstream } from "./upstream.ts";

/** What the upstream answers every request with (get_current_weather makes it temperatureC 3.5, windKmh 10). */
export const CURRENT_WEATHER = { current: { temperature_2m: 3.5, wind_speed_10m: 10, weather_code: 61 } };

/**
 * Starts the weather upstream and builds open-meteo.yaml against it. The build must exit 0 (the CLI's stderr is
 * the failure's message); when it does not, the upstream is closed and the folder removed, since the caller never
 * gets them to clean up. `outDir` is `<temp folder>/out`: remove `join(outDir, "..")` when done.
 */
export async function buildWeatherServer(): Promise<{ upstream: Upstream; outDir: string; serverPath: string }> {
  const upstream = await startUpstream((_req, res) => json(res, 200, CURRENT_WEATHER));
  const built = await buildFixtures(["open-meteo.yaml"], upstream.origin);
  if (built.result.code !== 0) {
    await upstream.close();
    await removeDir(join(built.outDir, ".."));
  }
  expect(built.result.code, built.result.stderr).toBe(0);
  return { upstream, outDir: built.outDir, serverPath: join(built.outDir, "open-meteo", "server.mjs") };
}
