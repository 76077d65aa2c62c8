// Owns the issue's benchmark targets and judging a kind's summary against them (issue 14's storage goals and their "while" constraints included).
import type { KindSummary } from './summary.js';
import { VALUE_KINDS, type ValueKind } from '../src/workload/standard-workload.js';

/** Embedded ingest, points/s, every batch durable. */
export const INGEST_PPS_MIN = 4_000_000;
/** Embedded ingest as a share of the blob floor of the same run. */
export const INGEST_OVER_BLOB_MIN = 0.5;
/** Plot query p50, both plots. */
export const QUERY_P50_MS_MAX = 0.2;
/** FULL bytes per point by value kind, the first engine issue's (nab had none; issue 14's VM_FULL_BPP covers every kind). */
export const FULL_BPP_MAX: Readonly<Partial<Record<ValueKind, number>>> = { walk: 6, rounded: 1.3 };
/** The five rollup tiers together, bytes per raw point. */
export const ROLLUP_BPP_MAX = 3;
/** Kinds the rollup byte target applies to: every kind since issue 14 (nab had no target before). */
export const ROLLUP_TARGET_KINDS: readonly ValueKind[] = VALUE_KINDS;
/** Peak RSS, MiB. */
export const PEAK_RSS_MB_MAX = 512;

/**
 * VictoriaMetrics 1.79.5's bytes per point on the standard workload of each kind (median of 3, du
 * of its data dir after settling), from ../shared/reference/peer-results.md, measured 2026-11-22:
 * walk in the main table, rounded in "VM, values rounded to 2 decimals", nab in "Real workload".
 * Lossy: VM keeps 12 significant digits, where Strata's FULL is bit-exact. Issue 14: Strata's FULL
 * bytes per point at or below these.
 */
export const VM_FULL_BPP: Readonly<Record<ValueKind, number>> = { walk: 6.06, rounded: 1.27, nab: 1.86 };
/** Issue 14's "while" constraint: embedded ingest at least this many times the blob floor of the same run. */
export const INGEST_OVER_BLOB_MIN_ISSUE14 = 2;
/** Issue 14's "while" constraint: seal and rollup throughput at least this share of the before medians (fall by at most 20 %). */
export const THROUGHPUT_KEPT_MIN = 0.8;
/** The 288-point plot of issue 14's latency constraint: engine-queries.ts's 24 h range at MIN5. */
export const PLOT_288_LABEL = '24h MIN5';

/** One kind's medians before issue 14 (bench/baselines/issue14-before.json). */
export interface BeforeFigures {
  readonly sealPps: number;
  readonly rollupPps: number;
  readonly fullBpp: number;
  readonly rollupBpp: number;
}

/** The before figures issue 14 compares with. */
export interface Issue14Baseline {
  /** Date of the bench run they come from. */
  readonly date: string;
  readonly kinds: Readonly<Partial<Record<ValueKind, BeforeFigures>>>;
}

const BEFORE_FIELDS = ['sealPps', 'rollupPps', 'fullBpp', 'rollupBpp'] as const;

/** Checks the parsed baseline file: a date, and per kind present four positive finite numbers. */
export function parseBaseline(json: unknown): Issue14Baseline {
  const file = json as { date?: unknown; kinds?: unknown };
  if (typeof file !== 'object' || file === null || typeof file.date !== 'string' || typeof file.kinds !== 'object' || file.kinds === null) {
    throw new Error('issue 14 baseline: expected {date: string, kinds: {...}}');
  }
  const kinds: Partial<Record<ValueKind, BeforeFigures>> = {};
  for (const [kind, figures] of Object.entries(file.kinds as Record<string, unknown>)) {
    if (!VALUE_KINDS.includes(kind as ValueKind)) throw new Error(`issue 14 baseline: unknown kind ${kind}`);
    const f = figures as Record<string, unknown>;
    for (const field of BEFORE_FIELDS) {
      const value = typeof f === 'object' && f !== null ? f[field] : undefined;
      if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) throw new Error(`issue 14 baseline: ${kind}.${field} must be a positive number`);
    }
    kinds[kind as ValueKind] = { sealPps: f.sealPps as number, rollupPps: f.rollupPps as number, fullBpp: f.fullBpp as number, rollupBpp: f.rollupBpp as number };
  }
  return { date: file.date, kinds };
}

/** One kind's issue-14 figures: storage against VictoriaMetrics and against before, and the constraints. */
export interface Issue14Figures {
  readonly kind: ValueKind;
  readonly fullBpp: number;
  readonly vmFullBpp: number;
  /** Strata FULL / VictoriaMetrics; the goal is <= 1. */
  readonly fullOverVm: number;
  readonly rollupBpp: number;
  readonly engineOverBlob: number;
  /** p50 of the 288-point plot (median over runs), null when the run had no such plot. */
  readonly plot288P50Ms: number | null;
  readonly sealPps: number;
  readonly rollupPps: number;
  /** Compaction after flush, points per second (new work, no before figure). */
  readonly compactPps: number;
  /** Null when the baseline has no figures for this kind. */
  readonly before: BeforeFigures | null;
  readonly beforeDate: string;
  /** Now / before; null without a baseline. */
  readonly sealOverBefore: number | null;
  readonly rollupOverBefore: number | null;
  readonly fullOverBefore: number | null;
  readonly rollupBppOverBefore: number | null;
}

