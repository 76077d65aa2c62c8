// Owns the bench's plain-text report: the tables of ingest, flush, queries, bytes and memory, and the target verdicts.
import type { Spread } from './spread.js';
import type { KindSummary } from './summary.js';
import { BYTE_TARGET_KINDS, FULL_BPP_MAX, INGEST_OVER_BLOB_MIN, INGEST_PPS_MIN, mark, PEAK_RSS_MB_MAX, QUERY_P50_MS_MAX, ROLLUP_BPP_MAX, type TargetCheck } from './targets.js';

/** Renders rows as a plain-text table: first column left-aligned, the others right-aligned. */
export function renderTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => (r[c] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells.map((cell, c) => (c === 0 ? cell.padEnd(widths[c] as number) : cell.padStart(widths[c] as number))).join('  ').trimEnd();
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
    const tiers = ['MIN5', 'MIN20', 'MIN60', 'MIN240', 'MIN1440'].map((r) => bpp(s.rollupBppByRes[r] ?? NaN)).join(' / ');
    return [
      s.kind,
      `${bpp(s.fullBpp)} ${fullMax === undefined ? '(no target)' : `${mark(s.fullBpp <= fullMax)} <= ${fullMax}`}`,
      bpp(s.fullPayloadBpp),
      `${bpp(s.rollupBpp)} ${BYTE_TARGET_KINDS.includes(s.kind) ? `${mark(s.rollupBpp <= ROLLUP_BPP_MAX)} <= ${ROLLUP_BPP_MAX}` : '(no target)'}`,
      tiers,
      bpp(s.dirBpp),
      bpp(s.rowFloorBpp),
      bpp(s.blobFloorBpp),
    ];
  });
  return renderTable(['kind', 'FULL B/pt', 'FULL chunk payload', 'rollup tiers B/pt', 'MIN5 / 20 / 60 / 240 / 1440', 'whole dir', 'row floor', 'blob floor'], rows);
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

/** The whole report: five tables and the list of targets not met. */
export function renderReport(kinds: readonly KindSummary[], checks: readonly TargetCheck[], runsNote: string): string {
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
    'Bytes per raw point: du --block-size=1 (sum of st_blocks*512) after close() / points',
    bytesTable(kinds),
    '',
    'Memory: peak RSS of each measurement process (process.resourceUsage().maxRSS)',
    memoryTable(kinds),
    '',
    `Targets: ${checks.length - missed.length}/${checks.length} met`,
    ...verdicts,
  ].join('\n');
}
