// Property tests of the series reader: however far rollups have got, and whatever sits in the head, buckets equal those of the raw points.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { alignDown, DAY_MS } from '../../src/core/time.js';
import { Head } from '../../src/ingest/head.js';
import type { BucketColumns } from '../../src/model/bucket.js';
import { LAYOUT, RESOLUTIONS, ROLLUP_RESOLUTIONS, type Resolution, type RollupResolution } from '../../src/model/resolution.js';
import { bucketsFromSamples } from '../../src/model/rollup-math.js';
import { ChunkCache } from '../../src/query/chunk-cache.js';
import { readBuckets, type ReaderSources } from '../../src/query/series-reader.js';
import { DueIndex } from '../../src/rollup/due-index.js';
import { runRollupTask } from '../../src/rollup/rollup-task.js';
import { encodeChunk } from '../../src/storage/chunk-codec.js';
import { PartitionSet, partitionStartOf } from '../../src/storage/partition-set.js';
import { samplesOf } from '../storage/codec-fixtures.js';
import { batchOf } from '../storage/wal-fixtures.js';

const D0 = Date.UTC(2024, 0, 8);
const SPAN_MS = 2 * DAY_MS;
const W = LAYOUT.FULL.chunkWidthMs;
const NOW = D0 + 3 * DAY_MS;
const ID = 3;

/** Points as timestamp -> value; later writes replace earlier ones, as the store does. */
const points = fc.array(fc.tuple(fc.integer({ min: 0, max: SPAN_MS - 1 }), fc.integer({ min: -1000, max: 1000 })), { maxLength: 150 });

const scenario = fc.record({
  first: points,
  late: points,
  /** Per late FULL window: true when it stays in the head, false when it is sealed (and then due). */
  inHead: fc.array(fc.boolean(), { minLength: SPAN_MS / W, maxLength: SPAN_MS / W }),
  /** How many levels the re-rollup of the sealed late windows has climbed (5: all, nothing due). */
  climbed: fc.integer({ min: 0, max: ROLLUP_RESOLUTIONS.length }),
  res: fc.constantFrom(...ROLLUP_RESOLUTIONS),
  fromOffsetMs: fc.integer({ min: -DAY_MS, max: SPAN_MS }),
  buckets: fc.integer({ min: 1, max: 600 }),
});

/** Sorted sample columns of a timestamp -> value map, limited to [fromMs, toMs). */
function columnsOf(map: ReadonlyMap<number, number>, fromMs = -Infinity, toMs = Infinity) {
  const ts = [...map.keys()].filter((t) => t >= fromMs && t < toMs).sort((a, b) => a - b);
  return samplesOf(ts, ts.map((t) => map.get(t) as number));
}

/** Rolls the windows of `source` into the next level with real rollup tasks; returns the target windows. */
function rollUp(dir: string, source: Resolution, windows: ReadonlySet<number>): Set<number> {
  const target = RESOLUTIONS[RESOLUTIONS.indexOf(source) + 1] as RollupResolution;
  const byTarget = new Map<number, number[]>();
  for (const w of windows) {
    const t = alignDown(w, LAYOUT[target].chunkWidthMs);
    byTarget.set(t, [...(byTarget.get(t) ?? []), w]);
  }
  for (const [targetStartMs, starts] of byTarget) {
    const outcome = runRollupTask({ dataDir: dir, durability: 'normal', sourceRes: source, targetRes: target, targetStartMs, series: [{ id: ID, sourceStartsMs: starts }] });
    expect(outcome.ok).toBe(true);
  }
  return new Set(byTarget.keys());
}

function expectSameBuckets(got: BucketColumns, expected: BucketColumns): void {
  const exact = (b: BucketColumns) => Array.from({ length: b.length }, (_, i) => [b.startsMs[i], b.numPoints[i], b.count[i], b.min[i], b.max[i]]);
  expect(exact(got)).toEqual(exact(expected));
  for (let i = 0; i < got.length; i++) {
    const mean = expected.mean[i] as number;
    const m2 = expected.m2[i] as number;
    expect(Math.abs((got.mean[i] as number) - mean)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(mean)));
    expect(Math.abs((got.m2[i] as number) - m2)).toBeLessThanOrEqual(1e-7 * Math.max(1, Math.abs(m2)));
  }
}

describe('series reader properties', () => {
  it('reads the buckets of the raw points at every resolution, rolled up or not, sealed or in the head', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const dir = mkdtempSync(join(tmpdir(), 'strata-reader-prop-'));
        const parts = new PartitionSet(dir, 'normal');
        try {
          const truth = new Map<number, number>();
          const sealed = new Map<number, number>();
          for (const [dt, v] of s.first) truth.set(D0 + dt, v), sealed.set(D0 + dt, v);
          // Phase 1: the first points are sealed and rolled all the way up.
          const writeFull = (windows: Iterable<number>): void => {
            for (const w of windows) {
              const chunk = columnsOf(sealed, w, w + W);
              if (chunk.length > 0) parts.writeChunks('FULL', partitionStartOf('FULL', w), [{ seriesId: ID, chunkStartMs: w, data: encodeChunk(chunk) }]);
            }
          };
          const firstWindows = new Set([...sealed.keys()].map((t) => alignDown(t, W)));
          writeFull(firstWindows);
          let level = firstWindows;
          for (const res of RESOLUTIONS.slice(0, -1)) level = rollUp(dir, res, level);
          // Phase 2: late points, each window either left in the head or sealed and partly re-rolled.
          const head = new Head();
          const headPoints: { id: number; t: number; v: number }[] = [];
          const lateSealed = new Set<number>();
          for (const [dt, v] of s.late) {
            const t = D0 + dt;
            truth.set(t, v);
            if (s.inHead[Math.floor(dt / W)]) headPoints.push({ id: ID, t, v });
            else sealed.set(t, v), lateSealed.add(alignDown(t, W));
          }
          headPoints.sort((a, b) => a.t - b.t);
          if (headPoints.length > 0) head.apply(batchOf(headPoints), 1, NOW);
          writeFull(lateSealed);
          let dueWindows: Set<number> = lateSealed;
          for (let i = 0; i < s.climbed; i++) dueWindows = rollUp(dir, RESOLUTIONS[i] as Resolution, dueWindows);
          const due = new DueIndex([], NOW);
          if (s.climbed < ROLLUP_RESOLUTIONS.length) for (const w of dueWindows) due.add(RESOLUTIONS[s.climbed] as Resolution, w, [ID], NOW);

          const src: ReaderSources = {
            cache: new ChunkCache(parts),
            due,
            head: {
              windowsOf: (id) => [...head.windows].filter(([, w]) => w.series.has(id)).map(([start]) => start),
              samples: (id, w) => head.windows.get(w)?.series.get(id)?.samples(),
            },
          };
          const widthMs = LAYOUT[s.res].bucketWidthMs;
          const fromMs = alignDown(D0 + s.fromOffsetMs, widthMs);
          const toMs = fromMs + s.buckets * widthMs;
          const expected = bucketsFromSamples(columnsOf(truth, fromMs, toMs), widthMs);
          expectSameBuckets(readBuckets(src, s.res, ID, fromMs, toMs), expected);
        } finally {
          parts.close();
          rmSync(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: 60 },
    );
  });
});
