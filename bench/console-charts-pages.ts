// Owns the chart bench's browser pages: the shared harness's source, and the page scripts (harness + one adapter per library) bundled with esbuild into a temp dir.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { ADAPTERS } from './console-charts-adapters.js';

const HERE = dirname(fileURLToPath(import.meta.url));
/** The package root (bench code runs from dist/bench): esbuild resolves `uplot` and `chart.js` from its node_modules. */
export const PACKAGE_ROOT = join(HERE, '..', '..');

/** The width of the canvas every page draws into, in CSS pixels (device pixel ratio 1 in headless chromium). */
export const CHART_WIDTH = 1200;
/** The height of that canvas, in CSS pixels. */
export const CHART_HEIGHT = 400;
/** Where the plotted range starts: 2026-01-01T00:00Z; N points are evenly spaced over RANGE_MS from there (288 = 5 min, 1440 = 1 min). */
export const RANGE_FROM_MS = Date.UTC(2026, 0, 1);
/** How long the plotted range is: one day, in ms. */
export const RANGE_MS = 86_400_000;

/** A library under test. */
export type ChartLibrary = 'uplot' | 'chart.js';
/** The libraries under test, in the order the first round draws them (the order alternates per round). */
export const CHART_LIBRARIES: readonly ChartLibrary[] = ['uplot', 'chart.js'];

/**
 * The harness shared by both pages (browser JavaScript): fabricates the API's shape
 * ({metric, data: [{timestamp, numPoints, average, min, max}]}) outside the timed part, then times
 * convert (API shape → library shape) + create or update + the library's draw hook + a 1-pixel
 * getImageData (forces the canvas's pixels to exist). `ADAPTER` is the library's adapter.
 */
const HARNESS = `
const W = ${CHART_WIDTH}, H = ${CHART_HEIGHT}, FROM = ${RANGE_FROM_MS}, SPAN = ${RANGE_MS};
export const COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];
export function color(m, alpha) {
  const c = COLORS[m % COLORS.length];
  if (alpha === undefined) return c;
  return 'rgba(' + parseInt(c.slice(1, 3), 16) + ',' + parseInt(c.slice(3, 5), 16) + ',' + parseInt(c.slice(5, 7), 16) + ',' + alpha + ')';
}
let resolveDrawn = null;
/** Called by the adapter from the library's own "drawn" hook. */
export function drawn() { const r = resolveDrawn; resolveDrawn = null; if (r !== null) r(); }
function random(seed) {
  let s = (seed >>> 0) || 1;
  return () => { s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0; return s / 4294967296; };
}
function apiMetrics(k, n, seed) {
  const next = random(seed);
  const step = SPAN / n;
  const metrics = [];
  for (let m = 0; m < k; m++) {
    let level = 100 + 40 * m;
    const data = new Array(n);
    for (let i = 0; i < n; i++) {
      level += (next() - 0.5) * 4;
      const spread = 1 + next() * 6;
      data[i] = { timestamp: FROM + i * step, numPoints: 5, average: level, min: level - spread * next(), max: level + spread * next() };
    }
    metrics.push({ metric: 'bench.metric.' + m, unit: 'unknown', type: 'number', data });
  }
  return metrics;
}
function collect() { if (typeof gc === 'function') gc(); }
export function install(adapter) {
  let chart = null, host = null, shape = null;
  async function timed(api, act) {
    collect();
    const drawnOnce = new Promise((r) => { resolveDrawn = r; });
    const t0 = performance.now();
    const data = adapter.convert(api);
    const t1 = performance.now();
    act(data);
    await drawnOnce;
    const t2 = performance.now();
    adapter.context(chart).getImageData(0, 0, 1, 1);
    const t3 = performance.now();
    return { convertMs: t1 - t0, drawnMs: t2 - t0, totalMs: t3 - t0 };
  }
  function clear() {
    if (chart !== null) adapter.destroy(chart);
    if (host !== null) host.remove();
    chart = null; host = null;
  }
  globalThis.__bench = {
    library: adapter.name,
    async first(k, n, seed) {
      clear();
      shape = { k, n };
      host = document.createElement('div');
      host.style.width = W + 'px'; host.style.height = H + 'px';
      document.body.append(host);
      const api = apiMetrics(k, n, seed);
      return timed(api, (data) => { chart = adapter.create(host, api, data, { width: W, height: H, fromMs: FROM, toMs: FROM + SPAN }); });
    },
    async redraw(seed) {
      const api = apiMetrics(shape.k, shape.n, seed);
      return timed(api, (data) => adapter.update(chart, data));
    },
    /** Pixels of the chart's canvas that are not fully transparent: proof that something was drawn. */
    inked() {
      const ctx = adapter.context(chart);
      const px = ctx.getImageData(0, 0, ctx.canvas.width, ctx.canvas.height).data;
      let count = 0;
      for (let i = 3; i < px.length; i += 4) if (px[i] !== 0) count++;
      return count;
    },
    clear,
  };
}
`;

