// Owns timing a sequence of queries: untimed warm-ups, then sequential timed runs summarised as percentiles.

/** Untimed warm-up queries before the timed ones (peer-results' methodology). */
export const WARMUP_QUERIES = 5;
/** Timed sequential queries (peer-results' methodology). */
export const TIMED_QUERIES = 200;

/** Latency summary of the timed queries, in milliseconds. */
export interface LatencySummary {
  readonly queries: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly meanMs: number;
  readonly minMs: number;
  readonly maxMs: number;
}

/** Nearest-rank percentile of an ascending array (p in (0, 1]). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.max(1, Math.ceil(p * sorted.length));
  return sorted[rank - 1] as number;
}

/** Summarises latencies in ms. */
export function summarise(latenciesMs: readonly number[]): LatencySummary {
  const sorted = [...latenciesMs].sort((a, b) => a - b);
  const sum = sorted.reduce((a, b) => a + b, 0);
  return {
    queries: sorted.length,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    meanMs: sum / sorted.length,
    minMs: sorted[0] ?? NaN,
    maxMs: sorted[sorted.length - 1] ?? NaN,
  };
}

/**
 * Runs `query(i)` WARMUP_QUERIES times untimed, then TIMED_QUERIES times one after the other, each
 * timed from call to settled promise. Returns the summary and every timed result (checked by the caller
 * after the clock stops).
 */
export async function timeQueries<T>(query: (i: number) => Promise<T>): Promise<{ summary: LatencySummary; results: T[] }> {
  for (let i = 0; i < WARMUP_QUERIES; i++) await query(i);
  const latencies: number[] = [];
  const results: T[] = [];
  for (let i = 0; i < TIMED_QUERIES; i++) {
    const started = performance.now();
    const result = await query(WARMUP_QUERIES + i);
    latencies.push(performance.now() - started);
    results.push(result);
  }
  return { summary: summarise(latencies), results };
}
