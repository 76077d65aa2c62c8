// Property tests of the chunk cache: under any mix of reads and invalidations it keeps exactly what a byte-bounded LRU keeps, and always serves the stored data.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SampleColumns } from '../../src/model/bucket.js';
import { LAYOUT } from '../../src/model/resolution.js';
import { ChunkCache, decodedBytes } from '../../src/query/chunk-cache.js';
import { encodeChunk } from '../../src/storage/chunk-codec.js';
import { PartitionSet, partitionStartOf, type ChunkWrite } from '../../src/storage/partition-set.js';
import { samplesOf } from '../storage/codec-fixtures.js';

const D0 = Date.UTC(2024, 0, 10);
const FULL_CHUNK_MS = LAYOUT.FULL.chunkWidthMs;
/** Series 0..SERIES-1 exist in both chunk windows; STORED of them have data, the rest are absent (cached as null). */
const SERIES = 10;
const STORED = 8;
const WINDOWS = [D0, D0 + FULL_CHUNK_MS];

/** Sample count of a stored chunk: varied, so entries cost different amounts. */
const lengthOf = (id: number, w: number): number => 1 + ((id * 7 + w * 13) % 40);

let dir: string;
let parts: PartitionSet;
let largest = 0;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'strata-cache-prop-'));
  parts = new PartitionSet(dir, 'normal');
  WINDOWS.forEach((start, w) => {
    const writes: ChunkWrite[] = [];
    for (let id = 0; id < STORED; id++) {
      const n = lengthOf(id, w);
      const s: SampleColumns = samplesOf(
        Array.from({ length: n }, (_, i) => start + i * 30_000),
        Array.from({ length: n }, (_, i) => id * 1000 + i),
      );
      largest = Math.max(largest, decodedBytes(s));
      writes.push({ seriesId: id, chunkStartMs: start, data: encodeChunk(s) });
    }
    parts.writeChunks('FULL', partitionStartOf('FULL', start), writes);
  });
});
afterAll(() => {
  parts.close();
  rmSync(dir, { recursive: true, force: true });
});

type Op = { kind: 'read'; id: number; w: number } | { kind: 'invalidate'; id: number; w: number } | { kind: 'invalidateBefore' };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('read' as const), id: fc.nat(SERIES - 1), w: fc.nat(1) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('invalidate' as const), id: fc.nat(SERIES - 1), w: fc.nat(1) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'invalidateBefore' as const }) },
);

describe('chunk cache properties', () => {
  it('hits exactly where a byte-bounded least-recently-used model still holds the chunk', () => {
    fc.assert(
      fc.property(fc.integer({ min: 64, max: 40 * 1024 }), fc.array(op, { maxLength: 120 }), (maxBytes, ops) => {
        const cache = new ChunkCache(parts, maxBytes);
        /** The model: key -> bytes, in recency order (oldest first). */
        const model = new Map<string, number>();
        let total = 0;
        const lastSeen = new Map<string, SampleColumns | null>();
        const forget = (key: string): void => {
          total -= model.get(key) ?? 0;
          model.delete(key);
        };
        for (const o of ops) {
          if (o.kind === 'invalidateBefore') {
            cache.invalidateBefore('FULL', WINDOWS[1] as number);
            for (const key of [...model.keys()]) if (key.endsWith(':0')) forget(key);
            continue;
          }
          const key = `${o.id}:${o.w}`;
          const start = WINDOWS[o.w] as number;
          if (o.kind === 'invalidate') {
            cache.invalidate('FULL', start, [o.id]);
            forget(key);
            continue;
          }
          const got = cache.samples(o.id, start);
          // Always the stored data, hit or miss.
          if (o.id < STORED) {
            expect(got?.length).toBe(lengthOf(o.id, o.w));
            expect(got?.values[0]).toBe(o.id * 1000);
          } else {
            expect(got).toBeNull();
          }
          const hit = model.has(key);
          // Booleans, not toBe: a miss on a null entry returns an equal null, so identity says nothing there.
          if (got !== null && lastSeen.has(key)) expect(got === lastSeen.get(key)).toBe(hit);
          lastSeen.set(key, got);
          if (hit) {
            const bytes = model.get(key) as number;
            model.delete(key);
            model.set(key, bytes);
            continue;
          }
          const bytes = decodedBytes(got);
          if (bytes > maxBytes) continue;
          for (const [old, oldBytes] of model) {
            if (total + bytes <= maxBytes) break;
            model.delete(old);
            total -= oldBytes;
          }
          model.set(key, bytes);
          total += bytes;
        }
        expect(total).toBeLessThanOrEqual(maxBytes);
      }),
      { numRuns: 300 },
    );
  });

  it('spans bounds from below one chunk to above all of them', () => {
    // The property's bound range must cover both extremes, or it would not test eviction at all.
    expect(largest).toBeGreaterThan(64);
    expect(largest * STORED * WINDOWS.length).toBeLessThan(40 * 1024);
  });
});
