/**
 * OTLP/HTTP with JSON encoding (https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding): the request
 * bodies of `POST /v1/traces` and `POST /v1/metrics`, written by hand. Trace and span ids are hex strings, 64-bit
 * integers (times, counts) decimal strings, enums numbers, field names lowerCamelCase, as the encoding specifies.
 * Why not the OpenTelemetry SDK's exporters: docs/design-decisions.md ("Telemetry").
 */

export type AttributeValue = string | number | boolean;
export type Attributes = Readonly<Record<string, AttributeValue>>;

/** OTLP SpanKind. */
export const SPAN_KIND = { server: 2, client: 3 } as const;
/** OTLP Status code. */
export const STATUS = { unset: 0, ok: 1, error: 2 } as const;

export interface FinishedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | null;
  readonly name: string;
  readonly kind: (typeof SPAN_KIND)[keyof typeof SPAN_KIND];
  /** Nanoseconds since the epoch, as decimal text (beyond a double's exact range). */
  readonly startNs: string;
  readonly endNs: string;
  readonly attributes: Attributes;
  readonly events: readonly { readonly name: string; readonly timeNs: string }[];
  readonly error: boolean;
}

export interface HistogramPoint {
  readonly attributes: Attributes;
  readonly startNs: string;
  readonly count: number;
  readonly sum: number;
  readonly min: number;
  readonly max: number;
  readonly bucketCounts: readonly number[];
}

export interface Histogram {
  readonly name: string;
  readonly unit: string;
  readonly description: string;
  readonly bounds: readonly number[];
  readonly points: readonly HistogramPoint[];
}

const SCOPE = { name: "kervanc", version: "0.1.0" };

function keyValues(attributes: Attributes): unknown[] {
  return Object.entries(attributes).map(([key, value]) => ({
    key,
    value:
      typeof value === "string"
        ? { stringValue: value }
        : typeof value === "boolean"
          ? { boolValue: value }
          : Number.isInteger(value)
            ? { intValue: String(value) }
            : { doubleValue: value },
  }));
}

export function tracesBody(resource: Attributes, spans: readonly FinishedSpan[]): string {
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: keyValues(resource) },
        scopeSpans: [
          {
            scope: SCOPE,
            spans: spans.map((span) => ({
              traceId: span.traceId,
              spanId: span.spanId,
              ...(span.parentSpanId !== null ? { parentSpanId: span.parentSpanId } : {}),
              name: span.name,
              kind: span.kind,
              startTimeUnixNano: span.startNs,
              endTimeUnixNano: span.endNs,
              attributes: keyValues(span.attributes),
              events: span.events.map((event) => ({ name: event.name, timeUnixNano: event.timeNs })),
              status: { code: span.error ? STATUS.error : STATUS.unset },
            })),
          },
        ],
      },
    ],
  });
}

/** Cumulative histograms (AggregationTemporality 2), each point since the server started. */
export function metricsBody(resource: Attributes, histograms: readonly Histogram[], nowNs: string): string {
  return JSON.stringify({
    resourceMetrics: [
      {
        resource: { attributes: keyValues(resource) },
        scopeMetrics: [
          {
            scope: SCOPE,
            metrics: histograms.map((h) => ({
              name: h.name,
              unit: h.unit,
              description: h.description,
              histogram: {
                aggregationTemporality: 2,
                dataPoints: h.points.map((p) => ({
                  attributes: keyValues(p.attributes),
                  startTimeUnixNano: p.startNs,
                  timeUnixNano: nowNs,
                  count: String(p.count),
                  sum: p.sum,
                  min: p.min,
                  max: p.max,
                  bucketCounts: p.bucketCounts.map(String),
                  explicitBounds: h.bounds,
                })),
              },
            })),
          },
        ],
      },
    ],
  });
}
