// The web console in Debian's chromium against a real `strata serve`, as one sequence of steps in one tab: sign-in, metric search, a plot whose drawn points are the API's values, the planner's resolution changing with the range, an alarm turning CRITICAL, a screenshot of each page.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS, HOUR_MS } from '../../src/core/time.js';
import { call } from '../http/harness.js';
import { VIEWPORT } from './console-chromium.js';
import { ConsoleFixture } from './console-fixture.js';
import { PAGE_WAIT_MS_DEFAULT, step, textOf, waitAttribute, waitText } from './console-page.js';
import { COLOUR_DISTANCE_MAX, plotData, readPixels, sawtoothProbes } from './console-pixels.js';
import { pngDimensions, regionOf, screenshotInk, type Region } from './console-screenshots.js';
import { createMonitoredTree, headPointsAfterSealing, ingest, LoopbackTarget, SAW_LEVEL_VALUE, SAW_LEVELS, sawLevel, sawtooth, until, waitSettled, type IngestPoint } from './console-seed.js';
import { choose, expectPanelIsApiPlan, expectPlotIsApi, metricsPlotId, VIEWS_PATH } from './console-views.js';
import { base } from './monitoring-client.js';
import { ROOT } from './serve-process.js';

/** Each step drives processes (server, chromium, a check every 30 s): minutes, not seconds. */
const STEP_BUDGET_MS = 240_000;
/** The whole sequence: five steps. */
const TEST_TIMEOUT_MS = 5 * STEP_BUDGET_MS;
const PAGE_WAIT_MS = PAGE_WAIT_MS_DEFAULT;
/** How long the alarm may take to turn CRITICAL after the target fails: a check period and then some. */
const ALARM_WAIT_MS = 120_000;
/** How long sealing and rolling up the seeded points may take. */
const SETTLE_WAIT_MS = 120_000;
const SAW = 'console.saw.alpha';
const NEIGHBOURS = ['console.cpu.user', 'console.cpu.system', 'web01.mem.used', 'db01.disk.reads'];
const ZONE = 'mzdfw';
/** The screenshot files, one per page, under the repository root (gitignored), with the figures measured on them. */
const SCREENSHOT_DIR = join(ROOT, '.tmp', 'console-screenshots');
const PAGES = ['signin', 'metrics', 'entities', 'entity'] as const;
/** A screenshot of a page with a plot must be more than this many times a blank page's PNG bytes. */
const PLOT_PAGE_BLANK_FACTOR = 10;
/** Every screenshot: at least this share of its pixels differ from its background (a blank one has none)... */
const INK_SHARE_MIN = 0.01;
/** ... in at least this many distinct colours (text antialiasing alone gives dozens). */
const COLOURS_MIN = 32;
/** A plot's area in the screenshot: at least this share of it is ink (axes, grid, lines). */
const PLOT_INK_SHARE_MIN = 0.02;

const f = new ConsoleFixture({ dirPrefix: 'strata-console-browser-', tenant: 'console-t1', username: 'console-ops', apiKey: 'console-admin-key-0123456789' });
const { tenant: TENANT, username: USERNAME, apiKey: API_KEY } = f.options;
const target = new LoopbackTarget();
let targetUrl = '';
const screenshots = new Map<string, { png: Buffer; plot: Region | undefined }>();

beforeAll(async () => {
  await f.start(async (url, token) => {
    targetUrl = await target.start();
    const nowMs = Date.now();
    const points: IngestPoint[] = [...sawtooth(SAW, nowMs, 'percent')];
    for (const name of NEIGHBOURS) points.push(...[3, 2, 1].map((ago) => ({ metricName: name, metricValue: ago, collectionTime: nowMs - ago * 60_000, unit: 'count' })));
    await ingest(url, token, TENANT, points);
    await waitSettled(url, headPointsAfterSealing(points, nowMs), SETTLE_WAIT_MS);
  });
}, STEP_BUDGET_MS);

afterAll(async () => {
  await f.stop();
  await target.stop().catch(() => undefined);
}, STEP_BUDGET_MS);

