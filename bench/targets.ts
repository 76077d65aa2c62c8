// Owns the benchmark targets and judging a kind's summary against them.
import type { KindSummary } from './summary.js';
import type { ValueKind } from '../src/workload/standard-workload.js';

/** Embedded ingest, points/s, every batch durable. */
export const INGEST_PPS_MIN = 4_000_000;
/** Embedded ingest as a share of the blob floor of the same run. */
export const INGEST_OVER_BLOB_MIN = 0.5;
/** Plot query p50, both plots. */
export const QUERY_P50_MS_MAX = 0.2;
/** FULL bytes per point by value kind (nab has no target: it is an extra row). */
export const FULL_BPP_MAX: Readonly<Partial<Record<ValueKind, number>>> = { walk: 6, rounded: 1.3 };
/** The five rollup tiers together, bytes per raw point, for the two value kinds (nab is an extra row). */
export const ROLLUP_BPP_MAX = 3;
/** Kinds the byte targets apply to. */
export const BYTE_TARGET_KINDS: readonly ValueKind[] = ['walk', 'rounded'];
/** Peak RSS, MiB. */
export const PEAK_RSS_MB_MAX = 512;

/** One target judged on one kind. */
export interface TargetCheck {
  readonly kind: ValueKind;
  readonly target: string;
  readonly measured: string;
  readonly met: boolean;
}

const mps = (pps: number): string => `${(pps / 1e6).toFixed(2)} M/s`;

/** Judges a kind's summary against every target that applies to it. */
export function checkTargets(s: KindSummary): TargetCheck[] {
  const checks: TargetCheck[] = [
    {
      kind: s.kind,
      target: `ingest >= ${INGEST_PPS_MIN / 1e6} M points/s and >= ${INGEST_OVER_BLOB_MIN} x blob floor`,
      measured: `${mps(s.enginePps.median)}, ${s.engineOverBlob.toFixed(2)} x blob floor (${mps(s.blobFloorPps.median)})`,
      met: s.enginePps.median >= INGEST_PPS_MIN && s.engineOverBlob >= INGEST_OVER_BLOB_MIN,
    },
  ];
  for (const plot of s.plots) {
    checks.push({
      kind: s.kind,
      target: `query ${plot.label} p50 < ${QUERY_P50_MS_MAX} ms`,
      measured: `${plot.p50Ms.median.toFixed(3)} ms (p99 ${plot.p99Ms.median.toFixed(2)} ms)`,
      met: plot.p50Ms.median < QUERY_P50_MS_MAX,
    });
  }
  const fullMax = FULL_BPP_MAX[s.kind];
  if (fullMax !== undefined) {
    checks.push({ kind: s.kind, target: `FULL <= ${fullMax} B/pt`, measured: `${s.fullBpp.toFixed(3)} B/pt`, met: s.fullBpp <= fullMax });
  }
  if (BYTE_TARGET_KINDS.includes(s.kind)) {
    checks.push({ kind: s.kind, target: `rollup tiers <= ${ROLLUP_BPP_MAX} B/pt`, measured: `${s.rollupBpp.toFixed(3)} B/pt`, met: s.rollupBpp <= ROLLUP_BPP_MAX });
  }
  checks.push({
    kind: s.kind,
    target: `peak RSS < ${PEAK_RSS_MB_MAX} MB (engine process, batches built per write)`,
    measured: `${s.peakRssMbStreamed.toFixed(0)} MB (${s.peakRssMbPrebuilt.toFixed(0)} MB with all 2.88 M Point objects pre-built)`,
    met: s.peakRssMbStreamed < PEAK_RSS_MB_MAX,
  });
  return checks;
}

/** The mark printed next to a number. */
export function mark(met: boolean): string {
  return met ? '✓' : '✗';
}
