// Property tests of the partition layout: every time falls in exactly one aligned partition, and chunks in one file never share a row.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAYOUT, RESOLUTIONS } from '../../src/model/resolution.js';
import { PartitionSet, partitionStartOf, type ChunkWrite } from '../../src/storage/partition-set.js';

/** Times within about ±300 years of the epoch, negative ones included. */
const timeMs = fc.integer({ min: -1e13, max: 1e13 });

describe('partition layout properties', () => {
  it('puts every time in the one partition window [start, start + width) with an aligned start', () => {
    fc.assert(
      fc.property(fc.constantFrom(...RESOLUTIONS), timeMs, (res, t) => {
        const width = LAYOUT[res].partitionWidthMs;
        const start = partitionStartOf(res, t);
        expect(start <= t && t < start + width).toBe(true);
        expect(Math.abs(start % width)).toBe(0);
        expect(partitionStartOf(res, start + width - 1)).toBe(start);
      }),
      { numRuns: 2000 },
    );
  });

  describe('with real files', () => {
    let dir: string;
    let parts: PartitionSet;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'strata-partitions-prop-'));
      parts = new PartitionSet(dir, 'normal');
    });
    afterAll(() => {
      parts.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('reads back every chunk of a partition as written, whatever mix of series and chunk slots', () => {
      let round = 0;
      fc.assert(
        fc.property(
          fc.constantFrom(...RESOLUTIONS),
          timeMs,
          fc.uniqueArray(fc.tuple(fc.nat(100_000), fc.nat(15)), { minLength: 1, maxLength: 40, selector: ([id, slot]) => `${id}:${slot}` }),
          (res, t, cells) => {
            const { chunkWidthMs, partitionWidthMs } = LAYOUT[res];
            const start = partitionStartOf(res, t);
            const slots = partitionWidthMs / chunkWidthMs;
            // Every write of a round carries the round number, so a stale or shared row shows.
            round++;
            const writes: ChunkWrite[] = cells
              .filter(([, slot]) => slot < slots)
              .map(([id, slot], i) => ({ seriesId: id, chunkStartMs: start + slot * chunkWidthMs, data: Uint8Array.of(round & 255, i & 255, i >> 8) }));
            parts.writeChunks(res, start, writes);
            for (const w of writes) expect([...(parts.readChunk(res, w.seriesId, w.chunkStartMs) ?? [])]).toEqual([...w.data]);
          },
        ),
        { numRuns: 150 },
      );
    });
  });
});
