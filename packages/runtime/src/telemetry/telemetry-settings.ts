/**
 * Whether telemetry is on, and where it goes: the OpenTelemetry environment variables
 * (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/) and the server's own
 * `--otel-endpoint` and `--otel-propagate-to` (or `KERVANC_OTEL_PROPAGATE_TO`). Off unless an endpoint is named.
 * Only OTLP/HTTP with JSON bodies is sent (otlp-json.ts); a collector's OTLP/HTTP receiver takes it on the same
 * paths as protobuf. The collector is the operator's: it is not on the tools' egress list, and no tool can reach it.
 */

export interface TelemetrySettings {
  /** Where spans go (`<endpoint>/v1/traces`), or null when traces are off. */
  readonly tracesUrl: string | null;
  /** Where metrics go (`<endpoint>/v1/metrics`), or null when metrics are off. */
  readonly metricsUrl: string | null;
  /** OTEL_EXPORTER_OTLP_HEADERS, decoded: sent with every export (a backend's API key, typically). */
  readonly headers: readonly (readonly [string, string])[];
  readonly serviceName: string;
  /** The root sampler's ratio (1: every trace) and whether a caller's decision is kept (parent-based). */
  readonly sampler: { readonly ratio: number; readonly parentBased: boolean };
  /** Hosts (`host`, or `host:port`, lower case) that upstream requests carry `traceparent` to. */
  readonly propagateTo: ReadonlySet<string>;
  readonly scheduleDelayMs: number;
  readonly metricIntervalMs: number;
  readonly exportTimeoutMs: number;
}

export class TelemetryConfigError extends Error {
  override readonly name = "TelemetryConfigError";
}

type Env = Readonly<Record<string, string | undefined>>;

/** The settings, or null when telemetry is off. Throws TelemetryConfigError for a value it cannot use. */
export function telemetrySettings(
  env: Env,
  flags: { readonly endpoint?: string | undefined; readonly propagateTo?: readonly string[] },
  serverName: string,
): TelemetrySettings | null {
  if ((env["OTEL_SDK_DISABLED"] ?? "").trim().toLowerCase() === "true") return null;
  const base = flags.endpoint ?? nonEmpty(env["OTEL_EXPORTER_OTLP_ENDPOINT"]);
  const traces = signalUrl(env, "TRACES", base, "v1/traces");
  const metrics = signalUrl(env, "METRICS", base, "v1/metrics");
  if (traces === null && metrics === null) return null;
  const protocol = nonEmpty(env["OTEL_EXPORTER_OTLP_PROTOCOL"]);
  if (protocol === "grpc")
    throw new TelemetryConfigError(
      "OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported: this server sends OTLP over HTTP (JSON); use the collector's OTLP/HTTP port (4318).",
    );
  return {
    tracesUrl: traces,
    metricsUrl: metrics,
    headers: parseHeaders(env["OTEL_EXPORTER_OTLP_HEADERS"]),
    serviceName: nonEmpty(env["OTEL_SERVICE_NAME"]) ?? serverName,
    sampler: sampler(env),
    propagateTo: new Set(
      [...(flags.propagateTo ?? []), ...(env["KERVANC_OTEL_PROPAGATE_TO"] ?? "").split(",")]
        .flatMap((entry) => entry.split(","))
        .map((entry) => entry.trim().toLowerCase())
        .filter((entry) => entry !== ""),
    ),
    scheduleDelayMs: milliseconds(env, "OTEL_BSP_SCHEDULE_DELAY", 5000),
    metricIntervalMs: milliseconds(env, "OTEL_METRIC_EXPORT_INTERVAL", 60_000),
    exportTimeoutMs: milliseconds(env, "OTEL_EXPORTER_OTLP_TIMEOUT", 10_000),
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === "" ? undefined : trimmed;
}

/** A signal's URL: its own variable as written, else the base endpoint with the signal's path; null when off. */
function signalUrl(env: Env, signal: "TRACES" | "METRICS", base: string | undefined, path: string): string | null {
  if ((env[`OTEL_${signal}_EXPORTER`] ?? "").trim().toLowerCase() === "none") return null;
  const own = nonEmpty(env[`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`]);
  const text = own ?? (base === undefined ? undefined : `${base.replace(/\/+$/, "")}/${path}`);
  if (text === undefined) return null;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new TelemetryConfigError(`The OTLP endpoint ${JSON.stringify(text)} is not an absolute URL.`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new TelemetryConfigError(`The OTLP endpoint must be an http:// or https:// URL, not ${url.protocol}.`);
  if (url.username !== "" || url.password !== "")
    throw new TelemetryConfigError(
      "The OTLP endpoint must not hold a user name or password; put credentials in OTEL_EXPORTER_OTLP_HEADERS.",
    );
  return url.href;
}

/** `key1=value1,key2=value2`, each value percent-decoded (the W3C Baggage form the specification names). */
function parseHeaders(text: string | undefined): [string, string][] {
  const out: [string, string][] = [];
  for (const entry of (text ?? "").split(",")) {
    if (entry.trim() === "") continue;
    const eq = entry.indexOf("=");
    const name = eq > 0 ? entry.slice(0, eq).trim() : "";
    let value: string;
    try {
      value = decodeURIComponent(entry.slice(eq + 1).trim());
    } catch {
      value = "";
    }
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) || /[\r\n\u0000]/.test(value))
      throw new TelemetryConfigError(
        "OTEL_EXPORTER_OTLP_HEADERS is not a list of name=value pairs a request can carry.",
      );
    out.push([name.toLowerCase(), value]);
  }
  return out;
}

function sampler(env: Env): { ratio: number; parentBased: boolean } {
  const name = (nonEmpty(env["OTEL_TRACES_SAMPLER"]) ?? "parentbased_always_on").toLowerCase();
  const arg = Number(nonEmpty(env["OTEL_TRACES_SAMPLER_ARG"]) ?? "1");
  const ratio = Number.isFinite(arg) && arg >= 0 && arg <= 1 ? arg : 1;
  switch (name) {
    case "always_on":
      return { ratio: 1, parentBased: false };
    case "always_off":
      return { ratio: 0, parentBased: false };
    case "traceidratio":
      return { ratio, parentBased: false };
    case "parentbased_always_on":
      return { ratio: 1, parentBased: true };
    case "parentbased_always_off":
      return { ratio: 0, parentBased: true };
    case "parentbased_traceidratio":
      return { ratio, parentBased: true };
    default:
      throw new TelemetryConfigError(
        `OTEL_TRACES_SAMPLER=${name} is not one this server knows: always_on, always_off, traceidratio, or their parentbased_ forms.`,
      );
  }
}

function milliseconds(env: Env, name: string, fallback: number): number {
  const value = nonEmpty(env[name]);
  if (value === undefined) return fallback;
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms < 1 || ms > 2_147_483_647)
    throw new TelemetryConfigError(`${name} must be a whole number of milliseconds above 0.`);
  return ms;
}
