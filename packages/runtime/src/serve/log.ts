/**
 * The server's log on stderr: free text (the default) or one JSON object per line (`--log-format json`), with
 * a level threshold (`--log-level`).
 *
 * Every line passes through the vault: a text line as text, a JSON line field by field before it is
 * serialized (redacting the serialized text could cut through an escape and break the JSON). Records carry no
 * argument values and no upstream bodies, only what an operator needs: which tool, how it ended, how long it
 * took, the upstream's status and the response's size, and a request id to find the line again.
 */
import { cutIndex } from "../call/cut.ts";
import type { JsonValue } from "../plan.ts";
import type { SecretVault } from "../secrets/secrets.ts";

export type LogLevel = "debug" | "info" | "warn" | "error";
export type LogFormat = "text" | "json";
export const LOG_LEVELS: readonly LogLevel[] = ["debug", "info", "warn", "error"];

/** One tool call, as the log records it. */
export interface CallRecord {
  readonly tool: string;
  /** ok, error (the tool answered with an error), invalid (arguments refused), internal. */
  readonly outcome: "ok" | "error" | "invalid" | "internal";
  readonly durationMs: number;
  readonly upstreamStatus: number | null;
  readonly responseBytes: number | null;
  readonly requestId: string;
}

export interface Logger {
  /** A free-text line; its level comes from its prefix (`Error:`, `Warning:`), info otherwise. */
  line(text: string): void;
  /** The readiness line ("Serving ... on URL"): written at every level, since supervisors wait for it. */
  ready(text: string): void;
  call(record: CallRecord): void;
  /** Whether `call` writes anything at this format and level: when not, no record need be made per call. */
  readonly logsCalls: boolean;
  refused(status: number, reason: string): void;
}

function levelOf(text: string): LogLevel {
  if (/^Error\b/.test(text)) return "error";
  if (/^(Warning\b|!!)/.test(text)) return "warn";
  return "info";
}

export function createLogger(
  vault: SecretVault,
  write: (line: string) => void,
  options: { format: LogFormat; level: LogLevel },
): Logger {
  const threshold = LOG_LEVELS.indexOf(options.level);
  const enabled = (level: LogLevel): boolean => LOG_LEVELS.indexOf(level) >= threshold;
  const json = (level: LogLevel, fields: Record<string, JsonValue>): void => {
    if (!enabled(level)) return;
    const record = vault.redactValue({ time: new Date().toISOString(), level, ...fields });
    write(JSON.stringify(record));
  };
  if (options.format === "json") {
    return {
      line: (text) => json(levelOf(text), { message: text.replace(/^(Error|Warning): /, "") }),
      ready: (text) =>
        write(JSON.stringify(vault.redactValue({ time: new Date().toISOString(), level: "info", message: text }))),
      call: (r) =>
        json(r.outcome === "ok" ? "info" : r.outcome === "internal" ? "error" : "warn", {
          event: "call",
          tool: r.tool,
          outcome: r.outcome,
          durationMs: r.durationMs,
          upstreamStatus: r.upstreamStatus,
          responseBytes: r.responseBytes,
          requestId: r.requestId,
        }),
      // A call is logged at info, warn or error, depending on how it ended.
      logsCalls: enabled("error"),
      refused: enabled("warn") ? refusalRecords((fields) => json("warn", { event: "refused", ...fields })) : () => {},
    };
  }
  const text = (line: string): void => {
    if (enabled(levelOf(line))) write(vault.redactText(line));
  };
  return {
    line: text,
    ready: (line) => write(vault.redactText(line)),
    call: (r) => {
      if (!enabled("debug")) return;
      write(
        vault.redactText(
          `Call ${r.tool}: ${r.outcome} in ${r.durationMs} ms` +
            `${r.upstreamStatus !== null ? `, upstream ${r.upstreamStatus}` : ""}` +
            `${r.responseBytes !== null ? `, ${r.responseBytes} bytes` : ""} (request ${r.requestId})`,
        ),
      );
    },
    logsCalls: enabled("debug"),
    // Written at debug only (below it nothing is counted either), and bounded as the JSON records are.
    refused: enabled("debug")
      ? refusalRecords(({ status, reason, omitted }) =>
          write(
            vault.redactText(
              omitted === undefined
                ? `Refused an HTTP request with ${String(status)}: ${String(reason)}`
                : `Refused ${String(omitted)} more HTTP requests with ${String(status)}: ${String(reason)} (not logged one by one)`,
            ),
          ),
        )
      : () => {},
  };
}

