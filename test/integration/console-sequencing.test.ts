// The metrics page in chromium when answers arrive out of order: the first views answer (6 h) is held back by page.route until the range changed to 1 h and that plot is drawn; the late 6 h answer must never replace it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOUR_MS } from '../../src/core/time.js';
import { ConsoleFixture } from './console-fixture.js';
import { holdFirst, type HeldRequest } from './console-hold.js';
import { PAGE_WAIT_MS_DEFAULT, signIn, step, textOf, waitAttribute } from './console-page.js';
import { plotData, type PlotHookData } from './console-pixels.js';
import { headPointsAfterSealing, ingest, sawtooth, until, waitSettled } from './console-seed.js';
import { apiViewValues, choose, expectPlotIsApi, metricsPlotId, VIEWS_PATH } from './console-views.js';

/** Each step drives processes (server, chromium): minutes, not seconds. */
const STEP_BUDGET_MS = 240_000;
const TEST_TIMEOUT_MS = 4 * STEP_BUDGET_MS;
/** How long sealing and rolling up the seeded points may take. */
const SETTLE_WAIT_MS = 120_000;
/** How long the first views answer is held at least: the 1 h plot is drawn meanwhile, then it is released. */
const HOLD_MS_MIN = 3_000;
/** After the held answer ended in the browser, the plot is read this many times, POLL apart: it must not change. */
const AFTER_RELEASE_READS = 10;
const AFTER_RELEASE_POLL_MS = 100;
const SAW = 'console.saw.order';
/** The page's views request: POST /metrics/v2.0/{tenant}/views. */
const VIEWS_METHOD = 'POST';

const f = new ConsoleFixture({ dirPrefix: 'strata-console-sequencing-', tenant: 'console-seq', username: 'seq-ops', apiKey: 'seq-admin-key-0123456789' });
let held: HeldRequest;
let heldUrl: URL;
let heldAtMs = 0;
let newer: { request: URL; drawn: PlotHookData };

beforeAll(async () => {
  await f.start(async (url, token) => {
    const nowMs = Date.now();
    const points = sawtooth(SAW, nowMs, 'percent');
    await ingest(url, token, f.options.tenant, points);
    await waitSettled(url, headPointsAfterSealing(points, nowMs), SETTLE_WAIT_MS);
  });
}, STEP_BUDGET_MS);

afterAll(() => f.stop(), STEP_BUDGET_MS);

async function holdStep(): Promise<void> {
  const { page } = f;
  await signIn(page, f.url, f.options.username, f.options.apiKey);
  held = await holdFirst(page, VIEWS_METHOD, VIEWS_PATH);
  // A link to a 6 h plot: the page plans it and asks for its values, and that answer is held.
  await page.evaluate((hash) => (window.location.hash = hash), `#/metrics?m=${encodeURIComponent(SAW)}&range=6h`);
  const request = await until('the page to ask for the 6 h values', () => held.caught(), PAGE_WAIT_MS_DEFAULT);
  heldAtMs = Date.now();
  heldUrl = new URL(request.url());
  expect(Number(heldUrl.searchParams.get('to')) - Number(heldUrl.searchParams.get('from')), 'the held request is the 6 h view').toBe(6 * HOUR_MS);
  expect(await page.locator('[data-testid=plot]').getAttribute('data-state'), 'the plot waits for the held answer').toBe('loading');
}

async function newerRangeStep(): Promise<void> {
  const { page } = f;
  const request = await choose(f, '[data-testid=range]', '1h');
  expect(Number(request.searchParams.get('to')) - Number(request.searchParams.get('from')), 'the newer request is the 1 h view').toBe(HOUR_MS);
  const values = await expectPlotIsApi(f, SAW, request);
  const from = Number(request.searchParams.get('from'));
  const to = Number(request.searchParams.get('to'));
  expect(values.length).toBeGreaterThan(0);
  const drawn = await plotData(page, await metricsPlotId(f));
  for (const t of drawn.timestamps) expect(t >= from && t <= to, `timestamp ${t} within the 1 h range [${from}, ${to}]`).toBe(true);
  // The two answers differ: the 6 h one reaches back before the 1 h range, so a late 6 h plot could not pass for the 1 h one.
  const stale = await apiViewValues(f, SAW, heldUrl);
  expect(stale.some((v) => v.timestamp < from), 'the held 6 h answer holds values before the 1 h range').toBe(true);
  expect(stale.map((v) => v.timestamp)).not.toEqual(drawn.timestamps);
  newer = { request, drawn };
}

async function releaseStep(): Promise<void> {
  const { page } = f;
  // Hold the first answer at least HOLD_MS_MIN in all, then let it go.
  const left = HOLD_MS_MIN - (Date.now() - heldAtMs);
  if (left > 0) await new Promise((resolve) => setTimeout(resolve, left));
  held.release();
  const end = await held.ended();
  // Whichever way it ended (answered late, or abandoned by the page), the 1 h plot stays.
  for (let read = 0; read < AFTER_RELEASE_READS; read++) {
    await new Promise((resolve) => setTimeout(resolve, AFTER_RELEASE_POLL_MS));
    const drawn = await plotData(page, await metricsPlotId(f));
    expect(drawn, `the plot after the held 6 h answer ended (${JSON.stringify(end)}), read ${read + 1}`).toEqual(newer.drawn);
  }
  await waitAttribute(page, '[data-testid=plot]', 'data-state', 'ready');
  await expectPlotIsApi(f, SAW, newer.request);
  expect(f.requests.last(VIEWS_PATH).toString(), 'no views request after the 1 h one').toBe(newer.request.toString());
  expect(await page.locator('[data-testid=range]').inputValue()).toBe('1h');
  expect(await textOf(page, '[data-testid=message]')).toBe('');
  await held.remove();
}

describe('the metrics page when an older answer arrives late', () => {
  // One tab through the sequence: the hold set in step 1 is released in step 3, so they run as steps of one test.
  it('plots the newer range: the first views answer, held back until the range changed, never replaces the newer plot', async () => {
    await step(f.watched, '1 open a 6 h plot whose views answer is held back', holdStep);
    await step(f.watched, '2 change the range to 1 h: the plot shows the API answer for 1 h', newerRangeStep);
    await step(f.watched, '3 release the held 6 h answer: the 1 h plot stays', releaseStep);
  }, TEST_TIMEOUT_MS);
});
