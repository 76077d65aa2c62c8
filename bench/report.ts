// Owns the bench's plain-text report: the tables of ingest, flush, queries, bytes, encodings, issue 14 and memory, and the target verdicts.
import { BUCKET_STATS, sharesOf, type EncodingHistogram, type Tally } from './encoding-histogram.js';
import type { Spread } from './spread.js';
import type { KindSummary } from './summary.js';
import {
  FULL_BPP_MAX,
  INGEST_OVER_BLOB_MIN,
  INGEST_OVER_BLOB_MIN_ISSUE14,
  INGEST_PPS_MIN,
  mark,
  PEAK_RSS_MB_MAX,
  PLOT_288_LABEL,
  QUERY_P50_MS_MAX,
  ROLLUP_BPP_MAX,
  ROLLUP_TARGET_KINDS,
  THROUGHPUT_KEPT_MIN,
  VM_FULL_BPP,
  type Issue14Figures,
  type TargetCheck,
} from './targets.js';

/** Columns left-aligned by default: the first. */
const FIRST_COLUMN: ReadonlySet<number> = new Set([0]);

/** Renders rows as a plain-text table: the `leftAligned` columns (default the first) left-aligned, the others right-aligned. */
export function renderTable(header: readonly string[], rows: readonly (readonly string[])[], leftAligned: ReadonlySet<number> = FIRST_COLUMN): string {
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => (r[c] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells.map((cell, c) => (leftAligned.has(c) ? cell.padEnd(widths[c] as number) : cell.padStart(widths[c] as number))).join('  ').trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(header), rule, ...rows.map(line)].join('\n');
}

/** Shown where a number was not measured (the row floor of nab). */
const NOT_MEASURED = 'n/a';

/** Points per second as "6.31 M" or "152 k". */
export function rate(pps: number): string {
  if (Number.isNaN(pps)) return NOT_MEASURED;
  return pps >= 1e6 ? `${(pps / 1e6).toFixed(2)} M` : `${(pps / 1e3).toFixed(0)} k`;
}

function rateSpread(s: Spread): string {
  return s.runs.length > 1 ? `${rate(s.median)} (${rate(s.min)}–${rate(s.max)})` : rate(s.median);
}

function fixed(value: number, digits: number, suffix = ''): string {
  return Number.isNaN(value) ? NOT_MEASURED : `${value.toFixed(digits)}${suffix}`;
}

function ms(value: number): string {
  return value.toFixed(3);
}

function bpp(value: number): string {
  return fixed(value, 2);
}

function ingestTable(kinds: readonly KindSummary[]): string {
  const rows = kinds.map((s) => [
    s.kind,
    rateSpread(s.rowFloorPps),
    rateSpread(s.blobFloorPps),
    rateSpread(s.enginePps),
    `${s.engineOverBlob.toFixed(2)}x`,
    fixed(s.engineOverRow, 1, 'x'),
    rateSpread(s.inclFlushPps),
    mark(s.enginePps.median >= INGEST_PPS_MIN && s.engineOverBlob >= INGEST_OVER_BLOB_MIN),
  ]);
  return renderTable(
    ['kind', 'row floor pts/s', 'blob floor pts/s', 'engine ingest pts/s', 'eng/blob', 'eng/row', 'ingest incl. flush', `>= ${INGEST_PPS_MIN / 1e6} M & >= ${INGEST_OVER_BLOB_MIN}x blob`],
    rows,
  );
}

function flushTable(kinds: readonly KindSummary[]): string {
  const rows = kinds.map((s) => [
    s.kind,
    rateSpread(s.sealPps),
    rateSpread(s.rollupPps),
    s.rolledUpSourcePoints === null ? 'n/a' : s.rolledUpSourcePoints.toLocaleString('en-US'),
    s.sealSplitClean ? 'yes' : 'NO (seal and rollup overlap)',
  ]);
  return renderTable(['kind', 'seal raw pts/s', 'rollup raw pts/s (5 levels)', 'source pts+buckets rolled', 'seal done before rollups'], rows);
}

function queryTable(kinds: readonly KindSummary[]): string {
  const rows = kinds.flatMap((s) =>
    s.plots.map((p) => [
      s.kind,
      p.label,
      `${ms(p.p50Ms.median)} (${ms(p.p50Ms.min)}–${ms(p.p50Ms.max)})`,
      `${ms(p.p99Ms.median)} (${ms(p.p99Ms.min)}–${ms(p.p99Ms.max)})`,
      p.valuesMin === p.valuesMax ? String(p.valuesMin) : `${p.valuesMin}–${p.valuesMax}`,
      p.complete ? 'yes' : 'NO',
      mark(p.p50Ms.median < QUERY_P50_MS_MAX),
    ]),
  );
  return renderTable(['kind', 'plot', 'p50 ms', 'p99 ms', 'values', 'all points counted', `p50 < ${QUERY_P50_MS_MAX} ms`], rows);
}

