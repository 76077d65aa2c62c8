// Owns the ClickHouse suite's plain-text report: the targets side by side (ratios to SQLite of the same run) and the materialized-view probe with its verdict.
import type { MvProbeResult } from './clickhouse-mv-probe.js';
import type { TargetResult } from './clickhouse-target.js';
import type { PlotMeasurement } from './engine-queries.js';
import { rate, renderTable } from './report.js';

/** The plot the issue names: 24 h at MIN5, 288 points. */
const PLOT_288 = '24h MIN5';

function plot288(plots: readonly PlotMeasurement[] | undefined): string {
  const p = plots?.find((m) => m.label === PLOT_288);
  if (p === undefined) return 'n/a';
  return `${p.latency.p50Ms.toFixed(2)} / ${p.latency.p99Ms.toFixed(2)}${p.complete ? '' : ' (incomplete!)'}`;
}

function ratio(value: number, base: number | undefined): string {
  return base === undefined || !(base > 0) ? 'n/a' : `${(value / base).toFixed(2)}x`;
}

/** The targets' table: ingest, bytes, the 288-point plot, and the ClickHouse finalization. */
export function targetsTable(targets: readonly TargetResult[]): string {
  const sqlite = targets.find((t) => t.backend === 'sqlite');
  const rows = targets.map((t) => [
    t.target,
    rate(t.ingestPointsPerSecond),
    ratio(t.ingestPointsPerSecond, sqlite?.ingestPointsPerSecond),
    rate(t.inclFlushPointsPerSecond),
    t.bytes.rawBytesPerPoint.toFixed(2),
    t.bytes.rollupBytesPerPoint.toFixed(2),
    t.bytes.allBytesPerPoint.toFixed(2),
    plot288(t.plots),
    ratio(t.plots.find((m) => m.label === PLOT_288)?.latency.p50Ms ?? NaN, sqlite?.plots.find((m) => m.label === PLOT_288)?.latency.p50Ms),
    t.finalize === null ? 'n/a' : t.finalize.flushSeconds.toFixed(2),
    t.finalize === null ? 'n/a' : plot288(t.finalize.plots),
  ]);
  return renderTable(
    ['target', 'ingest pts/s (acked)', 'of SQLite', 'incl. flush', 'raw B/pt', 'rollup B/pt', 'all B/pt', '288-pt plot p50 / p99 ms', 'p50 of SQLite', 'finalize s', 'plot after finalize ms'],
    rows,
  );
}

/** What each target's own checks found (read-back, complete plots, stored rollups against live ones). */
export function targetChecks(targets: readonly TargetResult[]): string[] {
  return targets.map((t) => {
    const parts = [`read-back ${t.readBack.exact}/${t.readBack.checked} bit-exact`, `plots ${t.plots.every((p) => p.complete) ? 'complete' : 'INCOMPLETE'}`];
    const columns = t.bytes.rawColumnBytesPerPoint;
    if (columns !== null) parts.push(`raw B/pt by column: ${Object.entries(columns).map(([name, bpp]) => `${name} ${bpp.toFixed(2)}`).join(', ')}`);
    if (t.finalize !== null) {
      const c = t.finalize.storedVsLive;
      parts.push(`stored rollups vs live: ${c.identical}/${c.buckets} identical, ${c.close}/${c.buckets} within 1e-12`);
      parts.push(`finalize flush ${t.finalize.flushSeconds.toFixed(2)} s = ${rate(t.points / t.finalize.flushSeconds)} source pts/s`);
    }
    return `  ${t.target}: ${parts.join('; ')}`;
  });
}

function share(n: number, of: number): string {
  return `${n.toLocaleString('en-US')} of ${of.toLocaleString('en-US')} (${((100 * n) / of).toFixed(1)} %)`;
}

/** The MV probe's table and its verdict against Strata-computed rollups (the 1-shard finalization of the same run). */
export function probeText(probe: MvProbeResult, oneShard: TargetResult | undefined): string {
  const after = probe.afterRewrite;
  const rows = [
    ['ReplacingMergeTree only', rate(probe.plainPointsPerSecond), '1.00x', 'n/a', 'n/a'],
    [
      '+ 5 AggregatingMergeTree MVs',
      rate(probe.mvPointsPerSecond),
      ratio(probe.mvPointsPerSecond, probe.plainPointsPerSecond),
      probe.mvRollupBytesPerPoint.toFixed(2),
      share(after.wrongBuckets, after.rawBuckets),
    ],
  ];
  const lines = [
    `MV probe (1 shard, local tables, ${probe.points.toLocaleString('en-US')} points in ${probe.batches} RowBinary inserts, median of ${probe.runs.length / 2} runs each):`,
    renderTable(['raw table', 'ingest pts/s', 'of plain', 'rollup B/pt', 'wrong MIN5 buckets after 1 % rewrite'], rows),
    `  before the rewrite: ${probe.beforeRewrite.wrongBuckets} wrong MIN5 buckets of ${probe.beforeRewrite.rawBuckets.toLocaleString('en-US')}; ` +
      `after rewriting ${probe.rewrittenPoints.toLocaleString('en-US')} points (${probe.bucketsWithRewrites.toLocaleString('en-US')} buckets hold one): ` +
      `count differs in ${after.countDiffers}, average in ${after.averageDiffers}, varPop in ${after.varianceDiffers}, min/max in ${after.minMaxDiffers}`,
  ];
  const f = oneShard?.finalize;
  if (oneShard !== undefined && f !== undefined && f !== null) {
    lines.push(
      `  Strata-computed rollups (1 shard, this run): ingest is not slowed (the store's ${rate(oneShard.ingestPointsPerSecond)} pts/s); ` +
        `the day finalization took ${f.flushSeconds.toFixed(2)} s for ${oneShard.points.toLocaleString('en-US')} points, once per day, off the ingest path; ` +
        `rollup tables ${f.rollupBytesPerPoint.toFixed(2)} B/pt; stored answers ${f.storedVsLive.identical}/${f.storedVsLive.buckets} identical to the live ones.`,
    );
  }
  return lines.join('\n');
}
