// Owns slicing and concatenating sample columns (pure; typed-array copies, no per-sample objects).
import type { SampleColumns, StringColumns } from './bucket.js';

/** The first index below `length` whose time is >= timeMs (binary search over ascending times). */
export function firstAtOrAfter(ts: Float64Array, length: number, timeMs: number): number {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((ts[mid] as number) < timeMs) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The samples with time in [fromMs, toMs), as views where possible. */
export function sliceSamples(s: SampleColumns, fromMs: number, toMs: number): SampleColumns {
  const lo = firstAtOrAfter(s.timestampsMs, s.length, fromMs);
  const hi = Math.max(lo, firstAtOrAfter(s.timestampsMs, s.length, toMs));
  let strings: StringColumns | null = null;
  if (s.strings !== null) {
    const slo = firstAtOrAfter(s.strings.timestampsMs, s.strings.length, fromMs);
    const shi = Math.max(slo, firstAtOrAfter(s.strings.timestampsMs, s.strings.length, toMs));
    if (shi > slo) strings = { length: shi - slo, timestampsMs: s.strings.timestampsMs.subarray(slo, shi), values: s.strings.values.slice(slo, shi) };
  }
  return { length: hi - lo, timestampsMs: s.timestampsMs.subarray(lo, hi), values: s.values.subarray(lo, hi), strings };
}

/** The parts one after another; each part must lie entirely after the previous one. */
export function concatSamples(parts: readonly SampleColumns[]): SampleColumns {
  const nonEmpty = parts.filter((p) => p.length > 0 || (p.strings?.length ?? 0) > 0);
  if (nonEmpty.length === 1) return nonEmpty[0] as SampleColumns;
  let total = 0;
  for (const p of nonEmpty) total += p.length;
  const ts = new Float64Array(total);
  const vs = new Float64Array(total);
  const strTs: number[] = [];
  const strVs: string[] = [];
  let at = 0;
  for (const p of nonEmpty) {
    ts.set(p.timestampsMs.subarray(0, p.length), at);
    vs.set(p.values.subarray(0, p.length), at);
    at += p.length;
    if (p.strings !== null) {
      for (let i = 0; i < p.strings.length; i++) {
        strTs.push(p.strings.timestampsMs[i] as number);
        strVs.push(p.strings.values[i] as string);
      }
    }
  }
  const strings: StringColumns | null = strTs.length > 0 ? { length: strTs.length, timestampsMs: Float64Array.from(strTs), values: strVs } : null;
  return { length: total, timestampsMs: ts, values: vs, strings };
}

