/**
 * Request bodies on the fetch platforms (worker.mjs on Deno, Bun and workerd), under one budget per process or
 * isolate, as server.mjs has it (body-budget.ts).
 *
 * The SDK caps each body at 4 MiB but nothing bounded how many were held: 100 clients each sending most of a
 * 4 MiB body and then nothing took Deno to 1 GB, Bun to 900 MB and workerd to 520 MB (the SDK keeps the text it
 * read and a clone's copy of the bytes), and nothing ended a body that never finished. Now the handler's body is
 * read here, only once the request has passed the Host, Origin and authentication checks (http-handler.ts takes
 * it through RequestInfo.body): admitted against the budget by its declared length before a byte is read
 * (503 when the budget is spent, 413 past 4 MiB), charged as it arrives, cut off after the request timeout
 * (408), and given back when the handler has answered.
 */
import { type BodyBudget, type BodyTicket, isRefusal } from "./body-budget.ts";
import { joinChunks } from "../net/upstream.ts";

/** A body refused here; the entry answers it with its status. */
export class BodyRefused extends Error {
  readonly status: 400 | 408 | 413 | 503;

  constructor(status: 400 | 408 | 413 | 503, message: string) {
    super(message);
    this.status = status;
  }

  response(): Response {
    return new Response(`${this.message}\n`, {
      status: this.status,
      headers: { "content-type": "text/plain", ...(this.status === 503 ? { "retry-after": "5" } : {}) },
    });
  }
}

/** One request's body: read on demand under the budget, and its bytes given back by `release`. */
export interface WebBody {
  /** Reads the whole body (at most once); throws BodyRefused. */
  read(): Promise<Uint8Array>;
  /** Gives the body's slot and bytes back; idempotent. */
  release(): void;
}

export function webBody(request: Request, budget: BodyBudget, timeoutMs: number): WebBody {
  let ticket: BodyTicket | null = null;
  return {
    async read(): Promise<Uint8Array> {
      const stream = request.body;
      if (stream === null) return new Uint8Array(0);
      const declared = request.headers.get("content-length");
      const admitted = budget.admit(declared !== null && /^\d+$/.test(declared) ? Number(declared) : null);
      if (isRefusal(admitted)) {
        void stream.cancel().catch(() => {});
        throw new BodyRefused(admitted.status, admitted.message);
      }
      ticket = admitted;
      const reader = stream.getReader();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        void reader.cancel().catch(() => {});
      }, timeoutMs);
      const chunks: Uint8Array[] = [];
      let total = 0;
      try {
        for (;;) {
          let step: Awaited<ReturnType<typeof reader.read>>;
          try {
            step = await reader.read();
          } catch {
            // The client went away mid-body (or the timer cancelled the read).
            if (timedOut) throw new BodyRefused(408, `Request body not received within ${timeoutMs} ms.`);
            throw new BodyRefused(400, "Request body could not be read.");
          }
          if (timedOut) throw new BodyRefused(408, `Request body not received within ${timeoutMs} ms.`);
          if (step.done) break;
          const refusal = admitted.take(step.value.byteLength);
          if (refusal !== null) {
            void reader.cancel().catch(() => {});
            throw new BodyRefused(refusal.status, refusal.message);
          }
          chunks.push(step.value);
          total += step.value.byteLength;
        }
      } finally {
        clearTimeout(timer);
      }
      return joinChunks(chunks, total);
    },
    release(): void {
      ticket?.release();
    },
  };
}