/** Condenses a kind's summary into issue 14's figures. */
export function issue14Figures(s: KindSummary, baseline: Issue14Baseline): Issue14Figures {
  const before = baseline.kinds[s.kind] ?? null;
  const vmFullBpp = VM_FULL_BPP[s.kind];
  return {
    kind: s.kind,
    fullBpp: s.fullBpp,
    vmFullBpp,
    fullOverVm: s.fullBpp / vmFullBpp,
    rollupBpp: s.rollupBpp,
    engineOverBlob: s.engineOverBlob,
    plot288P50Ms: s.plots.find((p) => p.label === PLOT_288_LABEL)?.p50Ms.median ?? null,
    sealPps: s.sealPps.median,
    compactPps: s.compactPps.median,
    rollupPps: s.rollupPps.median,
    before,
    beforeDate: baseline.date,
    sealOverBefore: before === null ? null : s.sealPps.median / before.sealPps,
    rollupOverBefore: before === null ? null : s.rollupPps.median / before.rollupPps,
    fullOverBefore: before === null ? null : s.fullBpp / before.fullBpp,
    rollupBppOverBefore: before === null ? null : s.rollupBpp / before.rollupBpp,
  };
}

/** One target judged on one kind. */
export interface TargetCheck {
  readonly kind: ValueKind;
  readonly target: string;
  readonly measured: string;
  readonly met: boolean;
}

const mps = (pps: number): string => `${(pps / 1e6).toFixed(2)} M/s`;

function keptCheck(kind: ValueKind, what: string, now: number, ratio: number | null, before: number | undefined, beforeDate: string): TargetCheck {
  return {
    kind,
    target: `${what} >= ${THROUGHPUT_KEPT_MIN} x before (issue 14)`,
    measured: ratio === null || before === undefined ? `${mps(now)}, no before figure for this kind` : `${mps(now)} = ${ratio.toFixed(2)} x ${mps(before)} (before, ${beforeDate})`,
    met: ratio !== null && ratio >= THROUGHPUT_KEPT_MIN,
  };
}

/** Issue 14's checks on one kind: FULL against VictoriaMetrics, and the "while" constraints not judged elsewhere. */
function issue14Checks(f: Issue14Figures): TargetCheck[] {
  return [
    {
      kind: f.kind,
      target: `FULL <= VictoriaMetrics ${f.vmFullBpp} B/pt (lossy; issue 14)`,
      measured: `${f.fullBpp.toFixed(3)} B/pt = ${f.fullOverVm.toFixed(2)} x VM`,
      met: f.fullBpp <= f.vmFullBpp,
    },
    {
      kind: f.kind,
      target: `ingest >= ${INGEST_OVER_BLOB_MIN_ISSUE14} x blob floor (issue 14)`,
      measured: `${f.engineOverBlob.toFixed(2)} x blob floor`,
      met: f.engineOverBlob >= INGEST_OVER_BLOB_MIN_ISSUE14,
    },
    keptCheck(f.kind, 'seal throughput', f.sealPps, f.sealOverBefore, f.before?.sealPps, f.beforeDate),
    keptCheck(f.kind, 'rollup throughput', f.rollupPps, f.rollupOverBefore, f.before?.rollupPps, f.beforeDate),
  ];
}

/** Judges a kind's summary against every target that applies to it, issue 14's against `baseline`. */
export function checkTargets(s: KindSummary, baseline: Issue14Baseline): TargetCheck[] {
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
  if (ROLLUP_TARGET_KINDS.includes(s.kind)) {
    checks.push({ kind: s.kind, target: `rollup tiers <= ${ROLLUP_BPP_MAX} B/pt`, measured: `${s.rollupBpp.toFixed(3)} B/pt`, met: s.rollupBpp <= ROLLUP_BPP_MAX });
  }
  checks.push({
    kind: s.kind,
    target: `peak RSS < ${PEAK_RSS_MB_MAX} MB (engine process, batches built per write)`,
    measured: `${s.peakRssMbStreamed.toFixed(0)} MB (${s.peakRssMbPrebuilt.toFixed(0)} MB with all 2.88 M Point objects pre-built)`,
    met: s.peakRssMbStreamed < PEAK_RSS_MB_MAX,
  });
  checks.push(...issue14Checks(issue14Figures(s, baseline)));
  return checks;
}

/** The mark printed next to a number. */
export function mark(met: boolean): string {
  return met ? '✓' : '✗';
}
