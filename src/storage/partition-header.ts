// Owns the cheap check of a partition file: it exists, starts with a sane SQLite header and holds whole pages (one stat and one 100-byte read).
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import type { FileFault } from './partition-damage.js';

/** The 16 bytes every SQLite database file starts with: "SQLite format 3" and a NUL. */
const MAGIC = Buffer.from('SQLite format 3\0', 'latin1');
/** Bytes of the database header (https://www.sqlite.org/fileformat.html, section 1.3). */
const HEADER_BYTES = 100;
/** Header offsets: page size (2 bytes), change counter, size in pages, version-valid-for (4 bytes each). */
const PAGE_SIZE_AT = 16;
const CHANGE_COUNTER_AT = 24;
const PAGE_COUNT_AT = 28;
const VALID_FOR_AT = 92;
/** Smallest and largest page sizes SQLite writes; 1 in the header stands for 65536. */
const PAGE_BYTES_MIN = 512;
const PAGE_BYTES_MAX = 65_536;

function sizeOf(path: string): number | undefined {
  try {
    return statSync(path).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function readHeader(path: string): Buffer {
  const header = Buffer.alloc(HEADER_BYTES);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, header, 0, HEADER_BYTES, 0);
  } finally {
    closeSync(fd);
  }
  return header;
}

function pageBytesOf(header: Buffer): number | undefined {
  const raw = header.readUInt16BE(PAGE_SIZE_AT);
  const bytes = raw === 1 ? PAGE_BYTES_MAX : raw;
  // A power of two in range: x & (x - 1) clears the lowest set bit.
  return bytes >= PAGE_BYTES_MIN && bytes <= PAGE_BYTES_MAX && (bytes & (bytes - 1)) === 0 ? bytes : undefined;
}

/**
 * Checks the file at `path` without opening it as a database: undefined when it looks sound, else
 * the fault. Sound means: it exists; it starts with the SQLite magic and a page size SQLite writes;
 * its length is a whole number of pages; and it is not shorter than the page count its header
 * records (when the header says that count is current). With a non-empty `-wal` or `-journal`
 * beside it only the magic and page size are judged here; its size is left to the full
 * verification, which lets SQLite recover the file first: its pages may still be in the WAL (a
 * crash before a checkpoint), or a hot journal may be about to roll back a half-written first
 * commit (a crash while the file was being created).
 */
export function checkPartitionHeader(path: string): FileFault | undefined {
  const size = sizeOf(path);
  if (size === undefined) return { reason: 'missing', detail: `${path} does not exist` };
  // Pages may still be in a WAL beside it, or a hot rollback journal (a crash while SQLite created
  // the file) may be about to undo a half-written first commit: then only SQLite can judge its size.
  const pending = (sizeOf(`${path}-wal`) ?? 0) > 0 || (sizeOf(`${path}-journal`) ?? 0) > 0;
  if (size < HEADER_BYTES) {
    if (pending) return undefined;
    return size === 0
      ? { reason: 'empty', detail: `${path} is empty (0 bytes)` }
      : { reason: 'truncated', detail: `${path} holds ${size} bytes, less than a SQLite header` };
  }
  const header = readHeader(path);
  if (!header.subarray(0, MAGIC.length).equals(MAGIC)) return { reason: 'header', detail: `${path} does not start with the SQLite magic ("SQLite format 3")` };
  const pageBytes = pageBytesOf(header);
  if (pageBytes === undefined) return { reason: 'header', detail: `${path} records a page size SQLite never writes (${header.readUInt16BE(PAGE_SIZE_AT)})` };
  if (pending) return undefined;
  if (size % pageBytes !== 0) return { reason: 'truncated', detail: `${path} holds ${size} bytes, not a whole number of ${pageBytes}-byte pages` };
  const headerPages = header.readUInt32BE(PAGE_COUNT_AT);
  const current = header.readUInt32BE(VALID_FOR_AT) === header.readUInt32BE(CHANGE_COUNTER_AT);
  // (With a WAL beside it the header may be ahead of the file: a checkpoint cut short by a crash
  // writes page 1 before the pages it extends the file with, and the next open finishes it.)
  if (current && headerPages * pageBytes > size) {
    return { reason: 'truncated', detail: `${path} holds ${size / pageBytes} pages; its header records ${headerPages}` };
  }
  return undefined;
}
