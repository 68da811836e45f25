/** Summaries for noisy samples: the median as the figure, p90 and min to show the spread. */

export interface Summary {
  readonly n: number;
  readonly median: number;
  readonly p90: number;
  readonly min: number;
  readonly max: number;
}

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export function summarize(values: readonly number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  const median = n === 0 ? Number.NaN : n % 2 === 1 ? sorted[(n - 1) / 2]! : (sorted[n / 2 - 1]! + sorted[n / 2]!) / 2;
  return { n, median, p90: percentile(sorted, 90), min: sorted[0] ?? Number.NaN, max: sorted[n - 1] ?? Number.NaN };
}

/** Percentile of an already sorted typed array (load-generator latencies). */
export function sortedPercentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export function formatNumber(value: number, digits = 1): string {
  if (!Number.isFinite(value)) return "n/a";
  if (Math.abs(value) >= 1000) return Math.round(value).toLocaleString("en-US");
  return value.toFixed(digits);
}

export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return "n/a";
  if (bytes >= 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(2)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${Math.round(bytes)} B`;
}

/** The spread of paired ratios: their median and the middle half (p25 to p75). */
export interface PairedRatio {
  readonly median: number;
  readonly p25: number;
  readonly p75: number;
}

/**
 * The ratios `values[i] / bases[i]` of interleaved rounds, summarized: noise that hits both sides of one round (a
 * busy neighbour, a slow core) cancels out of each ratio, so on a shared machine this is steadier than the ratio
 * of the two medians.
 */
export function pairedRatio(values: readonly number[], bases: readonly number[]): PairedRatio {
  const n = Math.min(values.length, bases.length);
  const ratios: number[] = [];
  for (let i = 0; i < n; i++) if (bases[i]! > 0) ratios.push(values[i]! / bases[i]!);
  const sorted = ratios.sort((a, b) => a - b);
  return { median: summarize(sorted).median, p25: percentile(sorted, 25), p75: percentile(sorted, 75) };
}

export function formatPaired(p: PairedRatio): string {
  return Number.isFinite(p.median) ? `${p.median.toFixed(2)}x (${p.p25.toFixed(2)}-${p.p75.toFixed(2)})` : "n/a";
}
