// Owns the drawn-points check of the console's browser test: where uPlot puts a value on its canvas, and which colour the canvas has there.
import type { Page } from 'playwright-core';
import { SAW_LEVEL_VALUE, SAW_LEVELS, sawLevel } from './console-seed.js';

/** Half the side of the square searched around a point's position, in canvas pixels (antialiasing and the line width). */
export const NEIGHBOURHOOD_RADIUS_PX = 2;
/** Largest RGB distance (Euclidean, 0..441) at which a pixel still counts as the stroke colour. */
export const COLOUR_DISTANCE_MAX = 60;
/** Smallest alpha (0..255) of a pixel that counts as drawn: the canvas is transparent where nothing is drawn. */
export const DRAWN_ALPHA_MIN = 128;

/** A value pair to probe: an x and a y in the chart's own scale units. */
export interface Probe {
  readonly x: number;
  readonly y: number;
}

/** What the canvas holds around one probe. */
export interface ProbeResult {
  readonly probe: Probe;
  /** The position in canvas pixels: valToPos (CSS px in the plot area) times devicePixelRatio plus the plot's offset. */
  readonly canvasX: number;
  readonly canvasY: number;
  /** The same position by uPlot's canvas-pixel form of valToPos: must agree with the above. */
  readonly uplotX: number;
  readonly uplotY: number;
  /** RGBA at the position itself. */
  readonly centre: readonly number[];
  /** Smallest RGB distance to the stroke colour among drawn pixels of the neighbourhood (Infinity when none is drawn). */
  readonly nearest: number;
}

/** The average series of one metric as uPlot holds it, and the probes' pixels. */
export interface PixelReport {
  /** Index of the uPlot series whose data is the metric's average and whose stroke is opaque. */
  readonly seriesIndex: number;
  /** The stroke colour as RGBA (parsed by the browser's own canvas). */
  readonly stroke: readonly number[];
  readonly devicePixelRatio: number;
  /** The canvas size in device pixels. */
  readonly canvasWidth: number;
  readonly canvasHeight: number;
  /** uPlot's x values (ms here) and the chosen series' y values, as drawn. */
  readonly xs: readonly number[];
  readonly ys: readonly (number | null)[];
  readonly results: readonly ProbeResult[];
}

interface PixelArgs {
  readonly plotId: string;
  readonly metric: string;
  readonly probes: readonly Probe[];
  readonly radius: number;
  readonly drawnAlphaMin: number;
}

/**
 * Reads, in the page, the plot `plotId` of window.strataConsole.plots: finds the uPlot series
 * drawing `metric`'s average, turns each probe into canvas pixels with valToPos (x and y scales)
 * times devicePixelRatio plus the plot area's offset, and reads the canvas there with getImageData.
 * Every function here is an arrow assigned to a const: the body is serialized into the page.
 */
