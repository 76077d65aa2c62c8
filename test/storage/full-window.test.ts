// Owns the tests of reading one FULL window as stored: window chunk over the compacted chunk's slice, the window chunk winning per timestamp.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CompactRun } from '../../src/ingest/compactor.js';
import type { SampleColumns } from '../../src/model/bucket.js';
import { LAYOUT } from '../../src/model/resolution.js';
import { encodeChunk } from '../../src/storage/chunk-codec.js';
import { readFullWindow, readFullWindows } from '../../src/storage/full-window.js';
import {
  chunkStartsOfKey,
  COMPACTED_APPLICATION_ID,
  COMPACTED_SLOT,
  compactedKey,
  PartitionSet,
  SLOTS_PER_PARTITION,
} from '../../src/storage/partition-set.js';

/** A FULL partition boundary (FULL partitions are 6 hours wide). */
const P0 = Date.UTC(2024, 0, 10, 6);
const WINDOW_MS = LAYOUT.FULL.chunkWidthMs;
const PART_MS = LAYOUT.FULL.partitionWidthMs;
const WINDOW_STARTS = Array.from({ length: PART_MS / WINDOW_MS }, (_, i) => P0 + i * WINDOW_MS);
/** A series the tests never read, written so that PartitionSet creates the file and its schema. */
const FILLER_SERIES = 999;
const PROPERTY_RUNS = 40;

type Sample = readonly [number, number | string];

/** Sample columns from (time, value) pairs in any order; numbers and strings go to their own columns. */
function columnsOf(samples: readonly Sample[]): SampleColumns {
  const sorted = [...samples].sort((a, b) => a[0] - b[0]);
  const nums = sorted.filter((s): s is readonly [number, number] => typeof s[1] === 'number');
  const strs = sorted.filter((s): s is readonly [number, string] => typeof s[1] === 'string');
  return {
    length: nums.length,
    timestampsMs: Float64Array.from(nums.map((s) => s[0])),
    values: Float64Array.from(nums.map((s) => s[1])),
    strings: strs.length === 0 ? null : { length: strs.length, timestampsMs: Float64Array.from(strs.map((s) => s[0])), values: strs.map((s) => s[1]) },
  };
}

/** The samples of columns as sorted (time, value) pairs. */
function pairsOf(s: SampleColumns | undefined): Sample[] | undefined {
  if (s === undefined) return undefined;
  const out: Sample[] = [];
  for (let i = 0; i < s.length; i++) out.push([s.timestampsMs[i] as number, s.values[i] as number]);
  if (s.strings !== null) for (let i = 0; i < s.strings.length; i++) out.push([s.strings.timestampsMs[i] as number, s.strings.values[i] as string]);
  return out.sort((a, b) => a[0] - b[0]);
}

/** The first pair that differs under Object.is (-0 is not 0), or null when identical. */
function pairDifference(actual: readonly Sample[] | undefined, expected: readonly Sample[] | undefined): string | null {
  if (actual === undefined || expected === undefined) return actual === expected ? null : `${actual === undefined ? 'undefined' : 'samples'}, expected ${expected === undefined ? 'undefined' : 'samples'}`;
  if (actual.length !== expected.length) return `${actual.length} samples, expected ${expected.length}`;
  for (let i = 0; i < expected.length; i++) {
    const [ta, va] = actual[i] as Sample;
    const [te, ve] = expected[i] as Sample;
    if (ta !== te || !Object.is(va, ve)) return `sample ${i}: [${ta}, ${String(va)}${Object.is(va, -0) ? ' (-0)' : ''}], expected [${te}, ${String(ve)}${Object.is(ve, -0) ? ' (-0)' : ''}]`;
  }
  return null;
}

/** What a window must read: the union of both, the newer winning per timestamp, in [start, start + WINDOW_MS); undefined when empty. */
function expectedWindow(older: readonly Sample[], newer: readonly Sample[], start: number): Sample[] | undefined {
  const merged = new Map<number, number | string>();
  for (const [t, v] of [...older, ...newer]) if (t >= start && t < start + WINDOW_MS) merged.set(t, v);
  if (merged.size === 0) return undefined;
  return [...merged].sort((a, b) => a[0] - b[0]);
}

