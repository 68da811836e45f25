/**
 * A tool's effective settings: its own value, then the spec's `defaults`, then the format's defaults
 * (HTTP_DEFAULTS). Resolved once, by the analyze stage; the analyze checks (plain http) and the plan read the
 * result, so the order of precedence is written in one place.
 */
import { HTTP_DEFAULTS, type SpecFile, type ToolSpec } from "./spec-format.ts";

export interface ToolSettings {
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
  readonly maxOutputChars: number;
  readonly allowInsecureHttp: boolean;
  readonly followRedirects: number;
  readonly rateLimit: { readonly perMinute: number; readonly concurrency: number };
}

export function toolSettings(tool: ToolSpec, spec: SpecFile): ToolSettings {
  const http = tool.http;
  const defaults = spec.defaults;
  return {
    timeoutMs: http.timeoutMs ?? defaults?.http?.timeoutMs ?? HTTP_DEFAULTS.timeoutMs,
    maxResponseBytes: http.maxResponseBytes ?? defaults?.http?.maxResponseBytes ?? HTTP_DEFAULTS.maxResponseBytes,
    maxOutputChars:
      ("maxOutputChars" in tool.output ? tool.output.maxOutputChars : undefined) ??
      defaults?.http?.maxOutputChars ??
      HTTP_DEFAULTS.maxOutputChars,
    allowInsecureHttp: http.allowInsecureHttp ?? defaults?.http?.allowInsecureHttp ?? HTTP_DEFAULTS.allowInsecureHttp,
    followRedirects: http.followRedirects ?? defaults?.http?.followRedirects ?? HTTP_DEFAULTS.followRedirects,
    rateLimit: {
      perMinute: tool.rateLimit?.perMinute ?? defaults?.rateLimit?.perMinute ?? HTTP_DEFAULTS.rateLimit.perMinute,
      concurrency:
        tool.rateLimit?.concurrency ?? defaults?.rateLimit?.concurrency ?? HTTP_DEFAULTS.rateLimit.concurrency,
    },
  };
}