export async function readPixels(page: Page, plotId: string, metric: string, probes: readonly Probe[]): Promise<PixelReport> {
  const args: PixelArgs = { plotId, metric, probes, radius: NEIGHBOURHOOD_RADIUS_PX, drawnAlphaMin: DRAWN_ALPHA_MIN };
  return page.evaluate((a: PixelArgs) => {
    const entry = (window as any).strataConsole?.plots?.get(a.plotId);
    if (entry === undefined) throw new Error(`no plot ${a.plotId} in window.strataConsole.plots`);
    const u = entry.chart;
    const wanted = entry.series.find((s: any) => s.metric === a.metric);
    if (wanted === undefined) throw new Error(`plot ${a.plotId} has no series for ${a.metric}`);
    const probe = document.createElement('canvas').getContext('2d', { willReadFrequently: true }) as CanvasRenderingContext2D;
    const rgbaOf = (colour: string): number[] => {
      probe.clearRect(0, 0, 1, 1);
      probe.fillStyle = colour;
      probe.fillRect(0, 0, 1, 1);
      return [...probe.getImageData(0, 0, 1, 1).data];
    };
    const same = (xs: readonly (number | null | undefined)[], ys: readonly (number | null)[]): boolean =>
      xs.length === ys.length && xs.every((x, i) => (x ?? null) === ys[i]);
    let seriesIndex = -1;
    let stroke: number[] = [];
    for (let k = 1; k < u.series.length && seriesIndex < 0; k++) {
      const s = u.series[k];
      const colour = typeof s.stroke === 'function' ? s.stroke(u, k) : s.stroke;
      if (typeof colour !== 'string' || s.show === false || !same(u.data[k], wanted.average)) continue;
      const rgba = rgbaOf(colour);
      if ((rgba[3] as number) < 250) continue;
      seriesIndex = k;
      stroke = rgba;
    }
    if (seriesIndex < 0) throw new Error(`no opaque uPlot series of plot ${a.plotId} holds the average of ${a.metric}`);
    const canvas: HTMLCanvasElement = u.ctx.canvas;
    const ctx = canvas.getContext('2d') as CanvasRenderingContext2D;
    const ratio = window.devicePixelRatio;
    const scaleY = u.series[seriesIndex].scale;
    const results = a.probes.map((p) => {
      const canvasX = Math.round(u.valToPos(p.x, 'x') * ratio + u.bbox.left);
      const canvasY = Math.round(u.valToPos(p.y, scaleY) * ratio + u.bbox.top);
      const r = a.radius;
      const pixels = ctx.getImageData(canvasX - r, canvasY - r, 2 * r + 1, 2 * r + 1).data;
      let nearest = Infinity;
      for (let i = 0; i < pixels.length; i += 4) {
        if ((pixels[i + 3] as number) < a.drawnAlphaMin) continue;
        const d = Math.hypot((pixels[i] as number) - (stroke[0] as number), (pixels[i + 1] as number) - (stroke[1] as number), (pixels[i + 2] as number) - (stroke[2] as number));
        nearest = Math.min(nearest, d);
      }
      const centreAt = (r * (2 * r + 1) + r) * 4;
      return {
        probe: p,
        canvasX,
        canvasY,
        uplotX: Math.round(u.valToPos(p.x, 'x', true)),
        uplotY: Math.round(u.valToPos(p.y, scaleY, true)),
        centre: [...pixels.slice(centreAt, centreAt + 4)],
        nearest,
      };
    });
    return {
      seriesIndex,
      stroke,
      devicePixelRatio: ratio,
      canvasWidth: canvas.width,
      canvasHeight: canvas.height,
      xs: [...u.data[0]],
      ys: [...u.data[seriesIndex]].map((y: number | null | undefined) => y ?? null),
      results,
    };
  }, args);
}

/** Every how many points of a sawtooth a pixel is probed: prime to its 10 levels, so the samples visit every level. */
export const SAWTOOTH_PROBE_STEP = 7;

/**
 * Probes for a plotted sawtooth (values of the seed's sawtooth, ascending): `on`, every
 * SAWTOOTH_PROBE_STEP-th point itself, where the line must be drawn; `off`, mid-way between such a
 * point and the next on a rising step, at a level at least 4 away, where nothing may be drawn.
 */
export function sawtoothProbes(values: readonly { timestamp: number; average?: number | null }[]): { on: Probe[]; off: Probe[] } {
  const on: Probe[] = [];
  const off: Probe[] = [];
  for (let i = 1; i < values.length - 1; i += SAWTOOTH_PROBE_STEP) {
    const value = values[i] as { timestamp: number; average: number };
    on.push({ x: value.timestamp, y: value.average });
    const level = sawLevel(value.timestamp);
    if (level === SAW_LEVELS - 1) continue; // the next point drops: the line crosses every level there
    const next = values[i + 1] as { timestamp: number };
    const far = level + 5 < SAW_LEVELS ? level + 5 : level - 4;
    off.push({ x: (value.timestamp + next.timestamp) / 2, y: SAW_LEVEL_VALUE(far) });
  }
  return { on, off };
}

/** A plot as the inspection hook window.strataConsole.plots holds it (without the chart): the data as drawn, x in ms. */
export interface PlotHookData {
  readonly metrics: string[];
  readonly timestamps: number[];
  readonly series: { metric: string; average: (number | null)[]; min: (number | null)[]; max: (number | null)[] }[];
}

/** Reads the plot `plotId` from the page's inspection hook. */
export async function plotData(page: Page, plotId: string): Promise<PlotHookData> {
  return page.evaluate((id) => {
    const entry = (window as any).strataConsole?.plots?.get(id);
    if (entry === undefined) throw new Error(`no plot ${id} in window.strataConsole.plots`);
    return { metrics: entry.metrics, timestamps: entry.timestamps, series: entry.series };
  }, plotId);
}