/** Screenshots the viewport; `plotSelector` names the plot whose area must show ink. */
async function screenshot(name: (typeof PAGES)[number], plotSelector?: string): Promise<void> {
  const plot = plotSelector === undefined ? undefined : await regionOf(f.page, plotSelector);
  if (plotSelector !== undefined) expect(plot, `${plotSelector} is in the viewport of the ${name} screenshot`).toBeDefined();
  screenshots.set(name, { png: await f.page.screenshot({ scale: 'css' }), plot });
}

async function signInStep(): Promise<void> {
  const { page, url } = f;
  const served = await page.goto(`${url}/`);
  // The console is served with its CSP, so the "no CSP violation" check of every step means something.
  expect(served?.headers()['content-security-policy']).toContain("script-src 'self'");
  await page.locator('[data-testid=signin-form]').waitFor();
  await screenshot('signin');
  expect(await page.locator('[data-testid=signin-form] input[name=apiKey]').getAttribute('type')).toBe('password');

  const refused = await call({ url }, 'POST', '/v2.0/tokens', { json: { auth: { 'RAX-KSKEY:apiKeyCredentials': { username: USERNAME, apiKey: 'not-the-key-0123456789' } } } });
  expect(refused.status).toBe(401);
  const apiMessage = Object.values(refused.json as Record<string, { message: string }>)[0]?.message as string;
  expect(apiMessage.length).toBeGreaterThan(0);
  f.watched.expectFailedResource(/\/v2\.0\/tokens$/, 401);
  await page.fill('[data-testid=signin-form] input[name=username]', USERNAME);
  await page.fill('[data-testid=signin-form] input[name=apiKey]', 'not-the-key-0123456789');
  await page.click('[data-testid=signin-form] button[type=submit]');
  await waitText(page, '[data-testid=message]', (text) => text.includes(apiMessage));
  expect(await page.locator('[data-testid=message]').getAttribute('role')).toBe('alert');
  expect(page.url()).not.toContain('#/metrics');

  await page.fill('[data-testid=signin-form] input[name=apiKey]', API_KEY);
  const signedIn = page.waitForResponse((response) => response.url().endsWith('/v2.0/tokens') && response.status() === 200);
  await page.click('[data-testid=signin-form] button[type=submit]');
  const consoleToken = ((await (await signedIn).json()) as { access: { token: { id: string } } }).access.token.id;
  await until('#/metrics after signing in', () => (new URL(page.url()).hash.startsWith('#/metrics') ? true : undefined), PAGE_WAIT_MS);
  await waitText(page, '[data-testid=whoami]', (text) => text.includes(USERNAME) && text.includes(TENANT));
  expect(await textOf(page, '[data-testid=message]')).toBe('');
  const storage = await page.evaluate(() => ({
    session: Object.keys(sessionStorage).map((key) => sessionStorage.getItem(key) ?? ''),
    local: Object.keys(localStorage).map((key) => localStorage.getItem(key) ?? ''),
    cookie: document.cookie,
  }));
  expect(storage.session.some((value) => value.includes(consoleToken)), 'the token is in sessionStorage').toBe(true);
  expect(storage.local.some((value) => value.includes(consoleToken)), 'the token is not in localStorage').toBe(false);
  expect(storage.local).toEqual([]);
  expect(storage.cookie).toBe('');
  expect(await f.watched.context.cookies()).toEqual([]);
}

