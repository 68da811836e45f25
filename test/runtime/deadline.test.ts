/**
 * Deadlines survive garbage collection (Node 20 loses `AbortSignal.timeout` inside `AbortSignal.any` after a GC,
 * nodejs/node#57736): the hop timeout must fire even when the heap is collected while a request waits.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { deadline } from "../../packages/runtime/src/deadline.ts";

describe("deadline", () => {
  it("fires after a full garbage collection", async () => {
    // A child with --expose-gc runs the real module through tsx, collects, and reports whether the deadline fired.
    const script = `
      const { deadline } = await import(${JSON.stringify(new URL("../../packages/runtime/src/deadline.ts", import.meta.url).pathname)});
      const parent = new AbortController();
      let d = deadline(parent.signal, 100, () => "late");
      const signal = d.signal;
      d = null;
      globalThis.gc();
      await new Promise((r) => setTimeout(r, 50));
      globalThis.gc();
      await new Promise((r) => setTimeout(r, 300));
      console.log(JSON.stringify({ aborted: signal.aborted, reason: signal.reason }));
    `;
    const { stdout } = await promisify(execFile)(process.execPath, ["--expose-gc", "--import", "tsx", "--input-type=module", "-e", script]);
    expect(JSON.parse(stdout)).toEqual({ aborted: true, reason: "late" });
  });

  it("follows its parent, says which fired, and releases the timer", () => {
    const parent = new AbortController();
    const d = deadline(parent.signal, 10_000, () => "timeout");
    parent.abort("cancelled");
    expect(d.signal.aborted).toBe(true);
    expect(d.signal.reason).toBe("cancelled");
    expect(d.timedOut).toBe(false);
    d.dispose();
  });
});
