// Owns the chart bench's figures: the per-run timing shape, medians, and the printed table (first draw, redraw, Chart.js/uPlot ratios, bundle bytes).
import type { BundledPages, ChartLibrary } from './console-charts-pages.js';
import { renderTable } from './report.js';

/** One timed draw, measured in the page with performance.now(). */
export interface DrawTiming {
  /** API shape → library shape. */
  readonly convertMs: number;
  /** Convert + create/update until the library's draw hook ran. */
  readonly drawnMs: number;
  /** drawnMs + a 1-pixel getImageData: the figure the table shows. */
  readonly totalMs: number;
}

/** Every run of one library on one shape. */
export interface ChartShapeResult {
  readonly library: ChartLibrary;
  readonly k: number;
  readonly n: number;
  readonly warmups: readonly DrawTiming[];
  readonly first: readonly DrawTiming[];
  readonly redraw: readonly DrawTiming[];
  /** Non-transparent pixels of the first timed chart's canvas (0 would mean nothing was drawn). */
  readonly inkedPixels: number;
}

/** The median (mean of the middle two for an even count); NaN when empty. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

function ms(value: number): string {
  return value < 10 ? value.toFixed(2) : value.toFixed(1);
}

function kib(bytes: number): string {
  return (bytes / 1024).toFixed(1);
}

/** Chart.js over uPlot of the same shape's medians: first draw / redraw. */
export function chartRatios(shapes: readonly ChartShapeResult[], k: number, n: number): { first: number; redraw: number } {
  const of = (library: ChartLibrary) => shapes.find((s) => s.library === library && s.k === k && s.n === n);
  const u = of('uplot');
  const c = of('chart.js');
  if (u === undefined || c === undefined) return { first: NaN, redraw: NaN };
  const p50 = (runs: readonly DrawTiming[]) => median(runs.map((t) => t.totalMs));
  return { first: p50(c.first) / p50(u.first), redraw: p50(c.redraw) / p50(u.redraw) };
}

/** The table: per library and shape, the medians, Chart.js/uPlot (on Chart.js's rows) and the page script's bytes. */
export function consoleChartsTable(shapes: readonly ChartShapeResult[], bundles: BundledPages): string {
  const rows = shapes.map((s) => {
    const ratio = chartRatios(shapes, s.k, s.n);
    const script = bundles.scripts[s.library];
    return [
      s.library,
      `${s.k}×${s.n}`,
      ms(median(s.first.map((t) => t.totalMs))),
      ms(median(s.redraw.map((t) => t.totalMs))),
      s.library === 'chart.js' ? `${ratio.first.toFixed(2)}× / ${ratio.redraw.toFixed(2)}×` : '1 (base)',
      `${kib(script.bytes)} / ${kib(script.gzipBytes)}`,
    ];
  });
  const harness = bundles.scripts.harness;
  return [
    renderTable(['library', 'K×N', 'first draw ms p50', 'redraw ms p50', 'chart.js/uplot first / redraw', 'script KiB min / gzip'], rows),
    `Script bytes include the shared bench harness (${kib(harness.bytes)} / ${kib(harness.gzipBytes)} KiB alone); uPlot also needs its CSS (${kib(bundles.uplotCssBytes)} KiB, not counted).`,
  ].join('\n');
}
