// Owns `npm run bench -- console`: measures uPlot against Chart.js in Debian's chromium for the console's plots (first draw, redraw, bundle bytes), prints the table, writes bench/results/console-charts.json.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { LIBRARY_SETUP } from './console-charts-adapters.js';
import { bundlePages, CHART_HEIGHT, CHART_LIBRARIES, CHART_WIDTH, PACKAGE_ROOT, pagePath, type BundledPages, type ChartLibrary } from './console-charts-pages.js';
import { consoleChartsTable, median, type ChartShapeResult, type DrawTiming } from './console-charts-report.js';
import { createProgress } from './progress.js';

const RESULTS_FILE = join(PACKAGE_ROOT, 'bench', 'results', 'console-charts.json');
/** The suite's name on the command line. */
export const CONSOLE_CHARTS_SUITE = 'console';
/** The plots measured: K metrics × N points (288 = a day at 5 min; 1440 = the views' point limit). */
export const CHART_SHAPES: readonly { readonly k: number; readonly n: number }[] = [
  { k: 1, n: 288 },
  { k: 3, n: 1440 },
  { k: 10, n: 1440 },
];
/** Timed fresh charts per library and shape, after the untimed warm-ups; each is redrawn REDRAWS_PER_CHART times. */
export const CHART_RUNS = 15;
/** Untimed rounds per shape before the timed ones (the JIT and the caches warm up). */
export const CHART_WARMUPS = 3;
/** Redraws with new values of each fresh chart (timed in the timed rounds). */
export const REDRAWS_PER_CHART = 3;

/** The page's harness, as seen from Node (see HARNESS in console-charts-pages.ts). */
interface BenchGlobal {
  readonly __bench: {
    first(k: number, n: number, seed: number): Promise<DrawTiming>;
    redraw(seed: number): Promise<DrawTiming>;
    inked(): number;
    clear(): void;
  };
}

/** The chromium the console's browser tests use: env STRATA_CHROMIUM, else Debian's. */
export function chromiumPath(): string {
  const path = process.env['STRATA_CHROMIUM'] ?? '/usr/bin/chromium';
  if (!existsSync(path)) {
    throw new Error(`chromium not found at ${path}: install Debian's package (apt-get install -y --no-install-recommends chromium) or set STRATA_CHROMIUM`);
  }
  return path;
}

