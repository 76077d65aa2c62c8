// Tests GET /metrics/v2.0/{tenant}/views/{metric}/plan in process: the planner's decision over HTTP, the same validation as the view, and the view agreeing with it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import { QUERY_POINTS_MAX } from '../../../../src/core/limits.js';
import { DEFAULT_RETENTION_MS } from '../../../../src/model/resolution.js';
import { startHarness, type Harness } from '../../harness.js';
import { expectMetricsError, inject, tokenOf } from '../../inject.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;
const NOW_MS = Date.UTC(2026, 0, 10, 12);
const PLAN = '/metrics/v2.0/t1/views/cpu/plan';

describe('GET views/{metricName}/plan', () => {
  let h: Harness;
  let alice: string;

  beforeAll(async () => {
    h = await startHarness({ clock: new ManualClock(NOW_MS) });
    alice = await tokenOf(h, 'alice');
    const points = Array.from({ length: 60 }, (_, i) => ({ metricName: 'cpu', metricValue: i, collectionTime: NOW_MS - HOUR_MS + i * MINUTE_MS }));
    expect((await inject(h, 'POST', '/ingest/v2.0/t1/ingest', { token: alice, json: points })).status).toBe(200);
  });
  afterAll(async () => h.close());

  const get = (url: string, token: string | null = alice) => inject(h, 'GET', url, token === null ? {} : { token });

  it('answers the resolution picked for points, its expected count, the limit and the bucket width', async () => {
    const response = await get(`${PLAN}?from=${NOW_MS - 2 * DAY_MS}&to=${NOW_MS}&points=288`);
    expect(response.status).toBe(200);
    const plan = response.json as Record<string, unknown>;
    expect(plan).toMatchObject({ resolution: 'MIN20', from: NOW_MS - 2 * DAY_MS, to: NOW_MS, expectedPoints: 144, overLimit: false, pointsMax: QUERY_POINTS_MAX, bucketWidthMs: 20 * MINUTE_MS });
    expect(plan.servedFrom).toBe(NOW_MS - 2 * DAY_MS);
    expect(String(plan.reason)).toContain('288 points asked');
  });

  it('shows the retention cut: servedFrom later than from when FULL data has expired', async () => {
    const from = NOW_MS - DEFAULT_RETENTION_MS.FULL - DAY_MS;
    const response = await get(`${PLAN}?from=${from}&to=${NOW_MS}&resolution=FULL`);
    expect(response.status).toBe(200);
    const plan = response.json as { servedFrom: number; overLimit: boolean; expectedPoints: number; reason: string };
    expect(plan.servedFrom).toBe(NOW_MS - DEFAULT_RETENTION_MS.FULL);
    expect(plan.reason).toContain('has expired');
    // FULL over that range is far past the cap: the plan says so instead of refusing.
    expect(plan.overLimit).toBe(true);
    expect(plan.expectedPoints).toBeGreaterThan(QUERY_POINTS_MAX);
  });

  it('agrees with the view: an over-limit plan is the view that answers 413, an in-limit plan the count the view returns', async () => {
    const over = `from=${NOW_MS - 2 * DAY_MS}&to=${NOW_MS}&resolution=FULL`;
    expect((await get(`${PLAN}?${over}`)).json).toMatchObject({ overLimit: true, expectedPoints: 5760 });
    expectMetricsError(await get(`/metrics/v2.0/t1/views/cpu?${over}`), 413, 'QUERY_POINTS_OVER_LIMIT');
    const within = `from=${NOW_MS - HOUR_MS}&to=${NOW_MS}&resolution=FULL`;
    expect((await get(`${PLAN}?${within}`)).json).toMatchObject({ resolution: 'FULL', overLimit: false });
    const view = (await get(`/metrics/v2.0/t1/views/cpu?${within}`)).json as { values: unknown[] };
    expect(view.values).toHaveLength(60);
  });

  it('refuses what the view refuses, in the metrics error body', async () => {
    expectMetricsError(await get(`${PLAN}?from=${NOW_MS}&to=${NOW_MS - 1}&points=10`), 400, 'QUERY_RANGE_INVALID');
    expectMetricsError(await get(`${PLAN}?from=0&to=${NOW_MS}`), 400, 'QUERY_POINTS_OR_RESOLUTION_REQUIRED');
    expectMetricsError(await get(`${PLAN}?from=0&to=${NOW_MS}&resolution=MIN7`), 400, 'QUERY_RESOLUTION_INVALID');
    expectMetricsError(await get(`${PLAN}?to=${NOW_MS}&points=10`), 400, 'QUERY_INVALID');
  });

  it('needs a token of the tenant', async () => {
    expect((await get(`${PLAN}?from=0&to=${NOW_MS}&points=10`, null)).status).toBe(401);
    const bob = await tokenOf(h, 'bob');
    expect((await get(`${PLAN}?from=0&to=${NOW_MS}&points=10`, bob)).status).toBe(403);
  });
});