function bytesTable(kinds: readonly KindSummary[]): string {
  const rows = kinds.map((s) => {
    const fullMax = FULL_BPP_MAX[s.kind];
    const vm = VM_FULL_BPP[s.kind];
    const tiers = ['MIN5', 'MIN20', 'MIN60', 'MIN240', 'MIN1440'].map((r) => bpp(s.rollupBppByRes[r] ?? NaN)).join(' / ');
    return [
      s.kind,
      fullMax === undefined ? bpp(s.fullBpp) : `${bpp(s.fullBpp)} ${mark(s.fullBpp <= fullMax)} <= ${fullMax}`,
      bpp(vm),
      `${fixed(s.fullBpp / vm, 2, 'x')} ${mark(s.fullBpp <= vm)}`,
      bpp(s.fullPayloadBpp),
      `${bpp(s.rollupBpp)} ${ROLLUP_TARGET_KINDS.includes(s.kind) ? `${mark(s.rollupBpp <= ROLLUP_BPP_MAX)} <= ${ROLLUP_BPP_MAX}` : '(no target)'}`,
      tiers,
      bpp(s.dirBpp),
      bpp(s.rowFloorBpp),
      bpp(s.blobFloorBpp),
    ];
  });
  return renderTable(
    ['kind', 'FULL B/pt', 'VM B/pt (lossy)', 'FULL / VM (<= 1)', 'FULL chunk payload', 'rollup tiers B/pt', 'MIN5 / 20 / 60 / 240 / 1440', 'whole dir', 'row floor', 'blob floor'],
    rows,
  );
}

/** Shares of rows as "none/xor 97.1 %, brotli/xor 2.9 %", most rows first. */
function sharesText(byKey: Readonly<Record<string, Tally>>): string {
  const shares = sharesOf(byKey);
  return shares.length === 0 ? NOT_MEASURED : shares.map((s) => `${s.key} ${(s.share * 100).toFixed(1)} %`).join(', ');
}

function encodingRows(kind: string, h: EncodingHistogram): string[][] {
  const full = h.full.rows.toLocaleString('en-US');
  const rollup = h.rollup.rows.toLocaleString('en-US');
  const rows = [
    [kind, 'FULL', full, 'entropy/values', sharesText(h.fullByEncoding)],
    [kind, 'rollups', rollup, 'entropy', sharesText(h.rollupByEntropy)],
    ...BUCKET_STATS.map((stat) => [kind, 'rollups', rollup, stat, sharesText(h.rollupByStat[stat])]),
  ];
  if (h.undecodable.rows > 0) rows.push([kind, 'UNDECODABLE', h.undecodable.rows.toLocaleString('en-US'), 'first error', h.firstError ?? '']);
  return rows;
}

/** The encoding table's text columns (kind, rows of, column, shares), left-aligned; the row count is right-aligned. */
const ENCODING_TEXT_COLUMNS: ReadonlySet<number> = new Set([0, 1, 3, 4]);

function encodingTable(kinds: readonly KindSummary[]): string {
  return renderTable(['kind', 'rows of', 'rows', 'column', 'share of rows'], kinds.flatMap((s) => encodingRows(s.kind, s.encodings)), ENCODING_TEXT_COLUMNS);
}

function pooledRuns(runs: number): string {
  return runs === 1 ? 'one timed run' : `${runs} timed runs pooled`;
}

/** "0.93x ✓" for a ratio that must stay at or above `min`, "n/a" without one. */
function keptText(ratio: number | null, min: number): string {
  return ratio === null ? NOT_MEASURED : `${ratio.toFixed(2)}x ${mark(ratio >= min)}`;
}

