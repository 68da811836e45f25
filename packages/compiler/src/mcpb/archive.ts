/**
 * A `.mcpb` archive (a zip) whose bytes depend only on its files: fixed order, a fixed timestamp, fixed
 * compression. fflate (the zip library `@anthropic-ai/mcpb` itself uses) writes it; the same input gives the
 * same bytes, like the rest of kervanc's output.
 */
import { zipSync, type Zippable } from "fflate";

/** 1980-01-01 00:00 local time: the earliest time a zip entry can record, so nothing depends on the clock. */
const FIXED_TIME = new Date(1980, 0, 1, 0, 0, 0);

export function zipFiles(files: ReadonlyMap<string, Uint8Array>): Uint8Array {
  const entries: Zippable = {};
  for (const name of [...files.keys()].sort())
    entries[name] = [files.get(name)!, { level: 9, mtime: FIXED_TIME, os: 3, attrs: 0o644 << 16 }];
  return zipSync(entries, { level: 9, mtime: FIXED_TIME });
}
