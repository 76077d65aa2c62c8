import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isStrataError } from '../src/core/errors.js';
import { WalDurability } from '../src/store-health.js';

// The store tests make appends fail by replacing the log directory with a file (ENOTDIR), which
// works as root; these cover the other errnos (EACCES, ENOSPC, ...) that root cannot provoke.
let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function durability(): WalDurability {
  dir = mkdtempSync(join(tmpdir(), 'strata-health-'));
  mkdirSync(join(dir, 'wal'));
  return new WalDurability(dir, 'wal');
}

function ioError(errno: string, path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${errno}: failed, open '${path}'`), { code: errno });
}

describe('WalDurability', () => {
  it.each(['EACCES', 'EROFS', 'ENOSPC', 'EIO', 'EDQUOT'])('turns a failed append with %s into STORE_NOT_DURABLE and fails health until an append succeeds', (errno) => {
    const wal = durability();
    const error = wal.appendFailed(ioError(errno, join(dir, 'wal', '0000000000000001.log')), 1_000);
    expect(isStrataError(error) && error.code).toBe('STORE_NOT_DURABLE');
    expect(error?.details).toEqual({ errno });
    expect(wal.failing).toBe(true);
    const reason = wal.reason();
    expect(reason?.code).toBe('STORE_NOT_DURABLE');
    // /healthz answers without a token: the data directory's place on the server is not shown.
    expect(JSON.stringify(reason)).not.toContain(dir);
    wal.appendSucceeded();
    expect(wal.failing).toBe(false);
    expect(wal.reason()).toBeUndefined();
  });

  it('leaves an error that is no I/O failure to the caller (a bug stays an internal error)', () => {
    const wal = durability();
    expect(wal.appendFailed(new TypeError('not an I/O failure'), 1_000)).toBeUndefined();
    expect(wal.appendFailed(ioError('EINVAL', 'x'), 1_000)).toBeUndefined();
    expect(wal.failing).toBe(false);
  });

  it('a probe of a writable directory clears a failure once the retry time has come', () => {
    const wal = durability();
    wal.appendFailed(ioError('EACCES', 'x'), 1_000);
    expect(wal.probe(1_000)).toBeUndefined();
    expect(wal.failing).toBe(true);
    expect(wal.probe(1_000_000)).toBe('recovered');
    expect(wal.failing).toBe(false);
  });
});
