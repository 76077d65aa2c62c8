// Owns the ClickHouse backend's series id: a stable 64-bit hash of a tenant and a metric name, and its byte form.
import { createHash } from 'node:crypto';
import { assert } from '../core/assert.js';

const UINT64_MAX = 2n ** 64n - 1n;

/**
 * The series id of `metric` in `tenant`: the first 8 bytes of SHA-256 over the UTF-8 of
 * `tenant + '\u0000' + metric`, read as a little-endian UInt64 (ClickHouse computes the same as
 * `reinterpretAsUInt64(SHA256(concat(tenant, '\0', metric)))`). A tenant id never holds NUL, so the
 * first NUL ends it and ("ab", "c") and ("a", "bc") hash apart. The id only routes and orders rows;
 * the series table keeps the names, so a collision of two names is detected, never merged.
 */
export function seriesIdOf(tenant: string, metric: string): bigint {
  return createHash('sha256').update(`${tenant}\u0000${metric}`, 'utf8').digest().readBigUInt64LE(0);
}

/** The 8 little-endian bytes of a series id, as RowBinary writes a UInt64. */
export function seriesIdBytes(id: bigint): Buffer {
  assert(id >= 0n && id <= UINT64_MAX, `a series id is a UInt64, got ${id}`);
  const bytes = Buffer.allocUnsafe(8);
  bytes.writeBigUInt64LE(id, 0);
  return bytes;
}
