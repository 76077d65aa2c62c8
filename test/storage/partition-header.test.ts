// Owns the tests of the cheap partition file check: magic, page size, whole pages, the header's page count, and the leniency a WAL beside the file calls for.
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkPartitionHeader } from '../../src/storage/partition-header.js';
import { PartitionSet } from '../../src/storage/partition-set.js';

let dir: string;
let path: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'strata-header-'));
  // A real partition file (16 KiB pages), written, checkpointed and closed.
  const parts = new PartitionSet(dir, 'normal');
  parts.writeChunks('FULL', 0, Array.from({ length: 40 }, (_, i) => ({ seriesId: i, chunkStartMs: 0, data: new Uint8Array(900).fill(i) })));
  parts.close();
  path = parts.pathOf('FULL', 0);
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function overwrite(at: number, bytes: Buffer): void {
  const fd = openSync(path, 'r+');
  writeSync(fd, bytes, 0, bytes.length, at);
  closeSync(fd);
}

describe('checkPartitionHeader', () => {
  it('passes a sound file', () => {
    expect(readFileSync(path).length % 16_384).toBe(0);
    expect(checkPartitionHeader(path)).toBeUndefined();
  });

  it('names a missing, an empty and a too-short file', () => {
    expect(checkPartitionHeader(join(dir, 'nothing.sqlite'))).toMatchObject({ reason: 'missing' });
    truncateSync(path, 50);
    expect(checkPartitionHeader(path)).toMatchObject({ reason: 'truncated', detail: expect.stringContaining('less than a SQLite header') });
    truncateSync(path, 0);
    expect(checkPartitionHeader(path)).toMatchObject({ reason: 'empty', detail: expect.stringContaining('0 bytes') });
  });

  it('leaves an empty file with a WAL beside it to the full verification (its pages may all be in the WAL)', () => {
    truncateSync(path, 0);
    writeFileSync(`${path}-wal`, Buffer.alloc(32));
    expect(checkPartitionHeader(path)).toBeUndefined();
  });

  it('names a file without the SQLite magic, or with a page size SQLite never writes', () => {
    overwrite(0, Buffer.from('SQLite format 4\0'));
    expect(checkPartitionHeader(path)).toMatchObject({ reason: 'header', detail: expect.stringContaining('magic') });
    overwrite(0, Buffer.from('SQLite format 3\0'));
    expect(checkPartitionHeader(path)).toBeUndefined();
    overwrite(16, Buffer.from([0x30, 0x00]));
    expect(checkPartitionHeader(path)).toMatchObject({ reason: 'header', detail: expect.stringContaining('page size') });
  });

  it('names a file cut inside a page, and one cut at a page boundary before the pages its header records', () => {
    const size = readFileSync(path).length;
    expect(size / 16_384).toBeGreaterThanOrEqual(3);
    truncateSync(path, size - 100);
    expect(checkPartitionHeader(path)).toMatchObject({ reason: 'truncated', detail: expect.stringContaining('not a whole number') });
    truncateSync(path, size - 16_384);
    expect(checkPartitionHeader(path)).toMatchObject({ reason: 'truncated', detail: expect.stringContaining('its header records') });
    // With a WAL beside it the header may run ahead of the file (a checkpoint cut short): not judged here.
    writeFileSync(`${path}-wal`, Buffer.alloc(32));
    expect(checkPartitionHeader(path)).toBeUndefined();
  });
});