async function plotStep(): Promise<void> {
  const { page } = f;
  await page.fill('[data-testid=metric-search]', 'saw');
  await page.locator(`[data-testid=metric-results] [data-metric="${SAW}"]`).waitFor();
  const listed = await page.locator('[data-testid=metric-results] [data-metric]').evaluateAll((items) => items.map((item) => item.getAttribute('data-metric')));
  expect(listed).toEqual([SAW]);
  await waitText(page, '[data-testid=search-status]', (text) => /\b1 metric\b/.test(text));
  await page.fill('[data-testid=metric-search]', 'console.cpu');
  await waitText(page, '[data-testid=search-status]', (text) => /\b2 metrics\b/.test(text));
  await page.fill('[data-testid=metric-search]', 'saw');
  await page.locator(`[data-testid=metric-results] [data-metric="${SAW}"] [data-testid=add-metric]`).click();
  await page.locator(`[data-testid=plotted] [data-metric="${SAW}"]`).waitFor();
  await choose(f, '[data-testid=range]', '1h');
  await waitText(page, '[data-testid=plan-resolution]', (text) => text === 'FULL');

  // The plan beside the plot is the API's plan for what the page asked: auto points for the plot's width over 1 h.
  const plan = await expectPanelIsApiPlan(f, SAW);
  expect(Number(plan.params.get('to')) - Number(plan.params.get('from'))).toBe(HOUR_MS);
  const requested = /^auto: (\d+) points for (\d+) px$/.exec(await textOf(page, '[data-testid=plan-requested]'));
  expect(requested, 'plan-requested reads "auto: N points for W px"').not.toBeNull();
  expect(plan.params.get('points')).toBe(requested?.[1]);
  expect(await textOf(page, '[data-testid=plan-cut]')).toBe('none');

  // The data drawn is exactly the API's, and the API's is the sawtooth seeded.
  const values = await expectPlotIsApi(f, SAW);
  expect(values.length).toBeGreaterThanOrEqual(100);
  for (const value of values) expect(value.average).toBe(SAW_LEVEL_VALUE(sawLevel(value.timestamp)));

  // Pixels: each sampled point is drawn in the line's colour; mid-way between two points, far from the line, nothing is.
  const { on, off } = sawtoothProbes(values);
  expect(new Set(on.map((p) => p.y)).size).toBe(SAW_LEVELS);
  expect(off.length).toBeGreaterThanOrEqual(5);
  const report = await readPixels(page, await metricsPlotId(f), SAW, [...on, ...off]);
  expect(report.xs).toEqual(values.map((v) => v.timestamp));
  expect(report.ys).toEqual(values.map((v) => v.average ?? null));
  expect(report.stroke[3]).toBe(255);
  for (const result of report.results) {
    expect(Math.abs(result.canvasX - result.uplotX), 'valToPos x times devicePixelRatio agrees with uPlot').toBeLessThanOrEqual(1);
    expect(Math.abs(result.canvasY - result.uplotY), 'valToPos y times devicePixelRatio agrees with uPlot').toBeLessThanOrEqual(1);
    expect(result.canvasX).toBeGreaterThan(0);
    expect(result.canvasX).toBeLessThan(report.canvasWidth);
    expect(result.canvasY).toBeGreaterThan(0);
    expect(result.canvasY).toBeLessThan(report.canvasHeight);
  }
  for (const result of report.results.slice(0, on.length)) expect(result.nearest, `stroke colour near ${JSON.stringify(result.probe)}`).toBeLessThanOrEqual(COLOUR_DISTANCE_MAX);
  for (const result of report.results.slice(on.length)) expect(result.nearest, `no stroke colour near ${JSON.stringify(result.probe)} (far from the line)`).toBeGreaterThan(COLOUR_DISTANCE_MAX);
  expect(await textOf(page, '[data-testid=message]')).toBe('');
  await screenshot('metrics', '[data-testid=plot] canvas');
}

async function rangeStep(): Promise<void> {
  const { page, requests } = f;
  await choose(f, '[data-testid=range]', '7d');
  const resolution = await waitText(page, '[data-testid=plan-resolution]', (text) => text !== 'FULL' && text !== '');
  expect(['MIN5', 'MIN20', 'MIN60', 'MIN240', 'MIN1440']).toContain(resolution);
  const plan = await expectPanelIsApiPlan(f, SAW);
  expect(Number(plan.params.get('to')) - Number(plan.params.get('from'))).toBe(7 * DAY_MS);
  const values = await expectPlotIsApi(f, SAW);
  // The rollup holds the older points too: values from more than a day back are drawn.
  const to = Number(plan.params.get('to'));
  expect(values.filter((v) => v.timestamp < to - DAY_MS && v.average !== null).length).toBeGreaterThan(10);
  expect(await page.locator('[data-testid=plan-limit]').isVisible()).toBe(false);

  await page.locator('[data-testid=points-mode]').selectOption('points');
  const mark = requests.mark();
  await page.locator('[data-testid=points]').fill('5000');
  await page.locator('[data-testid=points]').press('Enter');
  await page.locator('[data-testid=points]').blur();
  await requests.waitFor(VIEWS_PATH, mark, PAGE_WAIT_MS);
  await waitAttribute(page, '[data-testid=plot]', 'data-state', 'ready');
  await page.locator('[data-testid=plan-limit]').waitFor({ state: 'visible' });
  const limit = await textOf(page, '[data-testid=plan-limit]');
  expect(limit).toContain('1440');
  expect(limit).toContain('5000');
  expect(await textOf(page, '[data-testid=message]')).toBe('');
  expect(Number(requests.last(VIEWS_PATH).searchParams.get('points'))).toBeLessThanOrEqual(1440);
  await expectPanelIsApiPlan(f, SAW);
  await expectPlotIsApi(f, SAW);
}

