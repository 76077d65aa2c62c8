// Tests the metrics ingest and query APIs over real HTTP against the real engine.
import { pack } from 'msgpackr';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store.js';
import type { Store } from '../../src/store-types.js';
import { call, startHarness, type Harness } from '../http/harness.js';

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;
/** Points every 30 s over the last hour, on 5-minute boundaries so MIN5 buckets hold 10 points each. */
const NOW = Math.floor(Date.now() / (5 * MINUTE_MS)) * 5 * MINUTE_MS;
const times = Array.from({ length: 120 }, (_, i) => NOW - 3_600_000 + i * 30_000);

function metric(name: string, value: number | string, time: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { metricName: name, metricValue: value, collectionTime: time, ttlInSeconds: 172_800, unit: 'percent', ...extra };
}

const makeStore = (dir: string): Promise<Store> => openStore({ dir, workers: 0, background: false });

describe('metrics ingest and query over HTTP with the real engine', () => {
  let h: Harness;
  let alice: string;

  beforeEach(async () => {
    h = await startHarness({ makeStore });
    alice = await h.token('alice');
  });
  afterEach(async () => h.close());

  it('ingests JSON (200, empty body) and serves the values through views', async () => {
    const res = await call(h, 'POST', '/ingest/v2.0/t1/ingest', { token: alice, json: times.map((t, i) => metric('cpu.user', i, t)) });
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    const view = await call(h, 'GET', `/metrics/v2.0/t1/views/cpu.user?from=${NOW - 3_600_000}&to=${NOW}&resolution=FULL&select=average,min`, { token: alice });
    expect(view.status).toBe(200);
    expect(view.json.unit).toBe('percent');
    expect(view.json.values).toHaveLength(120);
    expect(view.json.values[5]).toMatchObject({ timestamp: times[5], numPoints: 1, average: 5 });
    expect(view.json.metadata).toEqual({ count: 120, limit: null, marker: null, next_marker: null, next_href: null });
  });

  it('round-trips application/x-msgpack', async () => {
    const body = pack(times.map((t, i) => metric('net.rx', i * 1.5, t)));
    const res = await call(h, 'POST', '/ingest/v2.0/t1/ingest', { token: alice, body, type: 'application/x-msgpack' });
    expect(res.status).toBe(200);
    const view = await call(h, 'GET', `/metrics/v2.0/t1/views/net.rx?from=${NOW - 3_600_000}&to=${NOW}&resolution=FULL`, { token: alice });
    expect(view.json.values.map((v: { average: number }) => v.average)).toEqual(times.map((_, i) => i * 1.5));
    const garbage = await call(h, 'POST', '/ingest/v2.0/t1/ingest', { token: alice, body: new Uint8Array([0xc1, 0xc1]), type: 'application/x-msgpack' });
    expect(garbage.status).toBe(400);
  });

  it('answers 207 listing each bad point, 400 when all are bad, 400 for bad bodies', async () => {
    const mixed = [metric('ok', 1, NOW - 1000), metric('', 2, NOW - 1000), metric('old', 3, NOW - 10 * DAY_MS), { metricName: 'x' }, metric('ok2', 4, NOW - 1000, { ttlInSeconds: 0 })];
    const partial = await call(h, 'POST', '/ingest/v2.0/t1/ingest', { token: alice, json: mixed });
    expect(partial.status).toBe(207);
    expect(partial.json.accepted).toBe(1);
    expect(partial.json.rejected).toBe(4);
    expect(partial.json.errors.map((e: { index: number; source: string }) => [e.index, e.source])).toEqual([
      [1, 'metricName'],
      [2, 'collectionTime'],
      [3, 'metricValue'],
      [4, 'ttlInSeconds'],
    ]);
    expect(partial.json.errors[1]).toMatchObject({ tenantId: 't1', metricName: 'old', code: 'INGEST_TIMESTAMP_TOO_OLD', timestamp: NOW - 10 * DAY_MS });
    const allBad = await call(h, 'POST', '/ingest/v2.0/t1/ingest', { token: alice, json: [metric('a', 1, NOW + DAY_MS), metric('b', 'x'.repeat(5000), NOW)] });
    expect(allBad.status).toBe(400);
    expect(allBad.json).toMatchObject({ type: 'badRequest', code: 400, details: { code: 'INGEST_POINTS_REJECTED' } });
    expect(allBad.json.errors.map((e: { code: string }) => e.code)).toEqual(['INGEST_TIMESTAMP_IN_FUTURE', 'INGEST_VALUE_INVALID']);
    for (const body of ['{"not":"an array"}', '[1,2', '']) {
      const res = await call(h, 'POST', '/ingest/v2.0/t1/ingest', { token: alice, body, type: 'application/json' });
      expect(res.status).toBe(400);
      expect(res.json.errors).toHaveLength(1);
    }
    const empty = await call(h, 'POST', '/ingest/v2.0/t1/ingest', { token: alice, json: [] });
    expect(empty.status).toBe(400);
    expect(empty.json.details.code).toBe('INGEST_BATCH_EMPTY');
    const nulls = await call(h, 'POST', '/ingest/v2.0/t1/ingest', { token: alice, json: [metric('n', 1, NOW - 1000), { ...metric('n', 0, NOW - 2000), metricValue: null }] });
    expect(nulls.status).toBe(200);
  });

  it('plot rules: 400 without points or resolution, 413 over 1440 points, points choose a resolution', async () => {
    await call(h, 'POST', '/ingest/v2.0/t1/ingest', { token: alice, json: times.map((t, i) => metric('mem', i, t)) });
    const base = `/metrics/v2.0/t1/views/mem?from=${NOW - DAY_MS}&to=${NOW}`;
    const neither = await call(h, 'GET', base, { token: alice });
    expect(neither.status).toBe(400);
    expect(neither.json).toMatchObject({ type: 'badRequest', code: 400, details: { code: 'QUERY_POINTS_OR_RESOLUTION_REQUIRED' } });
    const over = await call(h, 'GET', `${base}&resolution=FULL`, { token: alice });
    expect(over.status).toBe(413);
    expect(over.json).toMatchObject({ type: 'requestTooLargeError', code: 413, details: { code: 'QUERY_POINTS_OVER_LIMIT' } });
    const badSelect = await call(h, 'GET', `${base}&points=288&select=median`, { token: alice });
    expect(badSelect.status).toBe(400);
    expect(badSelect.json.details.code).toBe('QUERY_SELECT_INVALID');
    const badRange = await call(h, 'GET', `/metrics/v2.0/t1/views/mem?from=${NOW}&to=${NOW - 1}&points=10`, { token: alice });
    expect(badRange.json.details.code).toBe('QUERY_RANGE_INVALID');
    await h.app.strata.store.flush();
    const plot = await call(h, 'GET', `${base}&points=288&select=average&select=max,numPoints`, { token: alice });
    expect(plot.status).toBe(200);
    expect(plot.json.values.length).toBe(12);
    expect(plot.json.values[0]).toMatchObject({ numPoints: 10 });
    expect(plot.json.values[0].max).toBeTypeOf('number');
  });

  it('POST views for many metrics (observers too), at most 100 names', async () => {
    await call(h, 'POST', '/ingest/v2.0/t1/ingest', { token: alice, json: [metric('a.one', 1, NOW - 60_000), metric('a.two', 2, NOW - 60_000)] });
    const olga = await h.token('olga');
    const query = `?from=${NOW - 3_600_000}&to=${NOW}&resolution=FULL`;
    const many = await call(h, 'POST', `/metrics/v2.0/t1/views${query}`, { token: olga, json: ['a.one', 'a.two', 'a.none'] });
    expect(many.status).toBe(200);
    expect(many.json.metrics.map((m: { metric: string; data: unknown[] }) => [m.metric, m.data.length])).toEqual([
      ['a.one', 1],
      ['a.two', 1],
      ['a.none', 0],
    ]);
    expect(many.json.metrics[0]).toMatchObject({ unit: 'percent', type: 'number' });
    const tooMany = await call(h, 'POST', `/metrics/v2.0/t1/views${query}`, { token: olga, json: Array.from({ length: 101 }, (_, i) => `m${i}`) });
    expect(tooMany.status).toBe(400);
    expect(tooMany.json.message).toBe('Too many metrics fetch in a single call. Max limit is 100.');
    const notNames = await call(h, 'POST', `/metrics/v2.0/t1/views${query}`, { token: olga, json: { metrics: ['a'] } });
    expect(notNames.status).toBe(400);
  });

  it('searches metric names by glob, within the tenant only', async () => {
    const names = ['cpu.user', 'cpu.system', 'mem.free', 'cpu.idle.x'];
    await call(h, 'POST', '/ingest/v2.0/t1/ingest', { token: alice, json: names.map((n) => metric(n, 1, NOW - 60_000)) });
    const found = await call(h, 'GET', '/metrics/v2.0/t1/metrics/search?query=cpu.*', { token: alice });
    expect(found.json).toEqual([
      { metric: 'cpu.idle.x', unit: 'percent' },
      { metric: 'cpu.system', unit: 'percent' },
      { metric: 'cpu.user', unit: 'percent' },
    ]);
    const one = await call(h, 'GET', '/metrics/v2.0/t1/metrics/search?query=cpu.?ser', { token: alice });
    expect(one.json).toEqual([{ metric: 'cpu.user', unit: 'percent' }]);
    const missingQuery = await call(h, 'GET', '/metrics/v2.0/t1/metrics/search', { token: alice });
    expect(missingQuery.status).toBe(400);
    const bob = await h.token('bob');
    expect((await call(h, 'GET', '/metrics/v2.0/t2/metrics/search?query=*', { token: bob })).json).toEqual([]);
  });

  it('multi-tenant ingest writes the caller tenant and refuses others per point by default', async () => {
    const body = [metric('m.own', 1, NOW - 1000, { tenantId: 't1' }), metric('m.other', 2, NOW - 1000, { tenantId: 't2' }), metric('m.none', 3, NOW - 1000)];
    const res = await call(h, 'POST', '/ingest/v2.0/t1/ingest/multi', { token: alice, json: body });
    expect(res.status).toBe(207);
    expect(res.json.errors.map((e: { index: number; code: string }) => [e.index, e.code])).toEqual([
      [1, 'AUTH_TENANT_FORBIDDEN'],
      [2, 'INGEST_TENANT_INVALID'],
    ]);
    const bob = await h.token('bob');
    expect((await call(h, 'GET', '/metrics/v2.0/t2/metrics/search?query=*', { token: bob })).json).toEqual([]);
  });

  it('413 for a body over the limit', async () => {
    const small = await startHarness({ makeStore, config: { bodyLimitBytes: 1024 } });
    try {
      const token = await small.token('alice');
      const res = await call(small, 'POST', '/ingest/v2.0/t1/ingest', { token, json: times.map((t, i) => metric('big', i, t)) });
      expect(res.status).toBe(413);
      expect(res.json).toMatchObject({ type: 'requestTooLargeError', code: 413, details: { code: 'HTTP_BODY_TOO_LARGE' } });
    } finally {
      await small.close();
    }
  });

  it('exposes /healthz and Prometheus /metrics with ingest counters, latency histogram, queue depth and rollup lag', async () => {
    await call(h, 'POST', '/ingest/v2.0/t1/ingest', { token: alice, json: [metric('c', 1, NOW - 1000), metric('', 1, NOW - 1000)] });
    const health = await call(h, 'GET', '/healthz');
    expect(health.status).toBe(200);
    expect(health.json).toEqual({ status: 'ok' });
    const scrape = await call(h, 'GET', '/metrics');
    expect(scrape.status).toBe(200);
    expect(scrape.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(scrape.text).toMatch(/strata_points_ingested_total\{format="json"\} 1/);
    expect(scrape.text).toMatch(/strata_points_rejected_total\{format="json"\} 1/);
    expect(scrape.text).toMatch(/strata_http_request_duration_seconds_bucket\{.*route="\/ingest\/v2.0\/:tenant\/ingest".*status="207"/);
    expect(scrape.text).toMatch(/strata_admission_queue_depth\{work="ingest",state="waiting"\} 0/);
    expect(scrape.text).toMatch(/strata_rollup_lag_seconds \d/);
  });
});

describe('multi-tenant ingest when enabled', () => {
  it('lets admins write points of any tenant', async () => {
    const h = await startHarness({ makeStore, config: { multiTenantIngest: true } });
    try {
      const alice = await h.token('alice');
      const res = await call(h, 'POST', '/ingest/v2.0/t1/ingest/multi', { token: alice, json: [metric('x.for.bob', 1, NOW - 1000, { tenantId: 't2' })] });
      expect(res.status).toBe(200);
      const bob = await h.token('bob');
      expect((await call(h, 'GET', '/metrics/v2.0/t2/metrics/search?query=x.*', { token: bob })).json).toEqual([{ metric: 'x.for.bob', unit: 'percent' }]);
    } finally {
      await h.close();
    }
  });
});