function issue14Table(figures: readonly Issue14Figures[]): string {
  const rows = figures.map((f) => [
    f.kind,
    `${bpp(f.fullBpp)} / ${bpp(f.vmFullBpp)} = ${f.fullOverVm.toFixed(2)}x ${mark(f.fullBpp <= f.vmFullBpp)}`,
    `${bpp(f.rollupBpp)} ${mark(f.rollupBpp <= ROLLUP_BPP_MAX)}`,
    f.before === null ? NOT_MEASURED : `${bpp(f.before.fullBpp)} → ${bpp(f.fullBpp)} (${fixed(f.fullOverBefore ?? NaN, 2, 'x')})`,
    f.before === null ? NOT_MEASURED : `${bpp(f.before.rollupBpp)} → ${bpp(f.rollupBpp)} (${fixed(f.rollupBppOverBefore ?? NaN, 2, 'x')})`,
    `${f.engineOverBlob.toFixed(2)}x ${mark(f.engineOverBlob >= INGEST_OVER_BLOB_MIN_ISSUE14)}`,
    f.plot288P50Ms === null ? NOT_MEASURED : `${ms(f.plot288P50Ms)} ${mark(f.plot288P50Ms < QUERY_P50_MS_MAX)}`,
    `${rate(f.sealPps)} = ${keptText(f.sealOverBefore, THROUGHPUT_KEPT_MIN)}`,
    `${rate(f.rollupPps)} = ${keptText(f.rollupOverBefore, THROUGHPUT_KEPT_MIN)}`,
    rate(f.compactPps),
  ]);
  return renderTable(
    [
      'kind',
      'FULL / VM B/pt (<= 1x)',
      `rollup B/pt (<= ${ROLLUP_BPP_MAX})`,
      'FULL before → now',
      'rollup before → now',
      `eng/blob (>= ${INGEST_OVER_BLOB_MIN_ISSUE14}x)`,
      `${PLOT_288_LABEL} p50 ms (< ${QUERY_P50_MS_MAX})`,
      `seal pts/s, x before (>= ${THROUGHPUT_KEPT_MIN})`,
      `rollup pts/s, x before (>= ${THROUGHPUT_KEPT_MIN})`,
      'compaction pts/s',
    ],
    rows,
  );
}

function memoryTable(kinds: readonly KindSummary[]): string {
  const rows = kinds.map((s) => [
    s.kind,
    `${s.peakRssMbStreamed.toFixed(0)} ${mark(s.peakRssMbStreamed < PEAK_RSS_MB_MAX)}`,
    s.workloadRssMbStreamed.toFixed(0),
    s.peakRssMbPrebuilt.toFixed(0),
    s.workloadRssMbPrebuilt.toFixed(0),
    fixed(s.rowFloorRssMb, 0),
    s.blobFloorRssMb.toFixed(0),
    s.readBack,
  ]);
  return renderTable(
    ['kind', `engine peak RSS MB (< ${PEAK_RSS_MB_MAX})`, 'of it before open', 'peak, batches pre-built', 'of it before open', 'row floor', 'blob floor', 'FULL read-back exact'],
    rows,
  );
}

/** The whole report: the tables (issue 14's against `issue14`, one entry per kind) and every target's verdict. */
export function renderReport(kinds: readonly KindSummary[], checks: readonly TargetCheck[], runsNote: string, issue14: readonly Issue14Figures[]): string {
  const missed = checks.filter((c) => !c.met);
  const verdicts = checks.map((c) => `  ${mark(c.met)} ${c.kind.padEnd(7)} ${c.target}: ${c.measured}`);
  return [
    `Ingest (${runsNote}; median (min–max))`,
    ingestTable(kinds),
    '',
    'Flush: seal = flush() up to its first await (every head window sealed); rollup = the rest (five levels on 1 worker)',
    flushTable(kinds),
    '',
    'Query latency, ms: 200 sequential queries of random seeded series after 5 warm-ups, ranges ending at the data end, average+min+max',
    queryTable(kinds),
    '',
    'Bytes per raw point: du --block-size=1 (sum of st_blocks*512) after close() / points; VM = VictoriaMetrics 1.79.5, whole data dir, 12 significant digits kept (peer-results.md, 2026-11-22)',
    bytesTable(kinds),
    '',
    `Encodings the rows chose after close(), share of rows (${pooledRuns(kinds[0]?.encodingRuns ?? 0)}): FULL chunks by entropy stage/value scheme; the five rollup tiers by entropy stage and by each stat column's scheme`,
    encodingTable(kinds),
    '',
    `Issue 14: storage against VictoriaMetrics and before (${issue14[0]?.beforeDate ?? 'no baseline'}, bench/baselines/issue14-before.json), while ingest, the 288-point plot and flush hold`,
    issue14Table(issue14),
    '',
    'Memory: peak RSS of each measurement process (process.resourceUsage().maxRSS)',
    memoryTable(kinds),
    '',
    `Targets: ${checks.length - missed.length}/${checks.length} met`,
    ...verdicts,
  ].join('\n');
}