/** The entity page's last-refresh time: the text and its data-updated-ms (integer ms). */
async function updatedAt(): Promise<{ text: string; ms: number }> {
  const text = await textOf(f.page, '[data-testid=updated-at]');
  const raw = await f.page.locator('[data-testid=updated-at]').getAttribute('data-updated-ms');
  expect(raw, '[data-testid=updated-at] carries data-updated-ms').toMatch(/^\d+$/);
  return { text, ms: Number(raw) };
}

async function alarmStep(): Promise<void> {
  const { page, url, token } = f;
  const tree = await createMonitoredTree(url, token, TENANT, 'console-web-1', targetUrl, ZONE);
  const b = base(TENANT);
  // The first run (at once, on enabling) stores the check's metrics: the page's check plots have data.
  await until('the check metrics of the first run', async () => {
    const listed = await call({ url }, 'GET', `${b}/entities/${tree.entity}/checks/${tree.check}/metrics`, { token });
    return (listed.json as any)?.values?.length > 0 ? true : undefined;
  }, PAGE_WAIT_MS);

  await page.goto(`${url}/#/entities`);
  await page.locator(`[data-testid=entity-list] [data-entity-id="${tree.entity}"]`).waitFor();
  await waitAttribute(page, '[data-testid=page]', 'data-loading', 'false');
  await screenshot('entities');
  await page.fill('[data-testid=entity-search]', 'console-web');
  await waitText(page, '[data-testid=entity-count]', (text) => /\b1 found\b/.test(text));
  await page.locator(`[data-testid=entity-list] [data-entity-id="${tree.entity}"] a`).first().click();
  await until('the entity page', () => (new URL(page.url()).hash.startsWith(`#/entities/${tree.entity}`) ? true : undefined), PAGE_WAIT_MS);
  await waitText(page, '[data-testid=entity-title]', (text) => text.includes('console-web-1'));
  // Refresh every second from here on.
  const openedMs = Date.now();
  await page.evaluate((entity) => (window.location.hash = `#/entities/${entity}?refresh=1000`), tree.entity);
  await page.locator(`[data-testid=check-list] [data-check-id="${tree.check}"]`).waitFor();
  const state = `[data-testid=alarm-list] [data-alarm-id="${tree.alarm}"] [data-testid=alarm-state]`;
  await waitText(page, state, (text) => text === 'OK');
  await waitAttribute(page, state, 'data-state', 'OK');
  const okColour = await page.locator(state).evaluate((node) => getComputedStyle(node).backgroundColor + getComputedStyle(node).color);
  const plot = `[data-testid=check-plots] [data-plot-id="${tree.check}:${ZONE}"]`;
  await waitAttribute(page, plot, 'data-state', 'ready');
  const checkPlot = await plotData(page, `${tree.check}:${ZONE}`);
  expect(checkPlot.timestamps.length).toBeGreaterThanOrEqual(1);
  expect(checkPlot.metrics.length).toBeGreaterThanOrEqual(1);
  await screenshot('entity', `${plot} canvas`);

  // The page says when it last refreshed, and that time moves on with each refresh.
  await waitText(page, '[data-testid=updated-at]', (text) => /^Updated /.test(text));
  const first = await updatedAt();
  expect(first.text).toMatch(/^Updated /);
  expect(first.ms, 'data-updated-ms is a time after the page was opened').toBeGreaterThanOrEqual(openedMs);
  const later = await until('data-updated-ms to increase with the next refresh', async () => {
    const next = await updatedAt();
    return next.ms > first.ms ? next : undefined;
  }, PAGE_WAIT_MS);
  expect(later.text).toMatch(/^Updated /);

  target.status = 500;
  await waitText(page, state, (text) => text === 'CRITICAL', ALARM_WAIT_MS);
  await waitAttribute(page, state, 'data-state', 'CRITICAL');
  const criticalColour = await page.locator(state).evaluate((node) => getComputedStyle(node).backgroundColor + getComputedStyle(node).color);
  expect(criticalColour, 'CRITICAL is coloured apart from OK').not.toBe(okColour);
  const changelog = await call({ url }, 'GET', `${b}/changelogs/alarms?entityId=${tree.entity}`, { token });
  const entry = ((changelog.json as any).values as any[]).find((e) => e.alarm_id === tree.alarm && e.previous_state === 'OK' && e.state === 'CRITICAL');
  expect(entry, 'the API changelog has OK → CRITICAL').toBeDefined();
  const item = `[data-testid=changelog] [data-changelog-id="${entry.id}"]`;
  await page.locator(item).waitFor({ timeout: PAGE_WAIT_MS });
  const states = await page.locator(`${item} [data-state]`).evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-state')));
  expect(states).toEqual(['OK', 'CRITICAL']);
  expect(await textOf(page, '[data-testid=message]')).toBe('');
}

