// @vitest-environment happy-dom
// Tests the check plots section's DOM over a fake server: one card per check and zone, refreshes while a load is in flight, and the bounds on charts and requests.
// Each "Guard (mutation N)" comment names the change to src/console that makes the test fail; each was checked on a patched copy of src/console (run through a vitest alias), never on src/ itself.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CHECK_PLOT_REQUESTS_CONCURRENCY, CHECK_PLOTS_MAX, createCheckPlots, type CheckPlots } from '../../../src/console/check-plots.js';
import type { CheckView } from '../../../src/console/monitoring-api.js';
import type { PlotData } from '../../../src/console/plot-chart.js';
import { pointsForWidth } from '../../../src/console/plot-density.js';
import { apiError, fakeServer, flush, gate, ok, page, SESSION, type FakeCall, type FakeReply } from './fake-server.js';

/** What the stub charts were asked to draw, by plot id. */
const rendered = vi.hoisted(() => new Map<string, unknown[]>());
const CHART_WIDTH_PX = 600;

// happy-dom has no canvas 2d context, which uPlot draws on: the chart is replaced by a stub that
// records what it is asked to draw (these tests are about the section, not the chart).
vi.mock('../../../src/console/plot-chart.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../../src/console/plot-chart.js')>()),
  createPlotChart: (_container: HTMLElement, plotId: string) => ({
    render: (data: unknown) => rendered.set(plotId, [...(rendered.get(plotId) ?? []), data]),
    width: () => CHART_WIDTH_PX,
    destroy: () => undefined,
  }),
}));

const NOW = Date.UTC(2024, 5, 1, 12, 0, 0);
const POINTS_MAX = 1440;

function remoteCheck(id: string, zones: string[] | null): CheckView {
  return { id, entity_id: 'en1', label: `Check ${id}`, type: zones === null ? 'agent.cpu' : 'remote.http', monitoring_zones_poll: zones, period: 60, timeout: 30 };
}

/** A plot answer with one value at the end of the range. */
function plotReply(call: FakeCall): FakeReply {
  return ok({ values: [{ timestamp: Number(call.query.get('to')) - 60_000, numPoints: 1, average: 5, min: 1, max: 9 }] });
}

/** Answers the plan, the listings (every check lists `metricsOf(checkId)`) and the plots (`plot`). */
function serve(metricsOf: (checkId: string) => { name: string; unit: string; type: string }[], plot: (call: FakeCall) => FakeReply | Promise<FakeReply> = plotReply) {
  return fakeServer((call) => {
    if (call.path.endsWith('/plan')) return ok({ pointsMax: POINTS_MAX });
    if (call.path.endsWith('/plot')) return plot(call);
    const listing = /\/entities\/en1\/checks\/([^/]+)\/metrics$/.exec(call.path);
    if (listing !== null) return ok(page(metricsOf(listing[1] as string)));
    return apiError(404, `No route ${call.path}`);
  });
}

function plotStates(plots: CheckPlots): Record<string, string | undefined> {
  return Object.fromEntries([...plots.element.querySelectorAll<HTMLElement>('[data-plot-id]')].map((plot) => [plot.dataset.plotId, plot.dataset.state]));
}

let plots: CheckPlots | undefined;

afterEach(() => {
  plots?.destroy();
  plots = undefined;
  rendered.clear();
  vi.unstubAllGlobals();
});

function create(): CheckPlots {
  plots = createCheckPlots(SESSION, 'en1', () => NOW);
  document.body.replaceChildren(plots.element);
  return plots;
}

