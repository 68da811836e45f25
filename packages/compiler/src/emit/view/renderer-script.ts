/**
 * The view renderer's script (kervanc extension views): the one place a build gets it from. It is bundled once
 * per kervanc version with the rest of the fixed code (bundle/prebuild.ts calls renderer-bundle.ts, esbuild) and
 * read here from the prebuilt record, memoized per process with the record: a user's build runs no bundler.
 */
import { loadPrebuilt } from "../bundle/prebuilt.ts";
import type { PrebuiltViewRenderer } from "../bundle/prebuilt-format.ts";

export async function viewRenderer(): Promise<PrebuiltViewRenderer> {
  return (await loadPrebuilt()).viewRenderer;
}
