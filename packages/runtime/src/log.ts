/**
 * The server's log on stderr: free text (the default) or one JSON object per line (`--log-format json`), with
 * a level threshold (`--log-level`).
 *
 * Every line passes through the vault: a text line as text, a JSON line field by field before it is
 * serialized (redacting the serialized text could cut through an escape and break the JSON). Records carry no
 * argument values and no upstream bodies, only what an operator needs: which tool, how it ended, how long it
 * took, the upstream's status and the response's size, and a request id to find the line again.
 */
import { cutIndex } from "./cut.ts";
import type { JsonValue } from "./plan.ts";
import type { SecretVault } from "./secrets.ts";

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
      refused: (status, reason) => json("warn", { event: "refused", status, reason }),
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
    refused: (status, reason) => {
      if (enabled("debug")) write(vault.redactText(`Refused an HTTP request with ${status}: ${reason}`));
    },
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
