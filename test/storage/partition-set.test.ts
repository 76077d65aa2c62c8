// Owns the unit tests of the partition files: layout on disk, chunk reads and writes, discovery on reopen, dropping, checkpoints.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AssertionFailure } from '../../src/core/assert.js';
import { HOUR_MS } from '../../src/core/time.js';
import { LAYOUT, RESOLUTIONS } from '../../src/model/resolution.js';
import { decodeChunk, encodeChunk } from '../../src/storage/chunk-codec.js';
import { PartitionSet, partitionStartOf, SLOTS_PER_PARTITION, type ChunkWrite } from '../../src/storage/partition-set.js';
import { columnDifference, samplesOf } from './codec-fixtures.js';

/** A FULL partition boundary (FULL partitions are 6 hours wide). */
const P0 = Date.UTC(2024, 0, 10, 6);
const FULL_PART_MS = LAYOUT.FULL.partitionWidthMs;
const FULL_CHUNK_MS = LAYOUT.FULL.chunkWidthMs;

let dir: string;
let parts: PartitionSet;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'strata-partitions-'));
  parts = new PartitionSet(dir, 'normal');
});
afterEach(() => {
  parts.close();
  rmSync(dir, { recursive: true, force: true });
});

const bytes = (...values: number[]) => Uint8Array.from(values);

function filesOf(res: string): string[] {
  return readdirSync(join(dir, 'partitions', res)).sort();
}

describe('layout', () => {
  it('keeps one directory per resolution and one file per partition window, named by its start', () => {
    expect(readdirSync(join(dir, 'partitions')).sort()).toEqual([...RESOLUTIONS].sort());
    expect(parts.pathOf('MIN5', 86_400_000)).toBe(join(dir, 'partitions', 'MIN5', '86400000.sqlite'));
    parts.writeChunks('FULL', P0, [{ seriesId: 1, chunkStartMs: P0, data: bytes(1) }]);
    expect(filesOf('FULL').filter((n) => n.endsWith('.sqlite'))).toEqual([`${P0}.sqlite`]);
  });

  it('aligns partition starts down, negative times included', () => {
    expect(partitionStartOf('FULL', P0 + FULL_PART_MS - 1)).toBe(P0);
    expect(partitionStartOf('FULL', P0 + FULL_PART_MS)).toBe(P0 + FULL_PART_MS);
    expect(partitionStartOf('FULL', -1)).toBe(-FULL_PART_MS);
    expect(partitionStartOf('MIN1440', 0)).toBe(0);
  });

  it('gives every chunk of every series in a partition its own row', () => {
    const slots = FULL_PART_MS / FULL_CHUNK_MS;
    expect(slots).toBeLessThanOrEqual(SLOTS_PER_PARTITION);
    const writes: ChunkWrite[] = [];
    for (let id = 0; id < 3; id++) {
      for (let slot = 0; slot < slots; slot++) writes.push({ seriesId: id, chunkStartMs: P0 + slot * FULL_CHUNK_MS, data: bytes(id, slot) });
    }
    parts.writeChunks('FULL', P0, writes);
    for (const w of writes) expect([...parts.readChunk('FULL', w.seriesId, w.chunkStartMs)!]).toEqual([...w.data]);
  });

  it('creates new files with the page size of their resolution', () => {
    // The page size sits big-endian at byte 16 of a SQLite file; 1 stands for 65536.
    const pageBytesOf = (path: string): number => {
      const raw = readFileSync(path).readUInt16BE(16);
      return raw === 1 ? 65_536 : raw;
    };
    parts.writeChunks('FULL', P0, [{ seriesId: 0, chunkStartMs: P0, data: bytes(1) }]);
    parts.writeChunks('MIN5', 0, [{ seriesId: 0, chunkStartMs: 0, data: bytes(1) }]);
    parts.checkpoint();
    expect(pageBytesOf(parts.pathOf('FULL', P0))).toBe(16_384);
    expect(pageBytesOf(parts.pathOf('MIN5', 0))).toBe(65_536);
  });
});

