// Owns comparing the metrics page with the API: the plot's drawn data against the views API's answer for the same request, and the plan panel against the plan API's.
import { expect } from 'vitest';
import { call } from '../http/harness.js';
import type { ConsoleFixture } from './console-fixture.js';
import { PAGE_WAIT_MS_DEFAULT, rangeParams, textOf, waitAttribute } from './console-page.js';
import { plotData } from './console-pixels.js';

/** The page's requests for a plot's values (POST /metrics/v2.0/{tenant}/views) and for its plan. */
export const VIEWS_PATH = /\/metrics\/v2\.0\/[^/]+\/views$/;
export const PLAN_PATH = /\/metrics\/v2\.0\/[^/]+\/views\/[^/]+\/plan$/;

/** One value of the views API. */
export interface ViewValue {
  readonly timestamp: number;
  readonly average?: number | null;
  readonly min?: number | null;
  readonly max?: number | null;
}

/** The metrics page's plot id (its container's data-plot-id). */
export async function metricsPlotId(f: ConsoleFixture): Promise<string> {
  const id = await f.page.locator('[data-testid=plot]').getAttribute('data-plot-id');
  expect(id, '[data-testid=plot] carries data-plot-id').toBeTruthy();
  return id as string;
}

/** The API's values of `metric` for the view `request` asked (same range and density; average, min and max). */
export async function apiViewValues(f: ConsoleFixture, metric: string, request: URL): Promise<ViewValue[]> {
  const params = rangeParams(request);
  params.set('select', 'average,min,max');
  const res = await call({ url: f.url }, 'POST', `/metrics/v2.0/${f.options.tenant}/views?${params}`, { token: f.token, json: [metric] });
  expect(res.status, res.text).toBe(200);
  return (res.json as { metrics: { data: ViewValue[] }[] }).metrics[0]?.data ?? [];
}

/** Expects the metrics plot's data to be exactly the API's values of `metric` for `request` (default: the page's last views request); returns them. */
export async function expectPlotIsApi(f: ConsoleFixture, metric: string, request: URL = f.requests.last(VIEWS_PATH)): Promise<ViewValue[]> {
  const values = await apiViewValues(f, metric, request);
  const drawn = await plotData(f.page, await metricsPlotId(f));
  expect(drawn.metrics).toEqual([metric]);
  expect(drawn.timestamps, 'the drawn timestamps are the API answer\'s').toEqual(values.map((v) => v.timestamp));
  expect(drawn.series).toHaveLength(1);
  expect(drawn.series[0]?.average).toEqual(values.map((v) => v.average ?? null));
  expect(drawn.series[0]?.min).toEqual(values.map((v) => v.min ?? null));
  expect(drawn.series[0]?.max).toEqual(values.map((v) => v.max ?? null));
  return values;
}

/** Expects the plan panel to show the API's plan for the page's last plan request; returns that plan and the request's parameters. */
export async function expectPanelIsApiPlan(f: ConsoleFixture, metric: string): Promise<{ resolution: string; expectedPoints: number; params: URLSearchParams }> {
  const params = rangeParams(f.requests.last(PLAN_PATH));
  const res = await call({ url: f.url }, 'GET', `/metrics/v2.0/${f.options.tenant}/views/${encodeURIComponent(metric)}/plan?${params}`, { token: f.token });
  expect(res.status, res.text).toBe(200);
  const plan = res.json as { resolution: string; expectedPoints: number };
  expect(await textOf(f.page, '[data-testid=plan-resolution]')).toBe(plan.resolution);
  expect(await textOf(f.page, '[data-testid=plan-expected]')).toBe(String(plan.expectedPoints));
  return { ...plan, params };
}

/** Selects `value` in the select matching `selector`, waits for the views request it causes and for the plot to be `ready`; returns that request. */
export async function choose(f: ConsoleFixture, selector: string, value: string, timeoutMs = PAGE_WAIT_MS_DEFAULT): Promise<URL> {
  const mark = f.requests.mark();
  await f.page.locator(selector).selectOption(value);
  const request = await f.requests.waitFor(VIEWS_PATH, mark, timeoutMs);
  await waitAttribute(f.page, '[data-testid=plot]', 'data-state', 'ready', timeoutMs);
  return request;
}
