// Owns the changes replay makes to a damaged WAL segment: a private copy of its bytes kept aside, then an atomic rewrite to its intact records.
import { closeSync, fdatasyncSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { assert } from '../core/assert.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from './open-database.js';
import { DAMAGED_DIR_NAME, SEGMENT_NAME } from './wal-scan.js';

/** Suffix of the file a segment is rewritten into before it is renamed over the segment. */
const REWRITE_SUFFIX = '.rewrite';
const REWRITE_NAME = /^\d{16}\.log\.rewrite$/;

/** Makes the directory entries of `dir` (files created, renamed) durable. */
function fsyncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function writeAll(fd: number, bytes: Buffer): void {
  for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
}

/**
 * Copies the segment `name`'s original `bytes` to `<walDir>/damaged/<name>.<n>` (the first free n
 * from 1), durably and privately, and returns the copy's path. Called before the segment changes,
 * so a crash in between leaves the original in place and the next replay copies it again.
 */
export function quarantineSegment(walDir: string, name: string, bytes: Buffer): string {
  const dir = join(walDir, DAMAGED_DIR_NAME);
  if (mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE }) !== undefined) fsyncDir(walDir);
  for (let n = 1; ; n++) {
    const path = join(dir, `${name}.${n}`);
    let fd: number;
    try {
      fd = openSync(path, 'wx', PRIVATE_FILE_MODE);
    } catch (err) {
      // Earlier copies of the same segment keep their numbers; anything but EEXIST is a real failure.
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw err;
    }
    try {
      writeAll(fd, bytes);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    fsyncDir(dir);
    return path;
  }
}

/**
 * Replaces the segment `name` with `bytes` atomically: a private file beside it, fdatasync'ed, renamed
 * over it, the directory fsync'ed. A crash at any point leaves either the old or the new segment whole.
 */
export function rewriteSegment(walDir: string, name: string, bytes: Buffer): void {
  assert(SEGMENT_NAME.test(name), `not a WAL segment name: ${name}`);
  const temp = join(walDir, name + REWRITE_SUFFIX);
  const fd = openSync(temp, 'w', PRIVATE_FILE_MODE);
  try {
    writeAll(fd, bytes);
    fdatasyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, join(walDir, name));
  fsyncDir(walDir);
}

/** Deletes rewrite files left by a crash before their rename; the segment they came from is still whole. */
export function removeLeftoverRewrites(walDir: string): void {
  for (const name of readdirSync(walDir)) if (REWRITE_NAME.test(name)) rmSync(join(walDir, name), { force: true });
}
