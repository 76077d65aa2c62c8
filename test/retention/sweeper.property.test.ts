// Property tests of the retention sweeper: exactly the files wholly past their cutoff and not being read are dropped, in order.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DAY_MS } from '../../src/core/time.js';
import { LAYOUT, RESOLUTIONS, type Resolution, type RetentionTable } from '../../src/model/resolution.js';
import { resolveRetention } from '../../src/retention/policy.js';
import { sweepExpired } from '../../src/retention/sweeper.js';
import { PartitionSet, partitionStartOf } from '../../src/storage/partition-set.js';

const D0 = Date.UTC(2024, 0, 10);

/** A valid retention table: positive, and never shorter than a finer resolution's. */
const retentionTable: fc.Arbitrary<RetentionTable> = fc
  .array(fc.integer({ min: 0, max: 200 * DAY_MS }), { minLength: RESOLUTIONS.length, maxLength: RESOLUTIONS.length })
  .map((steps) => {
    let total = 0;
    const table: Partial<Record<Resolution, number>> = {};
    RESOLUTIONS.forEach((res, i) => {
      total += (steps[i] as number) + (i === 0 ? 1 : 0);
      table[res] = total;
    });
    return resolveRetention(table);
  });

/** Partition files as (resolution, index of the partition relative to the one holding D0), and whether a task reads each. */
const files = fc.uniqueArray(
  fc.record({ res: fc.constantFrom(...RESOLUTIONS), index: fc.integer({ min: -3, max: 3 }), reading: fc.boolean() }),
  { maxLength: 8, selector: (f) => `${f.res}:${f.index}` },
);

describe('sweeper properties', () => {
  it('drops exactly the files whose window ends at or before their cutoff and that no task reads', () => {
    fc.assert(
      fc.property(retentionTable, files, fc.integer({ min: 0, max: 700 * DAY_MS }), (retention, fileList, ageMs) => {
        const dir = mkdtempSync(join(tmpdir(), 'strata-sweep-prop-'));
        const parts = new PartitionSet(dir, 'normal');
        try {
          const all = fileList.map((f) => {
            const width = LAYOUT[f.res].partitionWidthMs;
            const start = partitionStartOf(f.res, D0) + f.index * width;
            parts.writeChunks(f.res, start, [{ seriesId: 0, chunkStartMs: start, data: Uint8Array.of(1) }]);
            return { ...f, start, end: start + width };
          });
          const nowMs = D0 + ageMs;
          const reading = new Set(all.filter((f) => f.reading).map((f) => `${f.res}:${f.start}`));
          const dropped: string[] = [];
          let forgets = 0;
          const count = sweepExpired({
            nowMs,
            retention,
            partitions: parts,
            isReading: (res, start) => reading.has(`${res}:${start}`),
            onDropped: (res, start, end) => dropped.push(`${res}:${start}:${end}`),
            forget: () => forgets++,
          });
          const expected = all
            .filter((f) => f.end <= nowMs - retention[f.res] && !f.reading)
            .sort((a, b) => RESOLUTIONS.indexOf(a.res) - RESOLUTIONS.indexOf(b.res) || a.start - b.start)
            .map((f) => `${f.res}:${f.start}:${f.end}`);
          expect(dropped).toEqual(expected);
          expect(count).toBe(expected.length);
          expect(forgets).toBe(expected.length > 0 ? 1 : 0);
          for (const res of RESOLUTIONS) {
            const kept = all.filter((f) => f.res === res && !expected.includes(`${f.res}:${f.start}:${f.end}`)).map((f) => f.start);
            expect(parts.starts(res)).toEqual(kept.sort((a, b) => a - b));
          }
        } finally {
          parts.close();
          rmSync(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: 60 },
    );
  });
});
