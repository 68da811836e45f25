/**
 * OpenTelemetry traces and metrics for a generated server (docs/runtime.md, "Telemetry"): a span per MCP request,
 * a child span per upstream attempt, and the two duration histograms, exported as OTLP/HTTP JSON to the collector
 * the operator names. Off unless configured (telemetry-settings.ts); then `NO_TELEMETRY` stands in, whose methods
 * do nothing, so the call path pays one property read.
 *
 * What is recorded follows the semantic conventions for MCP and for HTTP clients, and holds nothing secret or
 * personal: no argument values, no query strings, no bodies, no header values; every string attribute passes the
 * redaction vault. The exporter never blocks or slows a call: spans wait in a bounded queue (the excess dropped and
 * counted), a batch goes out at most every `scheduleDelayMs`, one request at a time, and a failure is logged at
 * most once a minute.
 */
import { type Attributes, type FinishedSpan, type Histogram, metricsBody, SPAN_KIND, tracesBody } from "./otlp-json.ts";
import type { TelemetrySettings } from "./telemetry-settings.ts";
import { formatTraceparent, randomId, type SpanContext } from "./trace-context.ts";

/** What the call path sees: the server's telemetry, or NO_TELEMETRY. */
export interface Telemetry {
  readonly enabled: boolean;
  /**
   * Starts the span of one MCP request (`tools/call`, `tools/list`): `target` is the tool's name, `parent` the
   * caller's trace context when it sent one.
   */
  request(method: string, target: string | null, parent: SpanContext | null, attributes?: Attributes): RequestSpan;
  /** Exports what is waiting (the fetch handler's end of request); metrics once an interval, or when asked. */
  flush(metrics?: boolean): Promise<void>;
  /**
   * Resolves once no request span is open and what they left is exported: the fetch handler hands it to
   * `waitUntil`, since a response (a stream) can leave before its call has ended.
   */
  settled(): Promise<void>;
  /** Stops the timers and exports what is waiting, waiting at most `ms`. */
  shutdown(ms: number): Promise<void>;
}

export interface RequestSpan {
  /** An upstream attempt (the first, or a retry: `resend` counts the ones before it). */
  attempt(request: UpstreamAttempt): AttemptSpan;
  /** A moment worth seeing on the timeline (`arguments validated`, `output shaped`). */
  event(name: string): void;
  /** Ends the span; `errorType` says how the request failed (`tool_error`, `invalid_arguments`, ...). */
  end(errorType?: string): void;
}

export interface UpstreamAttempt {
  readonly method: string;
  readonly scheme: string;
  readonly host: string;
  readonly port: number;
  /** The path as the spec writes it, references as `{name}`: never the filled path. */
  readonly template: string;
  readonly resend: number;
}

export interface AttemptSpan {
  /**
   * The `traceparent` the upstream request carries, when the operator allows propagation to its host
   * (`--otel-propagate-to`); null otherwise, so a third-party API does not learn the caller's trace ids.
   */
  readonly traceparent: string | null;
  /** Ends the attempt with the answer's status, or with the reason it has none (`timeout`, `connection`). */
  end(status: number | null, errorType?: string): void;
}

const NO_ATTEMPT: AttemptSpan = { traceparent: null, end() {} };
const NO_SPAN: RequestSpan = { attempt: () => NO_ATTEMPT, event() {}, end() {} };
export const NO_TELEMETRY: Telemetry = {
  enabled: false,
  request: () => NO_SPAN,
  flush: () => Promise.resolve(),
  settled: () => Promise.resolve(),
  shutdown: () => Promise.resolve(),
};
export { NO_ATTEMPT, NO_SPAN };

/** Spans waiting for export beyond this are dropped (and counted). */
export const MAX_QUEUED_SPANS = 2048;
/** A batch holds at most this many spans. */
const MAX_BATCH = 512;

/** Bucket bounds in seconds, as the semantic conventions advise for each histogram. */
const MCP_BOUNDS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];
const HTTP_BOUNDS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

