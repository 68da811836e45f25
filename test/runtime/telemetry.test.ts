/**
 * Telemetry in process (packages/runtime/src/telemetry/): W3C traceparent reading, the OTEL_* settings, and the
 * exporter against a fetch that is a function: sampling, the bounded queue, redaction of attributes. The end-to-end
 * suite (test/e2e/telemetry.e2e.test.ts) runs it in a server process against an OTLP receiver.
 */
import { describe, expect, it } from "vitest";
import { MAX_QUEUED_SPANS, OtlpTelemetry } from "../../packages/runtime/src/telemetry/telemetry.ts";
import {
  TelemetryConfigError,
  type TelemetrySettings,
  telemetrySettings,
} from "../../packages/runtime/src/telemetry/telemetry-settings.ts";
import { formatTraceparent, parseTraceparent } from "../../packages/runtime/src/telemetry/trace-context.ts";

describe("traceparent", () => {
  it("reads version 00 and refuses what the W3C specification says to ignore", () => {
    const value = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    expect(parseTraceparent(value)).toEqual({
      traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
      spanId: "00f067aa0ba902b7",
      sampled: true,
    });
    expect(formatTraceparent(parseTraceparent(value)!)).toBe(value);
    for (const bad of [
      "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
      "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
      "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
      "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
      42,
    ])
      expect(parseTraceparent(bad)).toBeNull();
  });
});

describe("telemetry settings", () => {
  it("are off unless an endpoint is named, or when disabled", () => {
    expect(telemetrySettings({}, {}, "s")).toBeNull();
    expect(
      telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_SDK_DISABLED: "true" }, {}, "s"),
    ).toBeNull();
  });

  it("derive each signal's URL, and take a signal's own endpoint as written", () => {
    const settings = telemetrySettings(
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/",
        OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: "https://metrics.example.com/custom",
        OTEL_EXPORTER_OTLP_HEADERS: "x-api-key=abc%3D%3D,Other=1",
        OTEL_SERVICE_NAME: "svc",
        KERVANC_OTEL_PROPAGATE_TO: "API.example.com, internal:8443",
      },
      { propagateTo: ["extra.example"] },
      "server",
    )!;
    expect(settings.tracesUrl).toBe("http://collector:4318/v1/traces");
    expect(settings.metricsUrl).toBe("https://metrics.example.com/custom");
    expect(settings.headers).toEqual([
      ["x-api-key", "abc=="],
      ["other", "1"],
    ]);
    expect(settings.serviceName).toBe("svc");
    expect([...settings.propagateTo]).toEqual(["extra.example", "api.example.com", "internal:8443"]);
    expect(telemetrySettings({ OTEL_TRACES_EXPORTER: "none" }, { endpoint: "http://c" }, "s")!.tracesUrl).toBeNull();
  });

  it("refuse what they cannot use, saying why", () => {
    const refused = (env: Record<string, string>) => () => telemetrySettings(env, { endpoint: "http://c:4318" }, "s");
    expect(refused({ OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })).toThrow(TelemetryConfigError);
    expect(refused({ OTEL_TRACES_SAMPLER: "jaeger_remote" })).toThrow(/not one this server knows/);
    expect(refused({ OTEL_EXPORTER_OTLP_HEADERS: "bad header=1" })).toThrow(/name=value pairs/);
    expect(refused({ OTEL_BSP_SCHEDULE_DELAY: "soon" })).toThrow(/whole number of milliseconds/);
    expect(() => telemetrySettings({}, { endpoint: "http://user:pw@c:4318" }, "s")).toThrow(/user name or password/);
    expect(() => telemetrySettings({}, { endpoint: "ftp://c" }, "s")).toThrow(/http:\/\/ or https:\/\//);
  });
});

function settings(overrides: Partial<TelemetrySettings> = {}): TelemetrySettings {
  return {
    tracesUrl: "http://collector/v1/traces",
    metricsUrl: "http://collector/v1/metrics",
    headers: [],
    serviceName: "s",
    sampler: { ratio: 1, parentBased: true },
    propagateTo: new Set(),
    scheduleDelayMs: 1000,
    metricIntervalMs: 60_000,
    exportTimeoutMs: 1000,
    ...overrides,
  };
}

function telemetry(overrides: Partial<TelemetrySettings> = {}, redact = (text: string) => text) {
  const bodies: { url: string; body: string }[] = [];
  const logged: string[] = [];
  const fetch = (async (url: string, init: { body: string }) => {
    bodies.push({ url, body: init.body });
    return new Response("{}");
  }) as unknown as typeof globalThis.fetch;
  const t = new OtlpTelemetry(settings(overrides), {
    resource: { "service.name": "s" },
    log: (line) => logged.push(line),
    redact,
    timers: false,
    fetch,
  });
  return { t, bodies, logged };
}

describe("the exporter", () => {
  it("records no span a sampler refuses, and keeps the metrics", async () => {
    const { t, bodies } = telemetry({ sampler: { ratio: 0, parentBased: false } });
    t.request("tools/call", "get", null).end();
    await t.flush(true);
    expect(bodies.map((b) => b.url)).toEqual(["http://collector/v1/metrics"]);
    expect(bodies[0]!.body).toContain('"count":"1"');
  });

  it(`keeps at most ${MAX_QUEUED_SPANS} spans waiting, and exports them in batches`, async () => {
    const { t, bodies } = telemetry({ metricsUrl: null });
    for (let i = 0; i < MAX_QUEUED_SPANS + 10; i++) t.request("tools/list", null, null).end();
    await t.flush();
    const exported = bodies
      .map((b) => JSON.parse(b.body) as { resourceSpans: { scopeSpans: { spans: unknown[] }[] }[] })
      .map((b) => b.resourceSpans[0]!.scopeSpans[0]!.spans.length);
    expect(exported.reduce((a, b) => a + b, 0)).toBe(MAX_QUEUED_SPANS);
    expect(Math.max(...exported)).toBeLessThanOrEqual(512);
  });

  it("passes every string attribute through the redaction, and propagates only to the hosts named", async () => {
    const { t, bodies } = telemetry({ propagateTo: new Set(["api.example.com"]) }, (text) =>
      text.replaceAll("canary", "[redacted]"),
    );
    const span = t.request("tools/call", "canary-tool", null);
    const named = span.attempt({
      method: "GET",
      scheme: "https",
      host: "api.example.com",
      port: 443,
      template: "/canary",
      resend: 0,
    });
    const other = span.attempt({
      method: "GET",
      scheme: "https",
      host: "other.example.com",
      port: 443,
      template: "/x",
      resend: 0,
    });
    expect(named.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(other.traceparent).toBeNull();
    named.end(200);
    other.end(null, "timeout");
    span.end();
    await t.flush();
    const text = bodies.map((b) => b.body).join("");
    expect(text).not.toContain("canary");
    expect(text).toContain("[redacted]");
  });
});