async function screenshotsStep(): Promise<void> {
  const blankPage = await (f.browser as NonNullable<typeof f.browser>).newPage();
  try {
    await blankPage.page.goto('about:blank');
    const blank = await blankPage.page.screenshot({ scale: 'css' });
    expect(pngDimensions(blank)).toEqual(VIEWPORT);
    const blankInk = await screenshotInk(blankPage.page, blank);
    expect(blankInk.inked, 'a blank page has no ink (else the ink counts below mean nothing)').toBe(0);
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    const figures: Record<string, unknown> = { blank: { bytes: blank.length, ...blankInk } };
    for (const name of PAGES) {
      const shot = screenshots.get(name);
      expect(shot, `a screenshot of the ${name} page`).toBeDefined();
      const { png, plot } = shot as { png: Buffer; plot: Region | undefined };
      writeFileSync(join(SCREENSHOT_DIR, `${name}.png`), png);
      expect(pngDimensions(png), `${name}.png is a PNG of the viewport`).toEqual(VIEWPORT);
      const ink = await screenshotInk(blankPage.page, png, plot);
      figures[name] = { bytes: png.length, ...ink };
      const area = VIEWPORT.width * VIEWPORT.height;
      expect(ink.inked, `${name}.png: pixels off its background (of ${area})`).toBeGreaterThan(INK_SHARE_MIN * area);
      expect(ink.colours, `${name}.png: distinct colours`).toBeGreaterThanOrEqual(COLOURS_MIN);
      if (plot === undefined) continue;
      expect(png.length, `${name}.png (a page with a plot) bytes against a blank page's ${blank.length}`).toBeGreaterThan(PLOT_PAGE_BLANK_FACTOR * blank.length);
      expect(ink.regionInked, `${name}.png: ink in the plot's ${ink.regionArea} px`).toBeGreaterThan(PLOT_INK_SHARE_MIN * ink.regionArea);
    }
    writeFileSync(join(SCREENSHOT_DIR, 'figures.json'), `${JSON.stringify(figures, null, 2)}\n`);
  } finally {
    await blankPage.context.close();
  }
}

describe('the web console in chromium', () => {
  // One tab through the whole sequence: each step starts where the one before left the page, so they run as steps of one test, never alone.
  it('signs in, plots a metric, changes its range, watches an alarm turn CRITICAL, and writes a screenshot of each page', async () => {
    await step(f.watched, '1 sign in: a wrong key shows the API message; the token lives in sessionStorage only', signInStep);
    await step(f.watched, '2 find a metric and plot it: the drawn points are the API values, on the canvas where uPlot puts them', plotStep);
    await step(f.watched, '3 change the range from 1 h to 7 d: a rollup resolution with the API plan count; 5000 points explain the 1440 limit', rangeStep);
    await step(f.watched, '4 an entity with its check and alarm: OK, refreshed, then CRITICAL with a changelog entry once the target fails', alarmStep);
    await step(f.watched, '5 a PNG screenshot of each page, of the viewport size, well above a blank page', screenshotsStep);
  }, TEST_TIMEOUT_MS);
});