export interface TelemetryOptions {
  /** `service.name` and the other resource attributes. */
  readonly resource: Attributes;
  /** Writes a log line (the caller redacts it). */
  readonly log: (line: string) => void;
  /** The redaction every string attribute passes. */
  readonly redact: (text: string) => string;
  /** Runs timers for periodic export; the fetch handler has none and flushes at each request's end. */
  readonly timers: boolean;
  readonly fetch?: typeof globalThis.fetch;
}

/** Milliseconds since the epoch, with the sub-millisecond part performance.now() gives. */
const nowMs = (): number => performance.timeOrigin + performance.now();
/** Nanoseconds since the epoch as decimal text: a double cannot hold them exactly. */
const toNs = (ms: number): string => (BigInt(Math.round(ms * 1000)) * 1000n).toString();

class HistogramRecorder {
  readonly #points = new Map<
    string,
    { attributes: Attributes; count: number; sum: number; min: number; max: number; buckets: number[] }
  >();
  readonly #startNs = toNs(nowMs());
  readonly name: string;
  readonly #unit: string;
  readonly #description: string;
  readonly #bounds: readonly number[];

  constructor(name: string, unit: string, description: string, bounds: readonly number[]) {
    this.name = name;
    this.#unit = unit;
    this.#description = description;
    this.#bounds = bounds;
  }

  record(value: number, attributes: Attributes): void {
    const key = JSON.stringify(attributes);
    let point = this.#points.get(key);
    if (point === undefined) {
      point = {
        attributes,
        count: 0,
        sum: 0,
        min: Infinity,
        max: -Infinity,
        buckets: new Array<number>(this.#bounds.length + 1).fill(0),
      };
      this.#points.set(key, point);
    }
    point.count++;
    point.sum += value;
    point.min = Math.min(point.min, value);
    point.max = Math.max(point.max, value);
    let bucket = this.#bounds.findIndex((bound) => value <= bound);
    if (bucket < 0) bucket = this.#bounds.length;
    point.buckets[bucket]!++;
  }

  snapshot(): Histogram | null {
    if (this.#points.size === 0) return null;
    return {
      name: this.name,
      unit: this.#unit,
      description: this.#description,
      bounds: this.#bounds,
      points: [...this.#points.values()].map((p) => ({
        attributes: p.attributes,
        startNs: this.#startNs,
        count: p.count,
        sum: p.sum,
        min: p.min,
        max: p.max,
        bucketCounts: [...p.buckets],
      })),
    };
  }
}