/** Refusal records of one kind (status and reason) written in each window; the rest are counted. */
export const REFUSAL_RECORDS_PER_WINDOW = 10;
export const REFUSAL_WINDOW_MS = 10_000;
/** Kinds of refusal counted at once. The handler's reasons are a handful of fixed texts; this only bounds them. */
const MAX_REFUSAL_KINDS = 64;

/**
 * The log's records of refused requests, which a client can cause by the thousand (a wrong Host, a bad token): per
 * kind (status and reason), the first REFUSAL_RECORDS_PER_WINDOW of each 10 s window are written one by one, as
 * before, and the rest only counted. When a window that left some out ends, one record says how many:
 * `{status, reason, omitted: N}`. An operator still sees every kind of refusal and how many there were; a flood
 * writes at most 11 records per kind every 10 s instead of one per request.
 */
function refusalRecords(write: (fields: Record<string, JsonValue>) => void): (status: number, reason: string) => void {
  const kinds = new Map<string, { written: number; omitted: number }>();
  const report = (key: string, status: number, reason: string): void => {
    const kind = kinds.get(key);
    kinds.delete(key);
    if (kind !== undefined && kind.omitted > 0) write({ status, reason, omitted: kind.omitted });
  };
  return (status, reason) => {
    const key = `${status} ${reason}`;
    let kind = kinds.get(key);
    if (kind === undefined) {
      if (kinds.size >= MAX_REFUSAL_KINDS) {
        write({ status, reason });
        return;
      }
      kind = { written: 0, omitted: 0 };
      kinds.set(key, kind);
      // Ends the window: its count is written even if no refusal of this kind follows. Never keeps the process.
      const timer = setTimeout(() => report(key, status, reason), REFUSAL_WINDOW_MS);
      (timer as { unref?: () => void }).unref?.();
    }
    if (kind.written < REFUSAL_RECORDS_PER_WINDOW) {
      kind.written++;
      write({ status, reason });
    } else {
      kind.omitted++;
    }
  };
}

/**
 * A log for lines that an attacker can cause by the thousand (refused requests, the SDK's reports of malformed
 * ones): the first line goes out, then at most one every 10 s, counting the ones left out as `what`.
 */
export function throttledLog(log: (line: string) => void, what = "refusals"): (line: string) => void {
  let last = -Infinity;
  let skipped = 0;
  return (line) => {
    const now = Date.now();
    if (now - last < 10_000) {
      skipped++;
      return;
    }
    log(skipped > 0 ? `${line} (and ${skipped} more ${what} since the last report)` : line);
    last = now;
    skipped = 0;
  };
}

/** The most characters of a report's text that are logged. */
export const MAX_REPORT_CHARS = 300;

/**
 * A report's text as one short line. The SDK quotes what a client sent in some of its reports (a method name,
 * a protocol version, from a body of up to 4 MiB), so line breaks and other control characters are escaped,
 * and the text is cut: a client can neither forge log lines nor make one request write megabytes to the log.
 */
export function oneLine(text: string): string {
  const flat = text.replace(
    /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  if (flat.length <= MAX_REPORT_CHARS) return flat;
  const cut = cutIndex(flat, MAX_REPORT_CHARS);
  return `${flat.slice(0, cut)}... (${flat.length - cut} more characters)`;
}
