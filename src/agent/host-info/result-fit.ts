// Owns bounding a host_info.get result: a list cut at its item bound and then from its end until the JSON fits a protocol line, saying how it was cut.
import type { HostInfoResult, HostInfoTruncation } from '../protocol/messages.js';
import { HOST_INFO_ITEMS_MAX, HOST_INFO_RESULT_BYTES_MAX } from './host-info-limits.js';

type Item = Readonly<Record<string, unknown>>;

function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value));
}

/**
 * The result of a list: at most `itemsMax` items, then as many leading items as fit `bytesMax` bytes of JSON. `total`
 * is how many the reader found (at least items.length); truncated says listed and total whenever fewer than total are listed.
 */
export function fitList(timestampMs: number, items: readonly Item[], total: number, itemsMax: number = HOST_INFO_ITEMS_MAX, bytesMax: number = HOST_INFO_RESULT_BYTES_MAX): HostInfoResult {
  const capped = items.slice(0, itemsMax);
  const found = Math.max(total, items.length);
  // The result with an empty list and the largest truncation it can carry: the room every item shares.
  let used = jsonBytes({ timestamp: timestampMs, metrics: [], error: null, truncated: { listed: found, total: found } });
  let kept = 0;
  for (const item of capped) {
    const bytes = jsonBytes(item) + (kept === 0 ? 0 : 1);
    if (used + bytes > bytesMax) break;
    used += bytes;
    kept++;
  }
  const metrics = capped.slice(0, kept);
  const truncated: HostInfoTruncation | null = kept < found ? { listed: kept, total: found } : null;
  return { timestamp: timestampMs, metrics, error: null, truncated };
}

/** The result of one object (memory, system: a few short fields, far within a line). */
export function objectResult(timestampMs: number, info: Item): HostInfoResult {
  return { timestamp: timestampMs, metrics: info, error: null, truncated: null };
}

/** The result of a read that failed: an empty list or object, and why. */
export function failedResult(timestampMs: number, isObject: boolean, reason: string): HostInfoResult {
  return { timestamp: timestampMs, metrics: isObject ? {} : [], error: reason, truncated: null };
}