let dir: string;
let parts: PartitionSet;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'strata-full-window-'));
  parts = new PartitionSet(dir, 'normal');
});
afterEach(() => {
  parts.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Writes rows into the partition file of P0 by hand (keys as given, so slot 15 too), with the
 * application id given; the set is closed first and reopened after (it reads the id on connect).
 */
function writeByHand(rows: readonly { key: number; samples: SampleColumns }[], applicationId: number | undefined): void {
  parts.writeChunks('FULL', P0, [{ seriesId: FILLER_SERIES, chunkStartMs: P0, data: encodeChunk(columnsOf([[P0, 1]])) }]);
  parts.close();
  const db = new Database(parts.pathOf('FULL', P0));
  try {
    const insert = db.prepare('INSERT OR REPLACE INTO chunk (key, data) VALUES (?, ?)');
    for (const row of rows) insert.run(row.key, encodeChunk(row.samples, 'compact'));
    if (applicationId !== undefined) db.pragma(`application_id = ${applicationId}`);
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
  parts = new PartitionSet(dir, 'normal');
}

/** Samples over the whole partition: numbers, -0, strings, one sample on each window's last millisecond. */
const COMPACTED: Sample[] = [
  [P0, 1.5],
  [P0 + 1, -0],
  [P0 + 60_000, 'first window'],
  [P0 + WINDOW_MS - 1, 0.1 + 0.2],
  [P0 + WINDOW_MS, 2 ** 53 + 2],
  [P0 + WINDOW_MS + 5, 'second'],
  [P0 + 2 * WINDOW_MS - 1, -(2 ** 60)],
];

describe('readFullWindow', () => {
  it('answers undefined when no file exists and when the file holds nothing of the series', () => {
    expect(readFullWindow(parts, 1, P0)).toBeUndefined();
    parts.writeChunks('FULL', P0, [{ seriesId: 2, chunkStartMs: P0, data: encodeChunk(columnsOf([[P0, 1]])) }]);
    for (const start of WINDOW_STARTS) expect(readFullWindow(parts, 1, start)).toBeUndefined();
  });

  it('answers the window row alone, bit for bit, in a file never compacted', () => {
    const own: Sample[] = [[P0 + WINDOW_MS, -0], [P0 + WINDOW_MS + 1, 'up'], [P0 + WINDOW_MS + 2, 2 ** 60 + 2 ** 8]];
    parts.writeChunks('FULL', P0, [{ seriesId: 1, chunkStartMs: P0 + WINDOW_MS, data: encodeChunk(columnsOf(own)) }]);
    expect(pairDifference(pairsOf(readFullWindow(parts, 1, P0 + WINDOW_MS)), own)).toBeNull();
    expect(readFullWindow(parts, 1, P0)).toBeUndefined();
  });

  it("answers each window's slice of a compacted row, strings too, and undefined for a window it has nothing in", () => {
    writeByHand([{ key: compactedKey(1), samples: columnsOf(COMPACTED) }], COMPACTED_APPLICATION_ID);
    for (const start of WINDOW_STARTS) {
      expect(pairDifference(pairsOf(readFullWindow(parts, 1, start)), expectedWindow(COMPACTED, [], start)), `window ${start}`).toBeNull();
    }
    expect(readFullWindow(parts, 1, P0 + 2 * WINDOW_MS)).toBeUndefined();
    expect(readFullWindow(parts, 2, P0)).toBeUndefined();
  });

  it('returns a window whose slice holds only strings', () => {
    writeByHand([{ key: compactedKey(1), samples: columnsOf([[P0 + 3, 'only'], [P0 + 2 * WINDOW_MS + 4, 7]]) }], COMPACTED_APPLICATION_ID);
    expect(pairsOf(readFullWindow(parts, 1, P0))).toEqual([[P0 + 3, 'only']]);
    expect(readFullWindow(parts, 1, P0 + WINDOW_MS)).toBeUndefined();
    expect(pairsOf(readFullWindow(parts, 1, P0 + 2 * WINDOW_MS))).toEqual([[P0 + 2 * WINDOW_MS + 4, 7]]);
  });

  it('merges a window row over the compacted slice: the window row wins per timestamp, number and string either way', () => {
    const own: Sample[] = [
      [P0, 'now a string'],
      [P0 + 1, 0],
      [P0 + 60_000, 42],
      [P0 + 30_000, 'new'],
    ];
    writeByHand(
      [
        { key: compactedKey(1), samples: columnsOf(COMPACTED) },
        { key: 1 * SLOTS_PER_PARTITION + 0, samples: columnsOf(own) },
      ],
      COMPACTED_APPLICATION_ID,
    );
    expect(pairDifference(pairsOf(readFullWindow(parts, 1, P0)), expectedWindow(COMPACTED, own, P0))).toBeNull();
    expect(Object.is(readFullWindow(parts, 1, P0)?.values[0], 0)).toBe(true);
    expect(pairDifference(pairsOf(readFullWindow(parts, 1, P0 + WINDOW_MS)), expectedWindow(COMPACTED, [], P0 + WINDOW_MS))).toBeNull();
  });

  it('ignores slot-15 rows in a file without the compacted application id', () => {
    const own: Sample[] = [[P0 + 10, 3]];
    writeByHand(
      [
        { key: compactedKey(1), samples: columnsOf(COMPACTED) },
        { key: compactedKey(2), samples: columnsOf(COMPACTED) },
        { key: 1 * SLOTS_PER_PARTITION + 0, samples: columnsOf(own) },
      ],
      undefined,
    );
    expect(parts.readCompacted('FULL', 1, P0)).toBeUndefined();
    expect(parts.readCompacted('FULL', 2, P0)).toBeUndefined();
    expect(parts.isCompacted('FULL', P0)).toBe(false);
    expect(pairDifference(pairsOf(readFullWindow(parts, 1, P0)), own)).toBeNull();
    expect(readFullWindow(parts, 1, P0 + WINDOW_MS)).toBeUndefined();
    for (const start of WINDOW_STARTS) expect(readFullWindow(parts, 2, start)).toBeUndefined();
  });

  it('reads the compacted row where the file carries the application id (the same rows as above)', () => {
    writeByHand([{ key: compactedKey(2), samples: columnsOf(COMPACTED) }], COMPACTED_APPLICATION_ID);
    expect(parts.readCompacted('FULL', 2, P0)).toBeInstanceOf(Uint8Array);
    expect(pairsOf(readFullWindow(parts, 2, P0 + WINDOW_MS))?.length).toBe(expectedWindow(COMPACTED, [], P0 + WINDOW_MS)?.length);
  });

  it('a window read from a compacted chunk holds only its own samples (the chunk cache counts what a window holds)', () => {
    writeByHand([{ key: compactedKey(1), samples: columnsOf(COMPACTED) }], COMPACTED_APPLICATION_ID);
    const window = readFullWindow(parts, 1, P0 + WINDOW_MS) as SampleColumns;
    expect(window.length).toBe(2);
    // A subarray of the whole partition's decoded columns keeps every window of it alive.
    expect(window.timestampsMs.buffer.byteLength).toBe(window.length * Float64Array.BYTES_PER_ELEMENT);
    expect(window.values.buffer.byteLength).toBe(window.length * Float64Array.BYTES_PER_ELEMENT);
  });
});

/** readFullWindows of these series, each compared with readFullWindow of the same series, bit for bit. */
function expectBatchAsSingle(seriesIds: readonly number[], start: number): void {
  const batch = readFullWindows(parts, seriesIds, start);
  expect(batch.length).toBe(seriesIds.length);
  seriesIds.forEach((id, k) => {
    expect(pairDifference(pairsOf(batch[k]), pairsOf(readFullWindow(parts, id, start))), `series ${id} at ${start}`).toBeNull();
  });
}

describe('readFullWindows', () => {
  it('answers undefined for every series when no file exists, creating none', () => {
    expect(readFullWindows(parts, [1, 2, 3], P0)).toEqual([undefined, undefined, undefined]);
    expect(parts.starts('FULL')).toEqual([]);
  });

  it('answers what readFullWindow answers for each series, in a compacted file and in one never compacted', () => {
    const own: Sample[] = [[P0, 'now a string'], [P0 + 1, 0], [P0 + WINDOW_MS + 2, 4]];
    parts.writeChunks('FULL', P0, [
      { seriesId: 4, chunkStartMs: P0, data: encodeChunk(columnsOf(own)) },
      { seriesId: 5, chunkStartMs: P0 + WINDOW_MS, data: encodeChunk(columnsOf(own.slice(2))) },
    ]);
    for (const start of WINDOW_STARTS) expectBatchAsSingle([4, 5, 6, 4], start);
    writeByHand(
      [
        { key: compactedKey(1), samples: columnsOf(COMPACTED) },
        { key: compactedKey(2), samples: columnsOf(COMPACTED.slice(0, 3)) },
        { key: 1 * SLOTS_PER_PARTITION + 0, samples: columnsOf(own) },
        { key: 3 * SLOTS_PER_PARTITION + 1, samples: columnsOf([[P0 + WINDOW_MS + 7, -0]]) },
      ],
      COMPACTED_APPLICATION_ID,
    );
    for (const start of WINDOW_STARTS) expectBatchAsSingle([1, 2, 3, FILLER_SERIES, 77, 1], start);
    expect(readFullWindows(parts, [], P0)).toEqual([]);
  });
});

describe('isCompacted and chunkStartsOfKey', () => {
  it('tells a file of compacted rows only from one with a window row sealed into it since', () => {
    writeByHand([{ key: compactedKey(1), samples: columnsOf(COMPACTED) }, { key: compactedKey(FILLER_SERIES), samples: columnsOf([[P0, 1]]) }], COMPACTED_APPLICATION_ID);
    // writeByHand's filler row is a window row: the file is not all compacted yet.
    expect(parts.isCompacted('FULL', P0)).toBe(false);
    parts.close();
    const db = new Database(parts.pathOf('FULL', P0));
    db.prepare('DELETE FROM chunk WHERE key = ?').run(FILLER_SERIES * SLOTS_PER_PARTITION);
    db.close();
    parts = new PartitionSet(dir, 'normal');
    expect(parts.isCompacted('FULL', P0)).toBe(true);
    parts.writeChunks('FULL', P0, [{ seriesId: 1, chunkStartMs: P0 + WINDOW_MS, data: encodeChunk(columnsOf([[P0 + WINDOW_MS, 9]])) }]);
    expect(parts.isCompacted('FULL', P0)).toBe(false);
    expect(parts.isCompacted('FULL', P0 + PART_MS)).toBe(false);
  });

  it('maps a compacted key to every window of its partition and a window key to its own', () => {
    expect(chunkStartsOfKey('FULL', P0, compactedKey(7))).toEqual(WINDOW_STARTS);
    expect(compactedKey(7) % SLOTS_PER_PARTITION).toBe(COMPACTED_SLOT);
    expect(chunkStartsOfKey('FULL', P0, 7 * SLOTS_PER_PARTITION + 2)).toEqual([P0 + 2 * WINDOW_MS]);
  });
});

// ---- property: compaction, then a newer window row, reads as the union with the newer winning ----

const sampleValue = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer({ min: -(2 ** 31), max: 2 ** 31 }).map((n) => n * 2 ** 30),
  fc.constantFrom(-0, 0, 0.1 + 0.2),
  fc.string({ maxLength: 12 }),
);
const offsets = (maxMs: number) => fc.uniqueArray(fc.integer({ min: 0, max: maxMs - 1 }), { maxLength: 60 });

describe('readFullWindow after CompactRun (property)', () => {
  it('reads the compacted data with a later window row merged over it, newer winning, bit for bit', () => {
    let run = 0;
    fc.assert(
      fc.property(
        offsets(PART_MS).chain((ts) => fc.tuple(fc.constant(ts), fc.array(sampleValue, { minLength: ts.length, maxLength: ts.length }))),
        fc.integer({ min: 0, max: WINDOW_STARTS.length - 1 }),
        offsets(WINDOW_MS).chain((ts) => fc.tuple(fc.constant(ts), fc.array(sampleValue, { minLength: ts.length, maxLength: ts.length }))),
        ([olderTs, olderVs], newerWindow, [newerTs, newerVs]) => {
          // Every run uses a partition of its own.
          const start = P0 + run++ * PART_MS;
          const seriesId = 3;
          const older: Sample[] = olderTs.map((o, i) => [start + o, olderVs[i] as number | string]);
          const newerStart = start + newerWindow * WINDOW_MS;
          const newer: Sample[] = newerTs.map((o, i) => [newerStart + o, newerVs[i] as number | string]);
          const windows = WINDOW_STARTS.map((w) => w - P0 + start);
          const writes = windows
            .map((w) => older.filter(([t]) => t >= w && t < w + WINDOW_MS))
            .filter((s) => s.length > 0)
            .map((s) => ({ seriesId, chunkStartMs: Math.floor((s[0] as Sample)[0] / WINDOW_MS) * WINDOW_MS, data: encodeChunk(columnsOf(s)) }));
          // A filler series keeps the file in existence when the series has no older data.
          writes.push({ seriesId: FILLER_SERIES, chunkStartMs: start, data: encodeChunk(columnsOf([[start, 1]])) });
          parts.writeChunks('FULL', start, writes);
          const compaction = new CompactRun({ dataDir: dir, durability: 'normal', partitions: parts, lowerCount: () => {} }, start);
          while (!compaction.read) compaction.step();
          expect(compaction.finish()).toBeDefined();
          for (const w of windows) expect(pairDifference(pairsOf(readFullWindow(parts, seriesId, w)), expectedWindow(older, [], w))).toBeNull();
          if (newer.length > 0) parts.writeChunks('FULL', start, [{ seriesId, chunkStartMs: newerStart, data: encodeChunk(columnsOf(newer)) }]);
          for (const w of windows) {
            expect(pairDifference(pairsOf(readFullWindow(parts, seriesId, w)), expectedWindow(older, w === newerStart ? newer : [], w)), `window ${w - start}`).toBeNull();
            // Sealing reads a step's series together: the same windows, series by series.
            expectBatchAsSingle([FILLER_SERIES, seriesId, seriesId + 1], w);
          }
        },
      ),
      { numRuns: PROPERTY_RUNS },
    );
  });
});