describe('check plots DOM', () => {
  it('draws one chart per check and zone with the zone’s numeric metrics over the last 24 h', async () => {
    const server = serve(() => [
      { name: 'mzord.duration', unit: 'ms', type: 'I' },
      { name: 'mzdfw.duration', unit: 'ms', type: 'I' },
      { name: 'mzord.body', unit: 'unknown', type: 's' },
    ]);
    const section = create();
    await section.refresh([remoteCheck('ch1', ['mzord', 'mzdfw'])]);
    expect(plotStates(section)).toEqual({ 'ch1:mzord': 'ready', 'ch1:mzdfw': 'ready' });
    expect(section.element.textContent).toContain('Check ch1 · mzord');
    const plotCalls = server.callsTo('/plot');
    expect(plotCalls.map((call) => call.path.split('/').at(-2)).sort()).toEqual(['mzdfw.duration', 'mzord.duration']);
    expect(plotCalls.map((call) => [call.query.get('from'), call.query.get('to'), call.query.get('points')])).toEqual(
      Array(2).fill([String(NOW - 86_400_000), String(NOW), String(pointsForWidth(CHART_WIDTH_PX, POINTS_MAX))]),
    );
    const drawn = rendered.get('ch1:mzord') as PlotData[];
    expect(drawn).toHaveLength(1);
    expect(drawn[0]?.series.map((s) => [s.metric, s.average])).toEqual([['duration', [5]]]);
  });

  it('C4: a refresh while plots are still loading neither aborts them nor starts another load', async () => {
    const slow = gate<void>();
    const server = serve(
      () => [{ name: 'mzord.duration', unit: 'ms', type: 'I' }],
      async (call) => {
        await slow.promise;
        return plotReply(call);
      },
    );
    const section = create();
    const first = section.refresh([remoteCheck('ch1', ['mzord'])]);
    await flush();
    expect(server.pending('/plot')).toHaveLength(1);

    // Guard (mutation 7): without `if (running) return;` in refresh, this lists and plots again alongside the first load.
    const second = section.refresh([remoteCheck('ch1', ['mzord'])]);
    await flush();
    expect(server.callsTo('/metrics')).toHaveLength(1);
    expect(server.callsTo('/plot')).toHaveLength(1);
    expect(server.calls.some((call) => call.aborted)).toBe(false);

    slow.release();
    await first;
    await second;
    expect(plotStates(section)).toEqual({ 'ch1:mzord': 'ready' });
    expect(rendered.get('ch1:mzord')).toHaveLength(1);

    // Once the load is done, a refresh loads again.
    await section.refresh([remoteCheck('ch1', ['mzord'])]);
    expect(server.callsTo('/plot')).toHaveLength(2);
  });

  it(`draws at most ${CHECK_PLOTS_MAX} charts, says how many were left out, and keeps ${CHECK_PLOT_REQUESTS_CONCURRENCY} requests in flight at most`, async () => {
    let inFlight = 0;
    let inFlightMax = 0;
    const server = fakeServer(async (call) => {
      inFlight += 1;
      inFlightMax = Math.max(inFlightMax, inFlight);
      await flush();
      inFlight -= 1;
      if (call.path.endsWith('/plan')) return ok({ pointsMax: POINTS_MAX });
      if (call.path.endsWith('/plot')) return plotReply(call);
      return ok(page([{ name: 'cpu.usage', unit: 'percent', type: 'n' }]));
    });
    const checks = Array.from({ length: CHECK_PLOTS_MAX + 6 }, (_, i) => remoteCheck(`ch${i}`, null));
    const section = create();
    await section.refresh(checks);
    // Guard (mutation 8): CHECK_PLOTS_MAX raised past the checks' count plots them all and says nothing.
    expect(Object.keys(plotStates(section))).toHaveLength(CHECK_PLOTS_MAX);
    expect(section.element.textContent).toContain(`6 more charts not plotted: a page draws at most ${CHECK_PLOTS_MAX}.`);
    expect(server.callsTo('/metrics')).toHaveLength(CHECK_PLOTS_MAX);
    expect(server.callsTo('/plot')).toHaveLength(CHECK_PLOTS_MAX);
    // Guard (mutation 9): runLimited starting a worker per task puts every listing in flight at once.
    expect(inFlightMax).toBe(CHECK_PLOT_REQUESTS_CONCURRENCY);
  });

  it('marks a chart whose plot failed and rejects with the API’s error; the other charts still draw', async () => {
    serve(
      () => [
        { name: 'mzord.duration', unit: 'ms', type: 'I' },
        { name: 'mzdfw.duration', unit: 'ms', type: 'I' },
      ],
      (call) => (call.path.includes('mzdfw') ? apiError(500, 'Plot broke.') : plotReply(call)),
    );
    const section = create();
    await expect(section.refresh([remoteCheck('ch1', ['mzord', 'mzdfw'])])).rejects.toThrow('Plot broke.');
    expect(plotStates(section)).toEqual({ 'ch1:mzord': 'ready', 'ch1:mzdfw': 'error' });
  });
});
