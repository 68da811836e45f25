/**
 * Deadlines survive garbage collection (Node 20 loses `AbortSignal.timeout` inside `AbortSignal.any` after a GC,
 * nodejs/node#57736): the hop timeout must fire even when the heap is collected while a request waits.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it, vi } from "vitest";
import { CallDeadline } from "../../packages/runtime/src/call/deadline.ts";

describe("CallDeadline: the tool's and each hop's timeout in one controller and one timer", () => {
  const hopReason = (): DOMException => new DOMException("Request to h timed out.", "TimeoutError");

  it("aborts the signal when a hop's time is up without ending the call; the tool's timeout then ends it", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
    try {
      const d = new CallDeadline(new AbortController().signal, 5_100, () => "tool timeout");
      const settled: unknown[] = [];
      const work = d
        .race(new Promise(() => {}), (why) => `ended: ${String(why)}`)
        .catch((e: unknown) => settled.push(e));
      d.startHop(100, hopReason);
      await vi.advanceTimersByTimeAsync(99);
      expect(d.signal.aborted).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(d.signal.aborted).toBe(true);
      expect((d.signal.reason as DOMException).name).toBe("TimeoutError");
      expect(d.hopTimedOut).toBe(true);
      expect(d.ended).toBe(false);
      expect(settled).toEqual([]);
      await vi.advanceTimersByTimeAsync(5_000);
      await work;
      expect(d.ended).toBe(true);
      expect(d.endReason).toBe("tool timeout");
      expect(settled).toEqual(["ended: tool timeout"]);
      d.dispose();
    } finally {
      vi.useRealTimers();
    }
  });

  it("gives every hop its own full time, and still ends the call at the tool's time", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
    try {
      const d = new CallDeadline(new AbortController().signal, 250, () => "tool timeout");
      for (let hop = 0; hop < 2; hop++) {
        d.startHop(100, hopReason);
        await vi.advanceTimersByTimeAsync(90);
        expect(d.signal.aborted).toBe(false);
        d.endHop();
      }
      // A third hop would have time left (100 ms) but the tool has only 70 ms.
      d.startHop(100, hopReason);
      await vi.advanceTimersByTimeAsync(69);
      expect(d.signal.aborted).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(d.ended).toBe(true);
      expect(d.hopTimedOut).toBe(false);
      expect(d.signal.reason).toBe("tool timeout");
      d.dispose();
    } finally {
      vi.useRealTimers();
    }
  });

  it("tells onAbort listeners of a hop's timeout once, in order; a removed one hears nothing; the signal agrees", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
    try {
      const d = new CallDeadline(new AbortController().signal, 5_000, () => "tool timeout");
      const heard: string[] = [];
      d.onAbort(() => heard.push("first"));
      const remove = d.onAbort(() => heard.push("removed"));
      d.onAbort(() => heard.push("second"));
      remove();
      d.startHop(100, hopReason);
      await vi.advanceTimersByTimeAsync(100);
      expect(heard).toEqual(["first", "second"]);
      // The signal, made only now, is already aborted, with the hop's reason.
      expect(d.signal.aborted).toBe(true);
      expect((d.signal.reason as DOMException).name).toBe("TimeoutError");
      // The call's end afterwards is not a second abort.
      await vi.advanceTimersByTimeAsync(5_000);
      expect(d.ended).toBe(true);
      expect(heard).toEqual(["first", "second"]);
      // A listener that comes after the abort hears it at once.
      d.onAbort(() => heard.push("late"));
      expect(heard).toEqual(["first", "second", "late"]);
      d.dispose();
    } finally {
      vi.useRealTimers();
    }
  });

  it("tells onAbort listeners and an already made signal of a cancellation alike", () => {
    const parent = new AbortController();
    const d = new CallDeadline(parent.signal, 10_000, () => "tool timeout");
    const signal = d.signal;
    const heard: unknown[] = [];
    signal.addEventListener("abort", () => heard.push(`signal: ${String(signal.reason)}`));
    d.onAbort(() => heard.push("listener"));
    parent.abort("cancelled");
    expect(heard).toEqual(["signal: cancelled", "listener"]);
    d.dispose();
  });

  it("follows its parent: cancellation ends the call and settles the race at once", async () => {
    const parent = new AbortController();
    const d = new CallDeadline(parent.signal, 10_000, () => "tool timeout");
    const raced = d.race(new Promise(() => {}), (why) => why);
    parent.abort("cancelled");
    await expect(raced).rejects.toBe("cancelled");
    expect(d.signal.reason).toBe("cancelled");
    expect(d.ended).toBe(true);
    d.dispose();
    const late = new CallDeadline(parent.signal, 10_000, () => "tool timeout");
    expect(late.ended).toBe(true);
    await expect(late.race(Promise.resolve(1), (why) => why)).rejects.toBe("cancelled");
  });

  it("fires a hop's timeout after a full garbage collection", async () => {
    const script = `
      const { CallDeadline } = await import(${JSON.stringify(new URL("../../packages/runtime/src/call/deadline.ts", import.meta.url).pathname)});
      let d = new CallDeadline(new AbortController().signal, 10_000, () => "tool");
      d.startHop(100, () => "hop");
      const signal = d.signal;
      d = null;
      globalThis.gc();
      await new Promise((r) => setTimeout(r, 50));
      globalThis.gc();
      await new Promise((r) => setTimeout(r, 300));
      console.log(JSON.stringify({ aborted: signal.aborted, reason: signal.reason }));
      process.exit(0);
    `;
    const { stdout } = await promisify(execFile)(process.execPath, [
      "--expose-gc",
      "--import",
      "tsx",
      "--input-type=module",
      "-e",
      script,
    ]);
    expect(JSON.parse(stdout)).toEqual({ aborted: true, reason: "hop" });
  });
});
