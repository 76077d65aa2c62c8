// Owns the chart: a uPlot wrapper drawing each metric's average as a line and min/max as a band, the pure alignment of API values, and the test inspection hook.
import uPlot from 'uplot';

/** One plotted metric: values aligned with PlotData.timestamps (null = no value there). */
export interface PlotSeries {
  readonly metric: string;
  readonly unit: string;
  readonly average: readonly (number | null)[];
  readonly min: readonly (number | null)[];
  readonly max: readonly (number | null)[];
}

/** What a plot draws: x in ms, ascending; one PlotSeries per metric. */
export interface PlotData {
  readonly timestamps: readonly number[];
  readonly series: readonly PlotSeries[];
  /** The range asked for, [from, to) in ms: the x axis spans it, so missing or sparse data shows as such (else the axis fits the data). */
  readonly range?: { readonly from: number; readonly to: number };
}

/** A chart in `container` (its width follows the container); registers itself in window.strataConsole.plots under plotId. */
export interface PlotChart {
  render(data: PlotData): void;
  /** Width in CSS px the plot area has now (for auto points). */
  width(): number;
  destroy(): void;
}

/** What the inspection hook exposes per plot: the data as drawn, x in ms. */
export interface PlotInspection {
  readonly chart: uPlot;
  readonly metrics: string[];
  readonly timestamps: number[];
  readonly series: { metric: string; average: (number | null)[]; min: (number | null)[]; max: (number | null)[] }[];
}

declare global {
  interface Window {
    /** Test and debugging hook: every plot on the page by its container's data-plot-id (documented in the README). */
    strataConsole?: { plots: Map<string, PlotInspection> };
  }
}

/** Height of the drawing area with its axes, in CSS px (the legend comes below). */
export const PLOT_HEIGHT_PX = 300;
/** Smallest width a chart is drawn at, so a hidden or collapsed container still yields a chart. */
const PLOT_WIDTH_MIN_PX = 200;
/** Opacity of a metric's min/max band. */
const BAND_ALPHA = 0.16;
/** Opacity of the band's min and max edge lines. */
const BAND_EDGE_ALPHA = 0.45;
/** Width of a metric's average line, in CSS px. */
const LINE_WIDTH_PX = 1.5;
/** Width of the band's edge lines, in CSS px. */
const BAND_EDGE_WIDTH_PX = 0.5;
/** The CSS custom properties (styles.css) giving the axes' and the grid's colours; uPlot's defaults apply when they are not set. */
const AXIS_COLOR_PROPERTY = '--axis';
const GRID_COLOR_PROPERTY = '--line';
/** uPlot's side numbers for a y axis: left and right. */
const AXIS_SIDE_LEFT = 3;
const AXIS_SIDE_RIGHT = 1;
/** How many units get a y axis of their own (the others are drawn on unlabelled scales). */
const Y_AXES_MAX = 2;
/** Line colours, in the order metrics are added (chosen to stay apart on a light background). */
const PALETTE = ['#2563eb', '#dc2626', '#059669', '#d97706', '#7c3aed', '#0891b2', '#db2777', '#4d7c0f', '#9a3412', '#475569'] as const;

/** Aligns API values ({timestamp, average, min, max}) of several metrics onto one ascending timestamp axis (pure; property-tested). */
export function alignSeries(
  metrics: readonly { metric: string; unit: string; values: readonly { timestamp: number; average?: number | null; min?: number | null; max?: number | null }[] }[],
): PlotData {
  const all = new Set<number>();
  for (const { values } of metrics) for (const value of values) all.add(value.timestamp);
  const timestamps = [...all].sort((a, b) => a - b);
  const index = new Map(timestamps.map((timestamp, i) => [timestamp, i]));
  const series = metrics.map(({ metric, unit, values }) => {
    const average: (number | null)[] = new Array<number | null>(timestamps.length).fill(null);
    const min = average.slice();
    const max = average.slice();
    const seen = new Set<number>();
    for (const value of values) {
      // A timestamp given twice keeps its first value: an API never does it, and the first is as good as any.
      if (seen.has(value.timestamp)) continue;
      seen.add(value.timestamp);
      const i = index.get(value.timestamp) as number;
      average[i] = finiteOrNull(value.average);
      min[i] = finiteOrNull(value.min);
      max[i] = finiteOrNull(value.max);
    }
    return { metric, unit, average, min, max };
  });
  return { timestamps, series };
}

