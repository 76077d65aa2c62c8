// Owns the engine's query measurements: the two plot latencies and a bit-exact read-back of raw points.
import type { QueryResult, Store } from '../src/index.js';
import { timeQueries, type LatencySummary } from './latency.js';
import { mulberry32, uniformInt } from '../src/workload/prng.js';
import { BENCH_TENANT, metricName, type Workload } from '../src/workload/standard-workload.js';

const HOUR_MS = 3_600_000;
/** Seed of the random series the plot queries pick (independent of the workload's seed). */
const QUERY_SEED = 7;
/** Seed of the series the read-back checks. */
const READ_BACK_SEED = 9;
/** Series read back at FULL and compared bit for bit (peer-results (g) read back 9). */
const READ_BACK_SERIES = 9;
/** A FULL query may return at most 1,440 points: 12 h at 30 s. */
const READ_BACK_SPAN_MS = 12 * HOUR_MS;

/** One plot's latency and what its answers held. */
export interface PlotMeasurement {
  readonly label: string;
  readonly resolution: string;
  readonly rangeMs: number;
  readonly latency: LatencySummary;
  /** Values per answer (min and max over the timed queries). */
  readonly valuesMin: number;
  readonly valuesMax: number;
  /** True when every timed answer's numPoints summed to the series' points in range. */
  readonly complete: boolean;
}

/** Raw points read back at FULL and compared with the generated values. */
export interface ReadBack {
  readonly checked: number;
  readonly exact: number;
}

async function measurePlot(store: Store, wl: Workload, label: string, resolution: 'MIN5' | 'MIN20', rangeMs: number): Promise<PlotMeasurement> {
  const pick = mulberry32(QUERY_SEED);
  const { summary, results } = await timeQueries<QueryResult>(() =>
    store.query({
      tenant: BENCH_TENANT,
      metric: metricName(uniformInt(pick, wl.spec.series)),
      from: wl.dataEndMs - rangeMs,
      to: wl.dataEndMs,
      resolution,
      select: ['average', 'min', 'max'],
    }),
  );
  const counts = results.map((r) => r.values.length);
  const complete = results.every((r) => r.values.reduce((sum, v) => sum + v.numPoints, 0) === wl.spec.points);
  return { label, resolution, rangeMs, latency: summary, valuesMin: Math.min(...counts), valuesMax: Math.max(...counts), complete };
}

/** Plot latencies over ranges ending at the data's end: 24 h at MIN5 and 48 h at MIN20. */
export async function measurePlots(store: Store, wl: Workload): Promise<PlotMeasurement[]> {
  return [await measurePlot(store, wl, '24h MIN5', 'MIN5', 24 * HOUR_MS), await measurePlot(store, wl, '48h MIN20', 'MIN20', 48 * HOUR_MS)];
}

/** Reads seeded series back at FULL and counts the values identical (Object.is) to the generated ones. */
export async function readBack(store: Store, wl: Workload): Promise<ReadBack> {
  const pick = mulberry32(READ_BACK_SEED);
  const { series, intervalMs } = wl.spec;
  let checked = 0;
  let exact = 0;
  for (let n = 0; n < READ_BACK_SERIES; n++) {
    const s = uniformInt(pick, series);
    for (let from = wl.t0Ms; from < wl.dataEndMs; from += READ_BACK_SPAN_MS) {
      const to = Math.min(from + READ_BACK_SPAN_MS, wl.dataEndMs);
      const result = await store.query({ tenant: BENCH_TENANT, metric: metricName(s), from, to, resolution: 'FULL' });
      const byTime = new Map(result.values.map((v) => [v.timestamp, v.average]));
      for (let t = from; t < to; t += intervalMs) {
        const k = (t - wl.t0Ms) / intervalMs;
        checked++;
        if (Object.is(byTime.get(t), wl.values[k * series + s])) exact++;
      }
    }
  }
  return { checked, exact };
}
