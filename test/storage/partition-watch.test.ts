// Owns the tests of the partition set's checks through its watch: listed files must exist and are never created by a read, first use runs quick_check and the chunk count (skipped once verified), writes report exact counts, and damage is reported once and raised as STORE_PARTITION_DAMAGED.
import { closeSync, existsSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StrataError } from '../../src/core/errors.js';
import type { Resolution } from '../../src/model/resolution.js';
import { damageFromDetails, damageOfError, fileFaultOf, partitionDamagedError, type PartitionDamage } from '../../src/storage/partition-damage.js';
import { PartitionSet, type PartitionState, type PartitionWatch } from '../../src/storage/partition-set.js';

/** A watch the test scripts: states by partition, and a record of what the set reported. */
class ScriptedWatch implements PartitionWatch {
  readonly states = new Map<string, PartitionState>();
  readonly verifiedCalls: [Resolution, number, number][] = [];
  readonly damages: PartitionDamage[] = [];

  state(res: Resolution, startMs: number): PartitionState {
    return this.states.get(`${res}:${startMs}`) ?? { chunks: undefined, verified: false, damage: undefined };
  }

  verified(res: Resolution, startMs: number, chunks: number): void {
    this.verifiedCalls.push([res, startMs, chunks]);
  }

  damaged(damage: PartitionDamage): void {
    this.damages.push(damage);
  }
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'strata-watch-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const chunk = (seriesId: number, byte = seriesId) => ({ seriesId, chunkStartMs: 0, data: Uint8Array.of(byte) });

function caught(run: () => unknown): StrataError {
  try {
    run();
  } catch (error) {
    return error as StrataError;
  }
  throw new Error('expected a throw');
}

/** Writes two chunks in a FULL file at 0 and closes it. */
function written(): string {
  const parts = new PartitionSet(dir, 'normal');
  parts.writeChunks('FULL', 0, [chunk(1), chunk(2)]);
  parts.close();
  return parts.pathOf('FULL', 0);
}

describe('PartitionSet with a watch', () => {
  it('reports exact chunk counts: inserts add, rewrites of a key do not', () => {
    const watch = new ScriptedWatch();
    const parts = new PartitionSet(dir, 'normal', watch);
    expect(parts.writeChunks('FULL', 0, [chunk(1), chunk(2)])).toBe(2);
    expect(parts.writeChunks('FULL', 0, [chunk(2, 9), chunk(3)])).toBe(3);
    expect([...(parts.readChunk('FULL', 2, 0) as Uint8Array)]).toEqual([9]);
    expect(watch.verifiedCalls).toEqual([['FULL', 0, 0]]);
    parts.close();
  });

  it('refuses a listed file that is missing, without creating it, once reported', () => {
    const watch = new ScriptedWatch();
    watch.states.set('FULL:0', { chunks: 3, verified: false, damage: undefined });
    const parts = new PartitionSet(dir, 'normal', watch);
    const error = caught(() => parts.readChunk('FULL', 1, 0));
    expect(error).toMatchObject({ code: 'STORE_PARTITION_DAMAGED', details: { resolution: 'FULL', partitionStartMs: 0, partitionEndMs: 6 * 3_600_000, reason: 'missing' } });
    // A write is refused too: sealing into it would hide what is missing.
    expect(caught(() => parts.writeChunks('FULL', 0, [chunk(1)])).code).toBe('STORE_PARTITION_DAMAGED');
    expect(existsSync(parts.pathOf('FULL', 0))).toBe(false);
    expect(watch.damages).toHaveLength(2);
    // An unlisted missing file reads as nothing.
    expect(parts.readChunk('MIN5', 1, 0)).toBeUndefined();
    parts.close();
  });

  it('refuses a partition the watch says is damaged before touching the file', () => {
    written();
    const watch = new ScriptedWatch();
    watch.states.set('FULL:0', { chunks: 2, verified: true, damage: { res: 'FULL', startMs: 0, reason: 'lost', detail: 'put aside' } });
    const parts = new PartitionSet(dir, 'normal', watch);
    expect(caught(() => parts.readChunk('FULL', 1, 0))).toMatchObject({ code: 'STORE_PARTITION_DAMAGED', details: { reason: 'lost', detail: 'put aside' } });
    expect(watch.damages).toEqual([]);
    parts.close();
  });

  it('verifies on first use: too few chunks against the record is damage; as many or more is fine, and reported', () => {
    written();
    const watch = new ScriptedWatch();
    watch.states.set('FULL:0', { chunks: 3, verified: false, damage: undefined });
    const parts = new PartitionSet(dir, 'normal', watch);
    expect(caught(() => parts.readChunk('FULL', 1, 0))).toMatchObject({ details: { reason: 'chunks', detail: expect.stringContaining('holds 2 chunks; the catalog recorded 3') } });
    parts.close();
    const fine = new ScriptedWatch();
    fine.states.set('FULL:0', { chunks: 1, verified: false, damage: undefined });
    const again = new PartitionSet(dir, 'normal', fine);
    expect([...(again.readChunk('FULL', 1, 0) as Uint8Array)]).toEqual([1]);
    expect(fine.verifiedCalls).toEqual([['FULL', 0, 2]]);
    again.close();
  });

  it('runs quick_check unless the file was verified already; a read that then meets the corruption is damage, not a bare error', () => {
    const path = written();
    const fd = openSync(path, 'r+');
    // Garbage over the chunk table's page (page 2; FULL pages are 16 KiB): the header stays sound.
    writeSync(fd, Buffer.alloc(64, 0xa5), 0, 64, 16_384);
    closeSync(fd);
    const fresh = new ScriptedWatch();
    const parts = new PartitionSet(dir, 'normal', fresh);
    expect(caught(() => parts.readChunk('FULL', 1, 0))).toMatchObject({ details: { reason: 'corrupt', detail: expect.stringContaining('quick_check') } });
    parts.close();
    const trusting = new ScriptedWatch();
    trusting.states.set('FULL:0', { chunks: 2, verified: true, damage: undefined });
    const skipped = new PartitionSet(dir, 'normal', trusting);
    expect(caught(() => skipped.readChunk('FULL', 1, 0))).toMatchObject({ code: 'STORE_PARTITION_DAMAGED', details: { reason: 'corrupt', detail: expect.stringMatching(/SQLITE_CORRUPT|SQLITE_NOTADB/) } });
    expect(trusting.damages).toHaveLength(1);
    skipped.close();
  });

  it('reads an unlisted empty file as nothing (one being created by another thread) and writes into it', () => {
    const parts = new PartitionSet(dir, 'normal', new ScriptedWatch());
    writeFileSync(parts.pathOf('MIN5', 0), '');
    expect(parts.readChunk('MIN5', 1, 0)).toBeUndefined();
    expect(parts.writeChunks('MIN5', 0, [chunk(1)])).toBe(1);
    expect([...(parts.readChunk('MIN5', 1, 0) as Uint8Array)]).toEqual([1]);
    parts.close();
  });
});

describe('partition damage values', () => {
  it('round-trips a damage through the error details (as a worker returns them)', () => {
    const damage: PartitionDamage = { res: 'MIN20', startMs: 345_600_000, reason: 'truncated', detail: 'cut' };
    const error = partitionDamagedError(damage);
    expect(error).toMatchObject({ code: 'STORE_PARTITION_DAMAGED', kind: 'unavailable', details: { resolution: 'MIN20', partitionStartMs: 345_600_000, partitionEndMs: 691_200_000, reason: 'truncated', detail: 'cut' } });
    expect(error.message).toBe('the MIN20 [1970-01-05T00:00:00.000Z, 1970-01-09T00:00:00.000Z) partition is unavailable (truncated: cut); run `strata check --repair`');
    expect(damageOfError(error)).toEqual(damage);
    expect(damageFromDetails({ ...error.details })).toEqual(damage);
    expect(damageFromDetails({ resolution: 'HOURLY', partitionStartMs: 0, reason: 'missing', detail: '' })).toBeUndefined();
    expect(damageOfError(new StrataError('STORE_CLOSED', 'x'))).toBeUndefined();
  });

  it('takes only SQLite codes that mean a malformed file for file faults', () => {
    expect(fileFaultOf(Object.assign(new Error('database disk image is malformed'), { code: 'SQLITE_CORRUPT' }))).toMatchObject({ reason: 'corrupt' });
    expect(fileFaultOf(Object.assign(new Error('file is not a database'), { code: 'SQLITE_NOTADB' }))).toMatchObject({ reason: 'corrupt' });
    expect(fileFaultOf(Object.assign(new Error('short read'), { code: 'SQLITE_IOERR_SHORT_READ' }))).toMatchObject({ reason: 'corrupt' });
    for (const code of ['SQLITE_BUSY', 'SQLITE_FULL', 'SQLITE_IOERR_WRITE', 'ENOENT', undefined]) expect(fileFaultOf(Object.assign(new Error('x'), { code }))).toBeUndefined();
  });
});
