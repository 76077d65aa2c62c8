// Owns measuring allocated bytes on disk the way `du --block-size=1` does: the sum of st_blocks * 512.
import { existsSync, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** st_blocks counts 512-byte units on Linux, whatever the file system's block size. */
const STAT_BLOCK_BYTES = 512;

/** Allocated bytes of a file or of every file under a directory (recursively); 0 when missing. */
export function allocatedBytes(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = lstatSync(path);
  if (!stat.isDirectory()) return stat.blocks * STAT_BLOCK_BYTES;
  let total = 0;
  for (const name of readdirSync(path)) total += allocatedBytes(join(path, name));
  return total;
}

/** Apparent size (sum of st_size) of a file or directory tree, to show sparse or block-rounded files. */
export function apparentBytes(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = lstatSync(path);
  if (!stat.isDirectory()) return stat.size;
  let total = 0;
  for (const name of readdirSync(path)) total += apparentBytes(join(path, name));
  return total;
}
