// Owns the bench's answer check across the ClickHouse day finalization: sample MIN5 answers before (live from raw) and after (stored rollups), compared bucket by bucket.
import type { QueryValue, Store } from '../src/index.js';
import { mulberry32, uniformInt } from '../src/workload/prng.js';
import { BENCH_TENANT, metricName, type Workload } from '../src/workload/standard-workload.js';

/** Series sampled (seeded), each read as 24 h at MIN5. */
const SAMPLE_SERIES = 9;
/** Seed of the sampled series (independent of the plots' and the read-back's). */
const SAMPLE_SEED = 11;
const DAY_MS = 86_400_000;
/** Relative tolerance of "close": the same math in another order may differ in the last bits. */
const CLOSE_TOLERANCE = 1e-12;
const STATS = ['average', 'variance', 'min', 'max'] as const;

/** Answers of the sampled queries, in order. */
export type SampleAnswers = readonly (readonly QueryValue[])[];

/** How two sets of sample answers agree, bucket by bucket. */
export interface AnswerComparison {
  readonly buckets: number;
  /** Same timestamp, numPoints and every statistic bit for bit (Object.is). */
  readonly identical: number;
  /** Same timestamp and numPoints, statistics within CLOSE_TOLERANCE relative. */
  readonly close: number;
}

/** Reads the sample: SAMPLE_SERIES seeded series, 24 h up to the data's end at MIN5 with every statistic. */
export async function sampleAnswers(store: Store, wl: Workload): Promise<SampleAnswers> {
  const pick = mulberry32(SAMPLE_SEED);
  const answers: (readonly QueryValue[])[] = [];
  for (let n = 0; n < SAMPLE_SERIES; n++) {
    const metric = metricName(uniformInt(pick, wl.spec.series));
    const result = await store.query({ tenant: BENCH_TENANT, metric, from: wl.dataEndMs - DAY_MS, to: wl.dataEndMs, resolution: 'MIN5', select: [...STATS] });
    answers.push(result.values);
  }
  return answers;
}

function near(a: number | null | undefined, b: number | null | undefined): boolean {
  if (typeof a !== 'number' || typeof b !== 'number') return a === b;
  return Math.abs(a - b) <= CLOSE_TOLERANCE * Math.max(1, Math.abs(a), Math.abs(b));
}

/** Compares two samples; buckets counts the first's. */
export function compareAnswers(before: SampleAnswers, after: SampleAnswers): AnswerComparison {
  let buckets = 0;
  let identical = 0;
  let close = 0;
  before.forEach((values, q) => {
    const other = new Map((after[q] ?? []).map((v) => [v.timestamp, v]));
    for (const v of values) {
      buckets++;
      const w = other.get(v.timestamp);
      if (w === undefined || w.numPoints !== v.numPoints) continue;
      if (STATS.every((s) => Object.is(v[s], w[s]))) identical++;
      if (STATS.every((s) => near(v[s], w[s]))) close++;
    }
  });
  return { buckets, identical, close };
}