/** One bundled page script. */
export interface BundledScript {
  /** The script's file name in the pages' dir. */
  readonly file: string;
  /** The minified script's size. */
  readonly bytes: number;
  /** gzip -9 of the minified script. */
  readonly gzipBytes: number;
}

/** The pages written into `dir`: `<library>.html` + `<library>.js`, and the harness alone for its size. */
export interface BundledPages {
  /** Each page's script, and the harness alone. */
  readonly scripts: Readonly<Record<ChartLibrary | 'harness', BundledScript>>;
  /** uPlot's stylesheet (uPlot.min.css), inlined into its page; not counted in the script bytes. */
  readonly uplotCssBytes: number;
  /** The esbuild version that bundled them. */
  readonly esbuild: string;
}

function fileName(name: ChartLibrary | 'harness'): string {
  return name.replace('.', '');
}

/** Bundles one page script (minified IIFE, ES2020, browser) with the harness resolved as a virtual module. */
async function bundleScript(name: ChartLibrary | 'harness', dir: string): Promise<BundledScript> {
  const file = `${fileName(name)}.js`;
  const result = await build({
    stdin: { contents: ADAPTERS[name], resolveDir: PACKAGE_ROOT, sourcefile: `${fileName(name)}-page.js`, loader: 'js' },
    bundle: true,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2020',
    write: false,
    logLevel: 'silent',
    plugins: [
      {
        name: 'bench-harness',
        setup(b) {
          b.onResolve({ filter: /^harness$/ }, () => ({ path: 'harness', namespace: 'bench-harness' }));
          b.onLoad({ filter: /.*/, namespace: 'bench-harness' }, () => ({ contents: HARNESS, loader: 'js' }));
        },
      },
    ],
  });
  const out = result.outputFiles[0];
  if (out === undefined) throw new Error(`esbuild produced no output for the ${name} page`);
  writeFileSync(join(dir, file), out.contents);
  return { file, bytes: out.contents.byteLength, gzipBytes: gzipSync(out.contents, { level: 9 }).byteLength };
}

/** Bundles both pages (and the harness alone) into `dir` and writes each page's HTML next to its script. */
export async function bundlePages(dir: string): Promise<BundledPages> {
  const require = createRequire(import.meta.url);
  const css = readFileSync(require.resolve('uplot/dist/uPlot.min.css'), 'utf8');
  const scripts = {
    uplot: await bundleScript('uplot', dir),
    'chart.js': await bundleScript('chart.js', dir),
    harness: await bundleScript('harness', dir),
  };
  for (const library of CHART_LIBRARIES) {
    const style = library === 'uplot' ? css : '';
    writeFileSync(
      join(dir, `${fileName(library)}.html`),
      `<!doctype html><html><head><meta charset="utf-8"><title>${library}</title><style>body{margin:0}${style}</style></head>` +
        `<body><script src="/${scripts[library].file}"></script></body></html>`,
    );
  }
  const esbuildVersion = (require('esbuild/package.json') as { version: string }).version;
  return { scripts, uplotCssBytes: Buffer.byteLength(css), esbuild: esbuildVersion };
}

/** The page's path on the bench's server. */
export function pagePath(library: ChartLibrary): string {
  return `/${fileName(library)}.html`;
}
