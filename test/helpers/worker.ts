/**
 * worker.mjs's handler in process, for the test suites that drive it with Requests.
 */
import { expect, vi } from "vitest";
import type { createFetchHandler } from "../../packages/runtime/src/entry/fetch-main.ts";

/**
 * A request to a worker that fails to start: the client must get a 500 that says only that (the reason names the
 * operator's settings), and the reason goes to the log. Returns the lines logged meanwhile.
 */
export async function failedStart(
  worker: ReturnType<typeof createFetchHandler>,
  request: Request,
  env: Record<string, string>,
): Promise<string[]> {
  const logged: string[] = [];
  const spy = vi.spyOn(console, "error").mockImplementation((line: unknown) => void logged.push(String(line)));
  try {
    const response = await worker.fetch(request, env);
    expect(response.status).toBe(500);
    // The reason is the operator's to read, in the log; a client, who may be anyone, learns only that it failed.
    expect(await response.text()).toBe("This server could not start; its log says why.\n");
  } finally {
    spy.mockRestore();
  }
  return logged;
}