function finiteOrNull(value: number | null | undefined): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** The colour of the n-th metric. */
export function seriesColor(n: number): string {
  return PALETTE[n % PALETTE.length] as string;
}

function translucent(hex: string, alpha: number): string {
  const rgb = [1, 3, 5].map((at) => Number.parseInt(hex.slice(at, at + 2), 16));
  return `rgba(${rgb.join(', ')}, ${alpha})`;
}

function unitLabel(unit: string): string {
  return unit === '' || unit === 'unknown' ? '' : unit;
}

const numberFormat = new Intl.NumberFormat(undefined, { maximumSignificantDigits: 6 });

function formatted(value: number | null | undefined): string {
  return value === null || value === undefined ? '–' : numberFormat.format(value);
}

/** The legend text of a metric at the cursor: "avg (min–max)". */
function legendValue(chart: uPlot, averageIndex: number, value: number | null, idx: number | null): string {
  if (idx === null || value === null) return '–';
  const min = chart.data[averageIndex + 1]?.[idx];
  const max = chart.data[averageIndex + 2]?.[idx];
  return `${formatted(value)} (${formatted(min)} – ${formatted(max)})`;
}

/** The axes' and grid's colours, read from the page's CSS custom properties (undefined when a property is not set). */
interface AxisColors {
  readonly axis: string | undefined;
  readonly grid: string | undefined;
}

function cssColor(element: Element, property: string): string | undefined {
  const value = getComputedStyle(element).getPropertyValue(property).trim();
  return value === '' ? undefined : value;
}

function axisColorsOf(element: Element): AxisColors {
  return { axis: cssColor(element, AXIS_COLOR_PROPERTY), grid: cssColor(element, GRID_COLOR_PROPERTY) };
}

/** An axis's stroke and grid (uPlot's defaults for colours that are not set). */
function axisStyle(colors: AxisColors, showGrid: boolean): Pick<uPlot.Axis, 'stroke' | 'grid'> {
  return { ...(colors.axis !== undefined ? { stroke: colors.axis } : {}), grid: { show: showGrid, ...(colors.grid !== undefined ? { stroke: colors.grid } : {}) } };
}

/** uPlot options for the metrics of `data`: per unit one y scale (the first Y_AXES_MAX get an axis), per metric a line and a band. */
function chartOptions(data: PlotData, widthPx: number, title: string | undefined, xRange: () => PlotData['range'], colors: AxisColors): uPlot.Options {
  const units = [...new Set(data.series.map((s) => s.unit))];
  const series: uPlot.Series[] = [{ label: 'time' }];
  const bands: uPlot.Band[] = [];
  data.series.forEach((s, n) => {
    const color = seriesColor(n);
    const unit = unitLabel(s.unit);
    const scale = `y:${s.unit}`;
    const base = series.length;
    // One legend entry per metric: its average, with min–max beside it at the cursor; the band edges' own entries are hidden by CSS.
    series.push({ label: unit === '' ? s.metric : `${s.metric} (${unit})`, stroke: color, width: LINE_WIDTH_PX, scale, spanGaps: false, value: (chart, value, _i, idx) => legendValue(chart, base, value, idx) });
    series.push({ label: `${s.metric} min`, class: 'band-edge', stroke: translucent(color, BAND_EDGE_ALPHA), width: BAND_EDGE_WIDTH_PX, scale });
    series.push({ label: `${s.metric} max`, class: 'band-edge', stroke: translucent(color, BAND_EDGE_ALPHA), width: BAND_EDGE_WIDTH_PX, scale });
    bands.push({ series: [base + 2, base + 1], fill: translucent(color, BAND_ALPHA) });
  });
  const scales: uPlot.Scales = {
    x: {
      time: true,
      range: (_chart, min, max) => {
        const range = xRange();
        return range === undefined ? [min, max] : [range.from, range.to];
      },
    },
  };
  for (const unit of units) scales[`y:${unit}`] = { auto: true };
  const axes: uPlot.Axis[] = [axisStyle(colors, true)];
  units.slice(0, Y_AXES_MAX).forEach((unit, i) => {
    axes.push({ scale: `y:${unit}`, side: i === 0 ? AXIS_SIDE_LEFT : AXIS_SIDE_RIGHT, label: unitLabel(unit), ...axisStyle(colors, i === 0) });
  });
  return {
    ...(title !== undefined ? { title } : {}),
    width: widthPx,
    height: PLOT_HEIGHT_PX,
    // x values are ms, as the APIs give them: no conversion, so the hook shows what is drawn.
    ms: 1,
    series,
    bands,
    scales,
    axes,
    legend: { live: true },
    cursor: { drag: { x: false, y: false } },
  };
}