/** Serves the bundled pages from `dir` on 127.0.0.1 (cross-origin isolated, so performance.now() is not coarsened to 100 µs). */
async function servePages(dir: string): Promise<{ server: Server; origin: string }> {
  const types: Readonly<Record<string, string>> = { html: 'text/html; charset=utf-8', js: 'text/javascript; charset=utf-8' };
  const server = createServer((req, res) => {
    const name = (req.url ?? '/').slice(1);
    const type = types[name.split('.').pop() ?? ''];
    if (!/^[a-z]+\.(html|js)$/.test(name) || type === undefined || !existsSync(join(dir, name))) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'Content-Type': type, 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' });
    res.end(readFileSync(join(dir, name)));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function harness(page: Page) {
  return {
    first: (k: number, n: number, seed: number) => page.evaluate(([a, b, c]) => (globalThis as unknown as BenchGlobal).__bench.first(a, b, c), [k, n, seed] as const),
    redraw: (seed: number) => page.evaluate((s) => (globalThis as unknown as BenchGlobal).__bench.redraw(s), seed),
    inked: () => page.evaluate(() => (globalThis as unknown as BenchGlobal).__bench.inked()),
    clear: () => page.evaluate(() => (globalThis as unknown as BenchGlobal).__bench.clear()),
  };
}

/** One page per library, each in its own context; page errors fail the bench. */
async function openPages(browser: Browser, origin: string): Promise<Record<ChartLibrary, Page>> {
  const pages = {} as Record<ChartLibrary, Page>;
  for (const library of CHART_LIBRARIES) {
    const context = await browser.newContext({ viewport: { width: CHART_WIDTH + 100, height: CHART_HEIGHT + 100 }, deviceScaleFactor: 1 });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${origin}${pagePath(library)}`);
    const ready = await page.evaluate(() => typeof (globalThis as unknown as Partial<BenchGlobal>).__bench === 'object');
    if (!ready || errors.length > 0) throw new Error(`the ${library} page did not load: ${errors.join('; ') || 'no harness'}`);
    pages[library] = page;
  }
  return pages;
}

/**
 * One shape: warm-ups, then CHART_RUNS rounds; each round draws a fresh chart in each library
 * (the libraries alternate, so a slow spell of the shared machine hits both) and redraws it.
 */
async function measureShape(pages: Record<ChartLibrary, Page>, k: number, n: number): Promise<ChartShapeResult[]> {
  const results = CHART_LIBRARIES.map((library) => ({ library, k, n, warmups: [] as DrawTiming[], first: [] as DrawTiming[], redraw: [] as DrawTiming[], inkedPixels: 0 }));
  let seed = 1;
  for (let round = 0; round < CHART_WARMUPS + CHART_RUNS; round++) {
    const order = round % 2 === 0 ? results : [...results].reverse();
    for (const r of order) {
      const h = harness(pages[r.library]);
      const first = await h.first(k, n, seed);
      const redraws: DrawTiming[] = [];
      for (let i = 0; i < REDRAWS_PER_CHART; i++) redraws.push(await h.redraw(seed + 1 + i));
      if (round < CHART_WARMUPS) r.warmups.push(first, ...redraws);
      else {
        r.first.push(first);
        r.redraw.push(...redraws);
      }
      if (round === CHART_WARMUPS) r.inkedPixels = await h.inked();
    }
    seed += 1 + REDRAWS_PER_CHART;
  }
  for (const r of results) {
    await harness(pages[r.library]).clear();
    if (r.inkedPixels === 0) throw new Error(`the ${r.library} chart of ${k}×${n} drew nothing`);
  }
  return results;
}

/** An installed package's version, read from its package.json (chart.js's exports do not list it, so no require). */
function versionOf(name: string): string {
  return (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
}

/** The whole measurement: bundle, serve, launch chromium, every shape. */
export async function measureConsoleCharts(onStep: (label: string) => void): Promise<{ chromium: string; bundles: BundledPages; shapes: ChartShapeResult[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'strata-console-charts-'));
  let server: Server | undefined;
  let browser: Browser | undefined;
  try {
    onStep('bundle the uPlot and Chart.js pages with esbuild');
    const bundles = await bundlePages(dir);
    const served = await servePages(dir);
    server = served.server;
    onStep('launch chromium');
    browser = await chromium.launch({ executablePath: chromiumPath(), headless: true, args: ['--no-sandbox', '--js-flags=--expose-gc'] });
    const pages = await openPages(browser, served.origin);
    const shapes: ChartShapeResult[] = [];
    for (const { k, n } of CHART_SHAPES) {
      onStep(`${k}×${n}: ${CHART_WARMUPS} warm-ups + ${CHART_RUNS} fresh charts per library, ${REDRAWS_PER_CHART} redraws each`);
      shapes.push(...(await measureShape(pages, k, n)));
    }
    return { chromium: browser.version(), bundles, shapes };
  } finally {
    await browser?.close();
    if (server !== undefined) await new Promise<void>((resolve) => server?.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What the bench does, in words (printed and recorded). */
export function consoleChartsDescription(): Record<string, string> {
  return {
    task:
      `a ${CHART_WIDTH}x${CHART_HEIGHT} canvas chart of K metrics x N points over one day (x = ms timestamps), average as a 1 px line and min/max as a filled band per metric; ` +
      `shapes ${CHART_SHAPES.map((s) => `${s.k}x${s.n}`).join(', ')}`,
    firstDraw:
      'fresh chart in a fresh div: convert the API shape ({timestamp, average, min, max} per metric) to the library shape + create + until the library\'s draw hook ' +
      '(uPlot hooks.draw, Chart.js plugin afterRender) + a 1-pixel getImageData (the canvas pixels exist); gc() before each timed run (chromium --js-flags=--expose-gc)',
    redraw: `new values for the same shape on the same chart: convert + setData / update("none") + draw hook + 1-pixel readback; ${REDRAWS_PER_CHART} per fresh chart`,
    runs: `${CHART_WARMUPS} untimed warm-up rounds, then ${CHART_RUNS} timed rounds per shape; the two libraries alternate within each round (one page each, separate contexts)`,
    bundle: 'each page\'s script: esbuild bundle, minify, iife, es2020, browser; gzip -9; the shared harness is included in both (its size alone is "harness")',
    uplot: LIBRARY_SETUP.uplot,
    'chart.js': LIBRARY_SETUP['chart.js'],
    browser: 'Debian chromium via playwright-core, headless, --no-sandbox, viewport 1300x500, device scale factor 1',
  };
}

/** Runs the suite, prints the table and writes bench/results/console-charts.json. */
export async function runConsoleChartsSuite(machine: Record<string, unknown>): Promise<void> {
  const started = performance.now();
  const versions = { uplot: versionOf('uplot'), 'chart.js': versionOf('chart.js'), 'playwright-core': versionOf('playwright-core') };
  const progress = createProgress(2 + CHART_SHAPES.length);
  const { chromium: chromiumVersion, bundles, shapes } = await measureConsoleCharts((label) => progress.step(label));
  progress.stop();
  const description = consoleChartsDescription();
  console.log('');
  console.log(`Console charts (issue 16): ${description['task']}`);
  console.log(`chromium ${chromiumVersion}, uplot ${versions.uplot}, chart.js ${versions['chart.js']}, esbuild ${bundles.esbuild}, playwright-core ${versions['playwright-core']}`);
  console.log(consoleChartsTable(shapes, bundles));
  console.log(`uPlot: ${LIBRARY_SETUP.uplot}`);
  console.log(`Chart.js: ${LIBRARY_SETUP['chart.js']}`);
  console.log(`Times: ${description['firstDraw']}. Medians of ${CHART_RUNS} fresh charts (first) and ${CHART_RUNS * REDRAWS_PER_CHART} redraws.`);
  const durationSeconds = (performance.now() - started) / 1000;
  const results = {
    date: new Date().toISOString(),
    durationSeconds,
    machine,
    chromium: chromiumVersion,
    versions: { ...versions, esbuild: bundles.esbuild },
    description,
    bundles,
    summary: shapes.map((s) => ({
      library: s.library,
      k: s.k,
      n: s.n,
      firstTotalMsP50: median(s.first.map((t) => t.totalMs)),
      redrawTotalMsP50: median(s.redraw.map((t) => t.totalMs)),
      firstDrawnMsP50: median(s.first.map((t) => t.drawnMs)),
      redrawDrawnMsP50: median(s.redraw.map((t) => t.drawnMs)),
      firstConvertMsP50: median(s.first.map((t) => t.convertMs)),
    })),
    shapes,
  };
  mkdirSync(dirname(RESULTS_FILE), { recursive: true });
  writeFileSync(RESULTS_FILE, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\nWrote ${RESULTS_FILE} (${durationSeconds.toFixed(0)} s)`);
}
