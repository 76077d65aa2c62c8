// Owns the chart bench's library adapters: each library's page script source (convert the API shape, create, update, destroy) and, in words, what each page does.
import type { ChartLibrary } from './console-charts-pages.js';

/** What each page does, in words, for the output and the results file. */
export const LIBRARY_SETUP: Readonly<Record<ChartLibrary, string>> = {
  uplot:
    'new uPlot(opts, data, el) with columnar Float64Array data [x, avg, min, max per metric], ms: 1 (x in ms), time x scale, ' +
    'per metric a 1 px average series and min/max series of width 0 joined by a band (bands: [{series: [max, min], fill}]), ' +
    'points.show false, legend off, cursor on (default); redraw: u.setData(data)',
  'chart.js':
    'tree-shaken Chart.register(LineController, LineElement, PointElement, LinearScale, Filler, Tooltip); type line, ' +
    'x scale type "linear" in ms with min/max given, 2 h tick step and an HH:MM tick callback (no time scale, so no date adapter package), ' +
    'per metric min (borderWidth 0), max (borderWidth 0, fill "-1") and a 1 px average dataset; ' +
    'data as {x, y} objects with parsing: false, normalized: true, spanGaps: true, animation: false, responsive: false, pointRadius 0, ' +
    'decimation off (plugin not registered), legend off (not registered), tooltip on; redraw: replace each dataset.data, chart.update("none")',
};

/** uPlot: columnar typed arrays, bands between each metric's max and min series. */
const UPLOT_ADAPTER = `
import uPlot from 'uplot';
import { color, drawn, install } from 'harness';
install({
  name: 'uplot',
  convert(api) {
    const n = api[0].data.length;
    const xs = new Float64Array(n);
    const first = api[0].data;
    for (let i = 0; i < n; i++) xs[i] = first[i].timestamp;
    const cols = [xs];
    for (const m of api) {
      const avg = new Float64Array(n), min = new Float64Array(n), max = new Float64Array(n);
      const d = m.data;
      for (let i = 0; i < n; i++) { const p = d[i]; avg[i] = p.average; min[i] = p.min; max[i] = p.max; }
      cols.push(avg, min, max);
    }
    return cols;
  },
  create(el, api, data, box) {
    const series = [{}];
    const bands = [];
    api.forEach((m, i) => {
      const base = 1 + 3 * i;
      series.push(
        { label: m.metric, stroke: color(i), width: 1, points: { show: false } },
        { label: m.metric + ' min', stroke: color(i), width: 0, points: { show: false } },
        { label: m.metric + ' max', stroke: color(i), width: 0, points: { show: false } },
      );
      bands.push({ series: [base + 2, base + 1], fill: color(i, 0.2) });
    });
    const opts = {
      width: box.width, height: box.height, ms: 1,
      scales: { x: { time: true } },
      series, bands,
      legend: { show: false },
      hooks: { draw: [drawn] },
    };
    return new uPlot(opts, data, el);
  },
  update(u, data) { u.setData(data); },
  context(u) { return u.ctx; },
  destroy(u) { u.destroy(); },
});
`;

/** Chart.js: tree-shaken registration, pre-parsed {x, y} data, linear x in ms. */
const CHARTJS_ADAPTER = `
import { Chart, LineController, LineElement, PointElement, LinearScale, Filler, Tooltip } from 'chart.js';
import { color, drawn, install } from 'harness';
Chart.register(LineController, LineElement, PointElement, LinearScale, Filler, Tooltip);
const pad = (v) => (v < 10 ? '0' : '') + v;
const hhmm = (v) => { const d = new Date(v); return pad(d.getUTCHours()) + ':' + pad(d.getUTCMinutes()); };
install({
  name: 'chart.js',
  convert(api) {
    const sets = [];
    for (const m of api) {
      const d = m.data, n = d.length;
      const min = new Array(n), max = new Array(n), avg = new Array(n);
      for (let i = 0; i < n; i++) {
        const p = d[i];
        min[i] = { x: p.timestamp, y: p.min }; max[i] = { x: p.timestamp, y: p.max }; avg[i] = { x: p.timestamp, y: p.average };
      }
      sets.push(min, max, avg);
    }
    return sets;
  },
  create(el, api, data, box) {
    const canvas = document.createElement('canvas');
    canvas.width = box.width; canvas.height = box.height;
    el.append(canvas);
    const datasets = [];
    api.forEach((m, i) => {
      datasets.push(
        { label: m.metric + ' min', data: data[3 * i], borderWidth: 0, fill: false },
        { label: m.metric + ' max', data: data[3 * i + 1], borderWidth: 0, fill: '-1', backgroundColor: color(i, 0.2) },
        { label: m.metric, data: data[3 * i + 2], borderColor: color(i), borderWidth: 1, fill: false },
      );
    });
    return new Chart(canvas, {
      type: 'line',
      data: { datasets },
      options: {
        animation: false, responsive: false, parsing: false, normalized: true, spanGaps: true,
        elements: { point: { radius: 0 } },
        scales: { x: { type: 'linear', min: box.fromMs, max: box.toMs, ticks: { stepSize: 7_200_000, callback: hhmm } }, y: { type: 'linear' } },
        plugins: { legend: { display: false }, decimation: { enabled: false }, tooltip: { enabled: true } },
      },
      plugins: [{ id: 'benchDrawn', afterRender: drawn }],
    });
  },
  update(chart, data) {
    chart.data.datasets.forEach((set, j) => { set.data = data[j]; });
    chart.update('none');
  },
  context(chart) { return chart.ctx; },
  destroy(chart) { chart.destroy(); },
});
`;

/** The harness alone with a do-nothing adapter: its bytes are in both pages' figures. */
const NULL_ADAPTER = `
import { install } from 'harness';
install({ name: 'none', convert: (a) => a, create: () => null, update() {}, context: () => null, destroy() {} });
`;

/** Each page script's entry source: the library's adapter, or the do-nothing one for the harness alone. */
export const ADAPTERS: Readonly<Record<ChartLibrary | 'harness', string>> = { uplot: UPLOT_ADAPTER, 'chart.js': CHARTJS_ADAPTER, harness: NULL_ADAPTER };