function uplotData(data: PlotData): uPlot.AlignedData {
  const columns: (number | null)[][] = [];
  for (const s of data.series) columns.push([...s.average], [...s.min], [...s.max]);
  return [[...data.timestamps], ...columns];
}

function inspectionOf(chart: uPlot, data: PlotData): PlotInspection {
  return {
    chart,
    metrics: data.series.map((s) => s.metric),
    timestamps: [...data.timestamps],
    series: data.series.map((s) => ({ metric: s.metric, average: [...s.average], min: [...s.min], max: [...s.max] })),
  };
}

function plotRegistry(): Map<string, PlotInspection> {
  window.strataConsole ??= { plots: new Map() };
  return window.strataConsole.plots;
}

/** A chart in `container` (its width follows the container); registers itself in window.strataConsole.plots under plotId. */
export function createPlotChart(container: HTMLElement, plotId: string, title?: string): PlotChart {
  container.dataset.plotId = plotId;
  const host = document.createElement('div');
  host.className = 'plot-canvas';
  container.appendChild(host);
  let chart: uPlot | undefined;
  let shape = '';
  let xRange: PlotData['range'];
  const contentWidth = (): number => {
    const style = getComputedStyle(container);
    return Math.floor(container.clientWidth - parseFloat(style.paddingLeft || '0') - parseFloat(style.paddingRight || '0'));
  };
  const widthNow = (): number => Math.max(PLOT_WIDTH_MIN_PX, contentWidth());
  // Resizing inside the observer's callback changes the observed box again in the same frame,
  // which browsers report as a "ResizeObserver loop" error; the next frame is soon enough.
  let resizeFrame: number | undefined;
  const observer = new ResizeObserver(() => {
    if (resizeFrame !== undefined) return;
    resizeFrame = requestAnimationFrame(() => {
      resizeFrame = undefined;
      if (chart !== undefined && chart.width !== widthNow()) chart.setSize({ width: widthNow(), height: PLOT_HEIGHT_PX });
    });
  });
  observer.observe(container);
  return {
    render(data) {
      // Same metrics and units: new data into the same chart; otherwise series and scales differ, so rebuild.
      xRange = data.range;
      const nextShape = JSON.stringify(data.series.map((s) => [s.metric, s.unit]));
      if (chart === undefined || nextShape !== shape) {
        chart?.destroy();
        chart = new uPlot(chartOptions(data, widthNow(), title, () => xRange, axisColorsOf(container)), uplotData(data), host);
        shape = nextShape;
      } else {
        chart.setData(uplotData(data));
      }
      plotRegistry().set(plotId, inspectionOf(chart, data));
    },
    width: () => Math.max(0, contentWidth()),
    destroy() {
      observer.disconnect();
      if (resizeFrame !== undefined) cancelAnimationFrame(resizeFrame);
      // Another chart may have taken the id since (a page remounted): remove only this one's entry.
      if (chart !== undefined && window.strataConsole?.plots.get(plotId)?.chart === chart) window.strataConsole.plots.delete(plotId);
      chart?.destroy();
      chart = undefined;
      host.remove();
    },
  };
}
