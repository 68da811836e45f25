/**
 * `kervanc call --record FILE` appends to FILE: whatever FILE turns out to be, it is refused with a message,
 * never read in a way that blocks (a named pipe) or never ends (a device).
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendCase, RecordRefused } from "../../packages/compiler/src/spectest/record.ts";
import { removeDir, tempDir } from "../helpers/kervanc.ts";

let dir = "";
beforeAll(async () => {
  dir = await tempDir("record-file");
});
afterAll(() => removeDir(dir));

describe("appendCase", () => {
  it.skipIf(process.platform === "win32")("refuses a named pipe instead of blocking on it", async () => {
    const fifo = join(dir, "cases.kervan-test.yaml");
    execFileSync("mkfifo", [fifo]);
    const appended = appendCase(fifo, () => ({ name: "x" }));
    await expect(appended).rejects.toBeInstanceOf(RecordRefused);
    await expect(appended).rejects.toThrow("is a named pipe (fifo), not a test file; nothing was written.");
  });

  it("refuses a folder", async () => {
    await expect(appendCase(dir, () => ({ name: "x" }))).rejects.toThrow("is a folder, not a test file");
  });
});