describe('reads and writes', () => {
  it('returns exactly the bytes written, per resolution, series and chunk', () => {
    const samples = samplesOf([P0, P0 + 30_000, P0 + 60_000], [1.5, -2, 3.25]);
    parts.writeChunks('FULL', P0, [
      { seriesId: 1, chunkStartMs: P0, data: encodeChunk(samples) },
      { seriesId: 1, chunkStartMs: P0 + FULL_CHUNK_MS, data: bytes(9, 9) },
      { seriesId: 2, chunkStartMs: P0, data: bytes(2) },
    ]);
    const back = decodeChunk(parts.readChunk('FULL', 1, P0)!);
    expect(columnDifference(back.timestampsMs, samples.timestampsMs)).toBeNull();
    expect(columnDifference(back.values, samples.values)).toBeNull();
    expect([...parts.readChunk('FULL', 1, P0 + FULL_CHUNK_MS)!]).toEqual([9, 9]);
    expect([...parts.readChunk('FULL', 2, P0)!]).toEqual([2]);
    expect(parts.readChunk('FULL', 3, P0)).toBeUndefined();
    expect(parts.readChunk('FULL', 2, P0 + FULL_CHUNK_MS)).toBeUndefined();
    // Same start, other resolution: another file altogether.
    expect(parts.readChunk('MIN5', 1, P0)).toBeUndefined();
  });

  it('replaces a chunk written again (upsert), leaving its neighbours alone', () => {
    parts.writeChunks('FULL', P0, [
      { seriesId: 1, chunkStartMs: P0, data: bytes(1) },
      { seriesId: 2, chunkStartMs: P0, data: bytes(2) },
    ]);
    parts.writeChunks('FULL', P0, [{ seriesId: 1, chunkStartMs: P0, data: bytes(3, 3, 3) }]);
    expect([...parts.readChunk('FULL', 1, P0)!]).toEqual([3, 3, 3]);
    expect([...parts.readChunk('FULL', 2, P0)!]).toEqual([2]);
  });

  it('reads from a missing partition without creating its file', () => {
    expect(parts.readChunk('FULL', 1, P0)).toBeUndefined();
    expect(parts.readChunk('MIN60', 1, 0)).toBeUndefined();
    expect(filesOf('FULL')).toEqual([]);
    expect(filesOf('MIN60')).toEqual([]);
    expect(parts.starts('FULL')).toEqual([]);
  });

  it('reads the chunks of many series of one window in one call, as readChunk does one by one', () => {
    expect(parts.readWindowChunks('FULL', P0, [1, 2])).toEqual({ own: [undefined, undefined], compacted: undefined });
    // Reading from a missing partition creates nothing, as readChunk does not.
    expect(filesOf('FULL')).toEqual([]);
    parts.writeChunks('FULL', P0, [
      { seriesId: 1, chunkStartMs: P0, data: bytes(1) },
      { seriesId: 3, chunkStartMs: P0, data: bytes(3) },
      { seriesId: 2, chunkStartMs: P0 + FULL_CHUNK_MS, data: bytes(2) },
    ]);
    const ids = [3, 2, 1, 4, 3];
    const found = parts.readWindowChunks('FULL', P0, ids);
    expect(found.own).toEqual(ids.map((id) => parts.readChunk('FULL', id, P0)));
    expect(found.own.map((b) => (b === undefined ? undefined : [...b]))).toEqual([[3], undefined, [1], undefined, [3]]);
    // A file compaction never wrote holds no compacted chunks to look for.
    expect(found.compacted).toBeUndefined();
    expect(parts.readWindowChunks('FULL', P0 + FULL_CHUNK_MS, [2, 1]).own.map((b) => b?.[0])).toEqual([2, undefined]);
    expect(parts.readWindowChunks('FULL', P0, [])).toEqual({ own: [], compacted: undefined });
  });

  it('finds each partition again after another was used, dropped, replaced or closed', () => {
    // partition() keeps the one it found last; that must never outlive the file's connection.
    const P1 = P0 + FULL_PART_MS;
    parts.writeChunks('FULL', P0, [{ seriesId: 1, chunkStartMs: P0, data: bytes(1) }]);
    parts.writeChunks('FULL', P1, [{ seriesId: 1, chunkStartMs: P1, data: bytes(2) }]);
    for (let round = 0; round < 2; round++) {
      expect(parts.readChunk('FULL', 1, P0)?.[0]).toBe(1);
      expect(parts.readChunk('FULL', 1, P1)?.[0]).toBe(2);
    }
    // The same start at another resolution is another file.
    expect(parts.readChunk('MIN5', 1, P0)).toBeUndefined();
    expect(parts.readChunk('FULL', 1, P0)?.[0]).toBe(1);
    parts.drop('FULL', P0);
    expect(parts.readChunk('FULL', 1, P0)).toBeUndefined();
    parts.writeChunks('FULL', P0, [{ seriesId: 1, chunkStartMs: P0, data: bytes(5) }]);
    expect(parts.readChunk('FULL', 1, P0)?.[0]).toBe(5);
    parts.close();
    expect(parts.readWindowChunks('FULL', P0, [1]).own[0]?.[0]).toBe(5);
    expect(parts.readChunk('FULL', 1, P1)?.[0]).toBe(2);
  });

  it('writes a batch of chunks all or nothing', () => {
    parts.writeChunks('FULL', P0, [{ seriesId: 1, chunkStartMs: P0, data: bytes(1) }]);
    const unbindable = { seriesId: 3, chunkStartMs: P0, data: { not: 'bytes' } as unknown as Uint8Array };
    expect(() =>
      parts.writeChunks('FULL', P0, [{ seriesId: 1, chunkStartMs: P0, data: bytes(7) }, { seriesId: 2, chunkStartMs: P0, data: bytes(8) }, unbindable]),
    ).toThrow();
    expect([...parts.readChunk('FULL', 1, P0)!]).toEqual([1]);
    expect(parts.readChunk('FULL', 2, P0)).toBeUndefined();
  });

  it('refuses, as a programmer error, a chunk of another partition or off the chunk grid, writing nothing', () => {
    parts.writeChunks('FULL', P0, [{ seriesId: 1, chunkStartMs: P0, data: bytes(1) }]);
    const refused = (partitionStartMs: number, chunkStartMs: number): unknown => {
      try {
        parts.writeChunks('FULL', partitionStartMs, [
          { seriesId: 2, chunkStartMs: P0, data: bytes(2) },
          { seriesId: 1, chunkStartMs, data: bytes(7) },
        ]);
      } catch (error) {
        return error;
      }
      return undefined;
    };
    // The first chunk of the next partition: its slot would wrap around to slot 0 of this file.
    const nextPartition = refused(P0, P0 + FULL_PART_MS);
    expect(nextPartition).toBeInstanceOf(AssertionFailure);
    expect((nextPartition as Error).message).toMatch(new RegExp(`chunk of series 1 at ${P0 + FULL_PART_MS} is not in the FULL partition starting at ${P0}`));
    // A start between two chunk starts has no slot.
    const offGrid = refused(P0, P0 + 1);
    expect(offGrid).toBeInstanceOf(AssertionFailure);
    expect((offGrid as Error).message).toMatch(new RegExp(`chunk of series 1 at ${P0 + 1} is not on the FULL chunk grid`));
    // A partition start that is not one names no file.
    const offPartition = refused(P0 + FULL_CHUNK_MS, P0 + FULL_CHUNK_MS);
    expect(offPartition).toBeInstanceOf(AssertionFailure);
    expect((offPartition as Error).message).toMatch(new RegExp(`${P0 + FULL_CHUNK_MS} is not a FULL partition start`));
    expect([...parts.readChunk('FULL', 1, P0)!]).toEqual([1]);
    expect(parts.readChunk('FULL', 2, P0)).toBeUndefined();
    expect(filesOf('FULL').filter((n) => n.endsWith('.sqlite'))).toEqual([`${P0}.sqlite`]);
  });

  it('keeps every write across close and a fresh set on the same directory', () => {
    parts.writeChunks('MIN20', 0, [{ seriesId: 4, chunkStartMs: 0, data: bytes(4, 2) }]);
    parts.close();
    parts = new PartitionSet(dir, 'full');
    expect([...parts.readChunk('MIN20', 4, 0)!]).toEqual([4, 2]);
  });
});