export class OtlpTelemetry implements Telemetry {
  readonly enabled = true;
  readonly #settings: TelemetrySettings;
  readonly #options: TelemetryOptions;
  readonly #fetch: typeof globalThis.fetch;
  #queue: FinishedSpan[] = [];
  #dropped = 0;
  #inFlight: Promise<void> | null = null;
  #lastFailureLog = -Infinity;
  /** Request spans started and not yet ended, and who waits for there to be none (settled). */
  #open = 0;
  #waiters: (() => void)[] = [];
  /** When metrics last went out (the fetch handler's flush exports them once an interval). */
  #metricsAt = Date.now();
  readonly #timers: ReturnType<typeof setInterval>[] = [];
  readonly #operation = new HistogramRecorder(
    "mcp.server.operation.duration",
    "s",
    "Duration of an MCP request as the server handled it.",
    MCP_BOUNDS,
  );
  readonly #client = new HistogramRecorder(
    "http.client.request.duration",
    "s",
    "Duration of an upstream HTTP request.",
    HTTP_BOUNDS,
  );

  constructor(settings: TelemetrySettings, options: TelemetryOptions) {
    this.#settings = settings;
    this.#options = options;
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    if (options.timers) {
      const spans = setInterval(() => void this.#exportSpans(), settings.scheduleDelayMs);
      const metrics = setInterval(() => void this.#exportMetrics(), settings.metricIntervalMs);
      // The timers never keep a process alive that has nothing else to do.
      for (const timer of [spans, metrics]) {
        (timer as { unref?: () => void }).unref?.();
        this.#timers.push(timer);
      }
    }
  }

  request(method: string, target: string | null, parent: SpanContext | null, attributes: Attributes = {}): RequestSpan {
    const startMs = nowMs();
    const traceId = parent?.traceId ?? randomId(16);
    const context: SpanContext = {
      traceId,
      spanId: randomId(8),
      sampled: this.#sampled(parent, traceId),
    };
    const events: { name: string; timeNs: string }[] = [];
    const base: Record<string, string | number | boolean> = {
      "mcp.method.name": method,
      ...(target !== null
        ? { "gen_ai.tool.name": this.#options.redact(target), "gen_ai.operation.name": "execute_tool" }
        : {}),
      ...this.#clean(attributes),
    };
    let ended = false;
    this.#open++;
    return {
      attempt: (request) => this.#attempt(context, request),
      event: (name) => {
        if (context.sampled && events.length < 32) events.push({ name, timeNs: toNs(nowMs()) });
      },
      end: (errorType) => {
        if (ended) return;
        ended = true;
        if (--this.#open === 0) for (const wake of this.#waiters.splice(0)) wake();
        const endMs = nowMs();
        const outcome: Record<string, string> = errorType !== undefined ? { "error.type": errorType } : {};
        this.#operation.record((endMs - startMs) / 1000, {
          "mcp.method.name": method,
          ...(target !== null ? { "gen_ai.tool.name": base["gen_ai.tool.name"]! } : {}),
          ...outcome,
        });
        if (!context.sampled) return;
        this.#enqueue({
          traceId,
          spanId: context.spanId,
          parentSpanId: parent?.spanId ?? null,
          name: target !== null ? `${method} ${base["gen_ai.tool.name"]}` : method,
          kind: SPAN_KIND.server,
          startNs: toNs(startMs),
          endNs: toNs(endMs),
          attributes: { ...base, ...outcome },
          events,
          error: errorType !== undefined,
        });
      },
    };
  }

  #attempt(parent: SpanContext, request: UpstreamAttempt): AttemptSpan {
    const startMs = nowMs();
    const context: SpanContext = { traceId: parent.traceId, spanId: randomId(8), sampled: parent.sampled };
    const propagate =
      this.#settings.propagateTo.has(request.host.toLowerCase()) ||
      this.#settings.propagateTo.has(`${request.host.toLowerCase()}:${request.port}`);
    const attributes = this.#clean({
      "http.request.method": request.method,
      "server.address": request.host,
      "server.port": request.port,
      "url.scheme": request.scheme,
      "url.template": request.template,
      ...(request.resend > 0 ? { "http.request.resend_count": request.resend } : {}),
    });
    let ended = false;
    return {
      traceparent: propagate ? formatTraceparent(context) : null,
      end: (status, errorType) => {
        if (ended) return;
        ended = true;
        const endMs = nowMs();
        const error = errorType ?? (status !== null && status >= 400 ? String(status) : undefined);
        const outcome = {
          ...(status !== null ? { "http.response.status_code": status } : {}),
          ...(error !== undefined ? { "error.type": error } : {}),
        };
        this.#client.record((endMs - startMs) / 1000, {
          "http.request.method": request.method,
          "server.address": attributes["server.address"]!,
          "server.port": request.port,
          ...outcome,
        });
        if (!context.sampled) return;
        this.#enqueue({
          traceId: context.traceId,
          spanId: context.spanId,
          parentSpanId: parent.spanId,
          name: `${request.method} ${attributes["url.template"]}`,
          kind: SPAN_KIND.client,
          startNs: toNs(startMs),
          endNs: toNs(endMs),
          attributes: { ...attributes, ...outcome },
          events: [],
          error: error !== undefined,
        });
      },
    };
  }

  /** Parent-based by default: a caller's sampling decision is kept; a new trace is sampled by the root sampler. */
  #sampled(parent: SpanContext | null, traceId: string): boolean {
    const sampler = this.#settings.sampler;
    if (parent !== null && sampler.parentBased) return parent.sampled;
    if (sampler.ratio >= 1) return true;
    if (sampler.ratio <= 0) return false;
    // The trace id's last 7 bytes as a fraction (the W3C random part), compared with the ratio.
    return Number.parseInt(traceId.slice(18), 16) / 2 ** 56 < sampler.ratio;
  }

  #clean(attributes: Attributes): Record<string, string | number | boolean> {
    const out: Record<string, string | number | boolean> = {};
    for (const [key, value] of Object.entries(attributes))
      out[key] = typeof value === "string" ? this.#options.redact(value) : value;
    return out;
  }

  #enqueue(span: FinishedSpan): void {
    if (this.#settings.tracesUrl === null) return;
    if (this.#queue.length >= MAX_QUEUED_SPANS) {
      this.#dropped++;
      return;
    }
    this.#queue.push(span);
    if (this.#queue.length >= MAX_BATCH && this.#options.timers) void this.#exportSpans();
  }

  /** One span batch out, if none is in flight. */
  #exportSpans(): Promise<void> {
    const url = this.#settings.tracesUrl;
    if (url === null || this.#queue.length === 0 || this.#inFlight !== null) return this.#inFlight ?? Promise.resolve();
    const batch = this.#queue.splice(0, MAX_BATCH);
    const sent = this.#post(url, tracesBody(this.#options.resource, batch), batch.length);
    this.#inFlight = sent.finally(() => {
      this.#inFlight = null;
    });
    return this.#inFlight;
  }

  #exportMetrics(): Promise<void> {
    const url = this.#settings.metricsUrl;
    if (url === null) return Promise.resolve();
    const histograms = [this.#operation.snapshot(), this.#client.snapshot()].filter((h): h is Histogram => h !== null);
    if (histograms.length === 0) return Promise.resolve();
    return this.#post(url, metricsBody(this.#options.resource, histograms, toNs(nowMs())), 0);
  }

  async #post(url: string, body: string, spans: number): Promise<void> {
    try {
      const response = await this.#fetch(url, {
        method: "POST",
        headers: [["content-type", "application/json"], ...this.#settings.headers.map(([n, v]) => [n, v])],
        body,
        signal: AbortSignal.timeout(this.#settings.exportTimeoutMs),
      });
      // The collector's answer is not read beyond its status (a partial-success body needs no action here).
      await response.body?.cancel();
      if (!response.ok) this.#failed(url, `HTTP ${response.status}`, spans);
    } catch (error) {
      const name = error instanceof Error ? error.name : "error";
      this.#failed(url, name === "TimeoutError" ? "timed out" : "not reachable", spans);
    }
  }

  #failed(url: string, why: string, spans: number): void {
    this.#dropped += spans;
    const now = Date.now();
    if (now - this.#lastFailureLog < 60_000) return;
    this.#lastFailureLog = now;
    this.#options.log(
      `Warning: telemetry export to ${new URL(url).origin} failed (${why}); ${this.#dropped} span(s) dropped so far. Calls are not affected.`,
    );
  }

  /**
   * Exports the spans waiting, and the metrics when their interval has passed (or `metrics` says so): the fetch
   * handler calls it at each request's end, where a metrics export per request would be one too many.
   */
  async flush(metrics = false): Promise<void> {
    while (this.#queue.length > 0 || this.#inFlight !== null) await this.#exportSpans();
    const now = Date.now();
    if (metrics || now - this.#metricsAt >= this.#settings.metricIntervalMs) {
      this.#metricsAt = now;
      await this.#exportMetrics();
    }
  }

  async settled(): Promise<void> {
    while (this.#open > 0) await new Promise<void>((resolve) => this.#waiters.push(resolve));
    await this.flush();
  }

  async shutdown(ms: number): Promise<void> {
    for (const timer of this.#timers) clearInterval(timer);
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      this.flush(true),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, ms);
      }),
    ]);
    clearTimeout(timer);
  }
}
