// Writes check metrics through the ingest API under the documented naming scheme and reads them back through operations 5 and 6.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startHarness, type Harness } from '../http/harness.js';
import { base, create, expectFault, httpCheck } from './monitoring-client.js';

const MINUTE_MS = 60_000;
const NOW = Math.floor(Date.now() / (5 * MINUTE_MS)) * 5 * MINUTE_MS;
/** Every 30 s over the last hour. */
const TIMES = Array.from({ length: 120 }, (_, i) => NOW - 3_600_000 + i * 30_000);
const b = base('t1');

function point(name: string, value: number | string, time: number, unit: string): Record<string, unknown> {
  return { metricName: name, metricValue: value, collectionTime: time, ttlInSeconds: 172_800, unit };
}

describe('check metrics (operations 5 and 6) from the ingest API', () => {
  let h: Harness;
  let alice: string;
  let entity: string;
  let check: string;
  let metricsPath: string;

  beforeAll(async () => {
    h = await startHarness({});
    alice = await h.token('alice');
    entity = await create(h, alice, `${b}/entities`, { label: 'web', ip_addresses: { web: '192.0.2.1' } });
    check = await create(h, alice, `${b}/entities/${entity}/checks`, httpCheck());
    metricsPath = `${b}/entities/${entity}/checks/${check}/metrics`;
    const series = (metric: string) => `${entity}.${check}.${metric}`;
    const points = TIMES.flatMap((t, i) => [
      point(series('mzdfw.duration'), 100 + i, t, 'milliseconds'),
      point(series('mzord.duration'), 90 + i, t, 'milliseconds'),
      point(series('mzdfw.code'), '200', t, 'unknown'),
      point(series('mzdfw.tt_connect'), 1.5 + i / 4, t, 'seconds'),
    ]);
    // Another check's metric with the same metric name must not appear.
    points.push(point(`${entity}.chOther.mzdfw.duration`, 1, NOW - MINUTE_MS, 'milliseconds'));
    const res = await call(h, 'POST', '/ingest/v2.0/t1/ingest', { token: alice, json: points });
    expect(res.status).toBe(200);
  });
  afterAll(async () => h.close());

  it('lists the metrics the check produced, with unit and one-letter type', async () => {
    const res = await call(h, 'GET', metricsPath, { token: alice });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      values: [
        { name: 'mzdfw.code', unit: 'unknown', type: 's' },
        { name: 'mzdfw.duration', unit: 'milliseconds', type: 'l' },
        { name: 'mzdfw.tt_connect', unit: 'seconds', type: 'n' },
        { name: 'mzord.duration', unit: 'milliseconds', type: 'l' },
      ],
      metadata: { count: 4, limit: 100, marker: null, next_marker: null, next_href: null },
    });
  });

  it('prefers declared types, and pages by metric name', async () => {
    h.app.strata.monitoring.declareMetricTypes('t1', entity, check, { 'mzdfw.duration': 'I' });
    const first = await call(h, 'GET', `${metricsPath}?limit=3`, { token: alice });
    expect(first.json.values.map((m: { name: string; type: string }) => `${m.name}:${m.type}`)).toEqual(['mzdfw.code:s', 'mzdfw.duration:I', 'mzdfw.tt_connect:n']);
    expect(first.json.metadata).toMatchObject({ count: 3, limit: 3, next_marker: 'mzord.duration' });
    const second = await call(h, 'GET', first.json.metadata.next_href.slice(h.url.length), { token: alice });
    expect(second.json.values.map((m: { name: string }) => m.name)).toEqual(['mzord.duration']);
    expect(second.json.metadata).toMatchObject({ marker: 'mzord.duration', next_marker: null, next_href: null });
    const fromMiddle = await call(h, 'GET', `${metricsPath}?marker=mzdfw.e`, { token: alice });
    expect(fromMiddle.json.values.map((m: { name: string }) => m.name)).toEqual(['mzdfw.tt_connect', 'mzord.duration']);
    expect((await call(h, 'GET', `${metricsPath}?marker=zzz`, { token: alice })).json.values).toEqual([]);
    expectFault(await call(h, 'GET', `${metricsPath}?limit=0`, { token: alice }), 400, 'invalidLimit');
  });

  it('plots a metric with the planner rules: resolution, points, select', async () => {
    const plot = `${metricsPath}/mzdfw.duration/plot`;
    const full = await call(h, 'GET', `${plot}?from=${NOW - 3_600_000}&to=${NOW}&resolution=FULL`, { token: alice });
    expect(full.status).toBe(200);
    expect(full.json.values).toHaveLength(120);
    expect(full.json.values[3]).toEqual({ timestamp: TIMES[3], numPoints: 1, average: 103 });
    expect(full.json.metadata).toEqual({ count: 120, limit: null, marker: null, next_marker: null, next_href: null });
    await h.app.strata.store.flush();
    const rolled = await call(h, 'GET', `${plot}?from=${NOW - 86_400_000}&to=${NOW}&points=288&select=average&select=max&select=min`, { token: alice });
    expect(rolled.json.values).toHaveLength(12);
    expect(rolled.json.values[0]).toEqual({ timestamp: NOW - 3_600_000, numPoints: 10, average: 104.5, min: 100, max: 109 });
    const none = await call(h, 'GET', `${metricsPath}/mzdfw.nothing/plot?from=${NOW - 3_600_000}&to=${NOW}&resolution=FULL`, { token: alice });
    expect(none.json.values).toEqual([]);
  });

  it('answers 400, 401, 403, 404, 405 and 413 as the spec lists for operations 5 and 6', async () => {
    const plot = `${metricsPath}/mzdfw.duration/plot`;
    const neither = await call(h, 'GET', `${plot}?from=${NOW - 3_600_000}&to=${NOW}`, { token: alice });
    expectFault(neither, 400, 'badRequest');
    expect(neither.json.details.code).toBe('QUERY_POINTS_OR_RESOLUTION_REQUIRED');
    expectFault(await call(h, 'GET', `${plot}?from=${NOW}&to=${NOW - 1}&points=10`, { token: alice }), 400, 'badRequest');
    expectFault(await call(h, 'GET', `${plot}?from=${NOW - 3_600_000}&to=${NOW}&resolution=MIN7`, { token: alice }), 400, 'badRequest');
    const over = await call(h, 'GET', `${plot}?from=${NOW - 2 * 86_400_000}&to=${NOW}&resolution=FULL`, { token: alice });
    expectFault(over, 413, 'requestTooLargeError');
    expect(over.json.details.code).toBe('QUERY_POINTS_OVER_LIMIT');
    expectFault(await call(h, 'GET', metricsPath), 401, 'unauthorizedError');
    expectFault(await call(h, 'GET', plot), 401, 'unauthorizedError');
    const bob = await h.token('bob');
    expectFault(await call(h, 'GET', metricsPath, { token: bob }), 403, 'forbiddenError');
    expectFault(await call(h, 'GET', `${plot}?from=1&to=2&points=1`, { token: bob }), 403, 'forbiddenError');
    expectFault(await call(h, 'GET', `${b}/entities/${entity}/checks/chMissing/metrics`, { token: alice }), 404, 'notFoundError');
    expectFault(await call(h, 'GET', `${b}/entities/enMissing/checks/${check}/metrics/x/plot?from=1&to=2&points=1`, { token: alice }), 404, 'parentNotFoundError');
    for (const path of [metricsPath, plot]) {
      const post = await call(h, 'POST', path, { token: alice, json: {} });
      expectFault(post, 405, 'methodNotAllowedError');
      expect(post.headers.get('allow')).toBe('GET, HEAD');
    }
  });

  it('keeps tenant B away from tenant A\'s check metrics', async () => {
    const bob = await h.token('bob');
    const t2 = base('t2');
    const ownEntity = await create(h, bob, `${t2}/entities`, { label: 'b' });
    expectFault(await call(h, 'GET', `${t2}/entities/${entity}/checks/${check}/metrics`, { token: bob }), 404, 'parentNotFoundError');
    const ownCheck = await create(h, bob, `${t2}/entities/${ownEntity}/checks`, { type: 'agent.cpu' });
    // Even a tenant-B check whose ids collide with A's name scheme reads only B's series.
    const empty = await call(h, 'GET', `${t2}/entities/${ownEntity}/checks/${ownCheck}/metrics`, { token: bob });
    expect(empty.json.values).toEqual([]);
  });
});