describe('partition bookkeeping', () => {
  it('lists known starts ascending, negative ones included, and finds them again on reopen', () => {
    for (const start of [P0 + FULL_PART_MS, -FULL_PART_MS, P0]) parts.writeChunks('FULL', start, [{ seriesId: 0, chunkStartMs: start, data: bytes(1) }]);
    expect(parts.starts('FULL')).toEqual([-FULL_PART_MS, P0, P0 + FULL_PART_MS]);
    expect(parts.starts('MIN5')).toEqual([]);
    // Side files and strangers in the directory are not partitions.
    writeFileSync(join(dir, 'partitions', 'FULL', 'notes.txt'), 'x');
    writeFileSync(join(dir, 'partitions', 'FULL', '12.sqlite.bak'), 'x');
    parts.close();
    parts = new PartitionSet(dir, 'normal');
    expect(parts.starts('FULL')).toEqual([-FULL_PART_MS, P0, P0 + FULL_PART_MS]);
  });

  it('learns of a file another connection created only when told, but reads it either way', () => {
    const worker = new PartitionSet(dir, 'normal');
    worker.writeChunks('MIN5', 0, [{ seriesId: 5, chunkStartMs: 0, data: bytes(5) }]);
    worker.close();
    expect(parts.starts('MIN5')).toEqual([]);
    expect([...parts.readChunk('MIN5', 5, 0)!]).toEqual([5]);
    parts.noteCreated('MIN1440', 0);
    expect(parts.starts('MIN1440')).toEqual([0]);
  });

  it('drops a partition file with its -wal and -shm, and forgets it', () => {
    parts.writeChunks('FULL', P0, [{ seriesId: 1, chunkStartMs: P0, data: bytes(1) }]);
    parts.writeChunks('FULL', P0 + FULL_PART_MS, [{ seriesId: 1, chunkStartMs: P0 + FULL_PART_MS, data: bytes(2) }]);
    expect(filesOf('FULL').some((n) => n.endsWith('-wal'))).toBe(true);
    parts.drop('FULL', P0);
    expect(filesOf('FULL').filter((n) => n.startsWith(`${P0}.`))).toEqual([]);
    expect(parts.starts('FULL')).toEqual([P0 + FULL_PART_MS]);
    expect(parts.readChunk('FULL', 1, P0)).toBeUndefined();
    expect([...parts.readChunk('FULL', 1, P0 + FULL_PART_MS)!]).toEqual([2]);
    // Dropping again, or a partition that never existed, is a no-op.
    parts.drop('FULL', P0);
    parts.drop('MIN240', 0);
    expect(parts.starts('FULL')).toEqual([P0 + FULL_PART_MS]);
  });

  it('also deletes the -wal and -shm a crash left beside a file it never opened', () => {
    parts.writeChunks('FULL', P0, [{ seriesId: 1, chunkStartMs: P0, data: bytes(1) }]);
    parts.close();
    // A clean close removes both side files; a killed process leaves them behind.
    const path = parts.pathOf('FULL', P0);
    writeFileSync(`${path}-wal`, 'left by a crash');
    writeFileSync(`${path}-shm`, 'left by a crash');
    parts = new PartitionSet(dir, 'normal');
    parts.drop('FULL', P0);
    expect(filesOf('FULL')).toEqual([]);
  });

  it('can write a partition again after dropping it, starting empty', () => {
    parts.writeChunks('FULL', P0, [{ seriesId: 1, chunkStartMs: P0, data: bytes(1) }]);
    parts.drop('FULL', P0);
    parts.writeChunks('FULL', P0, [{ seriesId: 2, chunkStartMs: P0, data: bytes(2) }]);
    expect(parts.readChunk('FULL', 1, P0)).toBeUndefined();
    expect([...parts.readChunk('FULL', 2, P0)!]).toEqual([2]);
    expect(parts.starts('FULL')).toEqual([P0]);
  });

  it('checkpoints every open file, emptying its write-ahead log', () => {
    parts.writeChunks('FULL', P0, [{ seriesId: 1, chunkStartMs: P0, data: new Uint8Array(50_000).fill(7) }]);
    const wal = `${parts.pathOf('FULL', P0)}-wal`;
    expect(statSync(wal).size).toBeGreaterThan(0);
    parts.checkpoint();
    expect(statSync(wal).size).toBe(0);
    expect(parts.readChunk('FULL', 1, P0)?.length).toBe(50_000);
  });

  it('reopens lazily after close', () => {
    parts.writeChunks('FULL', P0, [{ seriesId: 1, chunkStartMs: P0 + 2 * HOUR_MS, data: bytes(6) }]);
    parts.close();
    expect(existsSync(parts.pathOf('FULL', P0))).toBe(true);
    expect([...parts.readChunk('FULL', 1, P0 + 2 * HOUR_MS)!]).toEqual([6]);
  });
});
