// Owns the end-to-end tests of Prometheus remote write and remote read: Debian's real prometheus binary scraping a local target, writing to and reading from `strata serve`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readerConfig, writerConfig, type StrataEndpoint } from './prometheus-configs.js';
import { promQuery, promSample, startPrometheus, type PromAnswer, type PrometheusProcess } from './prometheus-process.js';
import { startScrapeTarget, type ScrapeTarget } from './scrape-target.js';
import { ensureBuilt, runCli, startServe, tokenFor, type ServeProcess } from './serve-process.js';
import { searchMetrics, storedPoints, waitFor, type StoredPoint } from './strata-reads.js';

/** Generous: Prometheus' first write waits for a scrape, a batch deadline and any backoff after a refused batch. */
const WRITE_WAIT_MS = 90_000;
const STEP_TIMEOUT_MS = 180_000;
/** Counter samples each writing tenant must hold before the writer is stopped. */
const SAMPLES_WANTED = 4;
const JOB = 'e2e';
const LAB_CELSIUS = 21.5;
const HALL_CELSIUS = -3.25;
const QUEUE_DEPTH = 7;
const COUNTER_START = 1000;
const COUNTER_STEP = 5;
/** The hall gauge vanishes after this many scrapes, so Prometheus sends a staleness marker (a NaN) for it amid other samples. */
const HALL_SCRAPES = 2;
/** Strata's count of points it skips by design (NaN values such as staleness markers), per format. */
const SKIPPED_PROMETHEUS = /^strata_points_skipped_total\{format="prometheus"\} (\d+)$/m;
/** A label value with a quote and a backslash, as the target serves it (escaped) and as Prometheus reads it. */
const PATH_ESCAPED = String.raw`C:\\dir \"quoted\"`;
const PATH_VALUE = 'C:\\dir "quoted"';

/**
 * What the target serves on its `scrapeIndex`-th scrape: constant gauges (hall only on the first
 * HALL_SCRAPES scrapes) and a counter that grows by COUNTER_STEP each scrape.
 */
function exposition(scrapeIndex: number): string {
  return [
    '# HELP e2e_temperature_celsius Gauges the test sets.',
    '# TYPE e2e_temperature_celsius gauge',
    `e2e_temperature_celsius{room="lab"} ${LAB_CELSIUS}`,
    ...(scrapeIndex < HALL_SCRAPES ? [`e2e_temperature_celsius{room="hall"} ${HALL_CELSIUS}`] : []),
    '# TYPE e2e_queue_depth gauge',
    `e2e_queue_depth{path="${PATH_ESCAPED}"} ${QUEUE_DEPTH}`,
    '# TYPE e2e_requests_total counter',
    `e2e_requests_total{code="200"} ${COUNTER_START + COUNTER_STEP * scrapeIndex}`,
    '',
  ].join('\n');
}

/** The Strata metric names of the target's series: labels sorted, values escaped as in the text format. */
function seriesNames(instance: string): Record<'lab' | 'hall' | 'depth' | 'requests' | 'up', string> {
  return {
    lab: `e2e_temperature_celsius{instance="${instance}",job="${JOB}",room="lab"}`,
    hall: `e2e_temperature_celsius{instance="${instance}",job="${JOB}",room="hall"}`,
    depth: `e2e_queue_depth{instance="${instance}",job="${JOB}",path="${PATH_ESCAPED}"}`,
    requests: `e2e_requests_total{code="200",instance="${instance}",job="${JOB}"}`,
    up: `up{instance="${instance}",job="${JOB}"}`,
  };
}

/** The series of a matrix answer keyed by their labels (`__name__` included, sorted), after checking it carries no warning. */
function matrix(answer: PromAnswer): Map<string, StoredPoint[]> {
  expect(answer.error).toBeUndefined();
  expect(answer.status).toBe('success');
  expect(answer.warnings ?? []).toEqual([]);
  expect(answer.data?.resultType).toBe('matrix');
  const out = new Map<string, StoredPoint[]>();
  for (const series of answer.data?.result ?? []) out.set(labelKey(series.metric), (series.values ?? []).map(promSample));
  return out;
}

function labelKey(labels: Record<string, string>): string {
  return JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

describe('Prometheus remote write and read with a real Prometheus', () => {
  let dir: string;
  let strata: ServeProcess;
  let target: ScrapeTarget;
  const prometheuses: PrometheusProcess[] = [];
  let names: ReturnType<typeof seriesNames>;
  let t1: StrataEndpoint;
  let t3: StrataEndpoint;
  let t2: StrataEndpoint;
  let tokens: Record<'t1' | 't2' | 't3', string>;
  let writer: PrometheusProcess | undefined;
  /** The reader of t1 (basic auth), started by the remote read test and reused by the matcher test. */
  let reader: PrometheusProcess;
  /** Before anything was scraped: every sample lies after it. */
  let startMs: number;
  /** Strata's points of t1 per series name, taken once the writer stopped. */
  const held = new Map<string, StoredPoint[]>();
  /** The same for t3 (the bearer-token writer's own copy). */
  const heldT3 = new Map<string, StoredPoint[]>();

  const start = async (name: string, config: string): Promise<PrometheusProcess> => {
    const prometheus = await startPrometheus(name, config);
    prometheuses.push(prometheus);
    return prometheus;
  };
  /** A range selector reaching back to before the first sample, evaluated now. */
  const rangeQuery = async (via: PrometheusProcess, selector: string): Promise<Map<string, StoredPoint[]>> => {
    const nowMs = Date.now();
    const rangeS = Math.ceil((nowMs - startMs) / 1000) + 1;
    return matrix(await promQuery(via, 'query', { query: `${selector}[${rangeS}s]`, time: (nowMs / 1000).toFixed(3) }));
  };
  const labelsOf = (metricName: string, extra: Record<string, string>): string =>
    labelKey({ __name__: metricName, instance: target.hostPort, job: JOB, ...extra });

  beforeAll(async () => {
    ensureBuilt();
    startMs = Date.now();
    dir = mkdtempSync(join(tmpdir(), 'strata-prom-e2e-'));
    const users = { t1: ['writer', 'writer-api-key-0123456789'], t2: ['other', 'other-api-key-0123456789'], t3: ['bearer', 'bearer-api-key-0123456789'] } as const;
    for (const [tenant, [username, apiKey]] of Object.entries(users)) {
      runCli(['user', 'create', '--data', dir, '--username', username, '--tenant', tenant, '--api-key', apiKey]);
    }
    strata = await startServe(dir);
    tokens = { t1: await tokenFor(strata.url, ...users.t1), t2: await tokenFor(strata.url, ...users.t2), t3: await tokenFor(strata.url, ...users.t3) };
    t1 = { url: strata.url, tenant: 't1', auth: { username: users.t1[0], apiKey: users.t1[1] } };
    t2 = { url: strata.url, tenant: 't2', auth: { username: users.t2[0], apiKey: users.t2[1] } };
    t3 = { url: strata.url, tenant: 't3', auth: { token: tokens.t3 } };
    target = await startScrapeTarget(exposition);
    names = seriesNames(target.hostPort);
    writer = await start('writer', writerConfig(target.hostPort, JOB, [t1, t3]));
  }, STEP_TIMEOUT_MS);

  afterAll(async () => {
    for (const prometheus of prometheuses) await prometheus.stop();
    await target?.close();
    if (strata) {
      strata.child.kill('SIGTERM');
      await strata.exited;
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, STEP_TIMEOUT_MS);

  it('stores every scraped series, remote-written with basic auth and with a bearer token, with the values served', async () => {
    const wanted = [names.depth, names.hall, names.lab, names.requests].sort();
    for (const [tenant, token] of [['t1', tokens.t1], ['t3', tokens.t3]] as const) {
      let seen = '';
      await waitFor(
        async () => {
          const found = await searchMetrics(strata.url, tenant, token, 'e2e_*');
          const counter = found.includes(names.requests) ? await storedPoints(strata.url, tenant, token, names.requests, startMs, Date.now() + 60_000) : [];
          seen = `search: ${JSON.stringify(found)}, counter points: ${counter.length}`;
          return found.length === wanted.length && counter.length >= SAMPLES_WANTED ? true : undefined;
        },
        WRITE_WAIT_MS,
        () => `tenant ${tenant}: ${seen}; target scraped ${target.scrapes()} times; writer log:\n${writer?.log().slice(-4000)}`,
      );
      expect(await searchMetrics(strata.url, tenant, token, 'e2e_*')).toEqual(wanted);
      expect(await searchMetrics(strata.url, tenant, token, 'up*')).toContain(names.up);
    }
    // The hall series vanished: each tenant got its staleness marker, skipped, in an accepted batch.
    await waitFor(
      async () => {
        const text = await fetch(`${strata.url}/metrics`).then((r) => r.text());
        return Number(SKIPPED_PROMETHEUS.exec(text)?.[1] ?? 0) >= 2 ? true : undefined;
      },
      WRITE_WAIT_MS,
      () => `no staleness marker counted as skipped; writer log:\n${writer?.log().slice(-4000)}`,
    );
    // A batch Strata refused for good (4xx) would be dropped silently but for this log line.
    expect(writer?.log()).not.toMatch(/non-recoverable error/);
    await writer?.stop();
    writer = undefined;

    const served = Array.from({ length: target.scrapes() }, (_, i) => COUNTER_START + COUNTER_STEP * i);
    for (const name of Object.values(names)) held.set(name, await storedPoints(strata.url, 't1', tokens.t1, name, startMs, Date.now() + 60_000));
    const constants: [string, number][] = [[names.lab, LAB_CELSIUS], [names.hall, HALL_CELSIUS], [names.depth, QUEUE_DEPTH], [names.up, 1]];
    for (const [name, value] of constants) expect(new Set(held.get(name)?.map(([, v]) => v)), name).toEqual(new Set([value]));
    const scrapedAtMs = held.get(names.up)?.map(([timestamp]) => timestamp) ?? [];
    expect(scrapedAtMs.length).toBeGreaterThanOrEqual(SAMPLES_WANTED);
    for (const name of [names.lab, names.depth]) expect(held.get(name)?.map(([timestamp]) => timestamp), name).toEqual(scrapedAtMs);
    expect(held.get(names.hall)?.map(([timestamp]) => timestamp)).toEqual(scrapedAtMs.slice(0, HALL_SCRAPES));
    // Every scrape (one `up` sample each) stored the counter value it served, in order; only the
    // very last scrape may have been served but not written when the writer stopped.
    const counter = held.get(names.requests) ?? [];
    expect(counter.map(([timestamp]) => timestamp)).toEqual(scrapedAtMs);
    expect(counter.map(([, value]) => value)).toEqual(served.slice(0, counter.length));
    expect(counter.length).toBeGreaterThanOrEqual(served.length - 1);
    // The bearer-token writer sent the very same samples to its own tenant. Each remote-write queue
    // stops on its own, so either tenant may lack the final scrape (as t1 may, above): the scrapes
    // before the last one seen by either must match exactly, and t3's counter holds what was served.
    for (const name of Object.values(names)) heldT3.set(name, await storedPoints(strata.url, 't3', tokens.t3, name, startMs, Date.now() + 60_000));
    const lastScrapeMs = Math.max(...[held, heldT3].map((points) => points.get(names.up)?.at(-1)?.[0] ?? 0));
    const beforeLastScrape = (points: StoredPoint[] | undefined): StoredPoint[] => (points ?? []).filter(([timestamp]) => timestamp < lastScrapeMs);
    expect(beforeLastScrape(heldT3.get(names.up)).length).toBeGreaterThanOrEqual(SAMPLES_WANTED - 1);
    for (const name of Object.values(names)) expect(beforeLastScrape(heldT3.get(name)), name).toEqual(beforeLastScrape(held.get(name)));
    const counterT3 = heldT3.get(names.requests) ?? [];
    expect(counterT3.map(([timestamp]) => timestamp)).toEqual(heldT3.get(names.up)?.map(([timestamp]) => timestamp));
    expect(counterT3.map(([, value]) => value)).toEqual(served.slice(0, counterT3.length));
    expect(counterT3.length).toBeGreaterThanOrEqual(served.length - 1);
  }, STEP_TIMEOUT_MS);

  it('answers PromQL through remote read with exactly the samples Strata holds', async () => {
    reader = await start('reader-t1', readerConfig(t1));
    const requests = await rangeQuery(reader, `e2e_requests_total{job="${JOB}"}`);
    expect([...requests.keys()]).toEqual([labelsOf('e2e_requests_total', { code: '200' })]);
    expect([...requests.values()][0]).toEqual(held.get(names.requests));
    const temperatures = await rangeQuery(reader, 'e2e_temperature_celsius');
    expect(temperatures).toEqual(
      new Map([
        [labelsOf('e2e_temperature_celsius', { room: 'hall' }), held.get(names.hall)],
        [labelsOf('e2e_temperature_celsius', { room: 'lab' }), held.get(names.lab)],
      ]),
    );
    // The label value with a quote and a backslash round-trips: matched in PromQL, returned unescaped.
    const depth = await rangeQuery(reader, `e2e_queue_depth{path="${PATH_ESCAPED}"}`);
    expect(depth).toEqual(new Map([[labelsOf('e2e_queue_depth', { path: PATH_VALUE }), held.get(names.depth)]]));

    // query_range evaluates at each step the latest sample at or before it (all within the 5-minute lookback).
    const counter = held.get(names.requests) ?? [];
    const firstMs = (counter[0] as StoredPoint)[0];
    const lastMs = (counter[counter.length - 1] as StoredPoint)[0];
    const steps = Array.from({ length: Math.floor((lastMs - firstMs) / 1000) + 1 }, (_, k) => firstMs + k * 1000);
    const expected = steps.map((t): StoredPoint => [t, (counter.filter(([ts]) => ts <= t).at(-1) as StoredPoint)[1]]);
    const range = matrix(await promQuery(reader, 'query_range', { query: `e2e_requests_total{code="200"}`, start: (firstMs / 1000).toFixed(3), end: (lastMs / 1000).toFixed(3), step: '1' }));
    expect([...range.values()]).toEqual([expected]);

    // The bearer-token tenant reads back its own copy, also with a bearer token.
    const bearerReader = await start('reader-t3', readerConfig(t3));
    expect([...(await rangeQuery(bearerReader, 'e2e_requests_total')).values()]).toEqual([heldT3.get(names.requests)]);
  }, STEP_TIMEOUT_MS);

  it('selects a subset with label matchers', async () => {
    const everything = await rangeQuery(reader, `{__name__=~"e2e_.+",job="${JOB}"}`);
    expect([...everything.keys()].sort()).toEqual(
      [
        labelsOf('e2e_queue_depth', { path: PATH_VALUE }),
        labelsOf('e2e_requests_total', { code: '200' }),
        labelsOf('e2e_temperature_celsius', { room: 'hall' }),
        labelsOf('e2e_temperature_celsius', { room: 'lab' }),
      ].sort(),
    );
    const lab = await rangeQuery(reader, 'e2e_temperature_celsius{room=~"l.*"}');
    expect(lab).toEqual(new Map([[labelsOf('e2e_temperature_celsius', { room: 'lab' }), held.get(names.lab)]]));
    const notLab = await rangeQuery(reader, 'e2e_temperature_celsius{room!="lab"}');
    expect([...notLab.keys()]).toEqual([labelsOf('e2e_temperature_celsius', { room: 'hall' })]);
    const none = await rangeQuery(reader, 'e2e_temperature_celsius{room=~"attic|cellar"}');
    expect(none.size).toBe(0);
    const up = await rangeQuery(reader, `up{job="${JOB}"}`);
    expect([...up.values()]).toEqual([held.get(names.up)]);
  }, STEP_TIMEOUT_MS);

  it('keeps tenants apart: another tenant reads nothing, and is refused on the first tenant URL', async () => {
    const own = await start('reader-t2', readerConfig(t2));
    expect((await rangeQuery(own, '{__name__=~".+"}')).size).toBe(0);
    expect(await searchMetrics(strata.url, 't2', tokens.t2, '*')).toEqual([]);
    // Another tenant's credentials on t1's URL: Strata refuses, which PromQL reports only as a warning.
    const trespasser = await start('reader-t2-on-t1', readerConfig({ ...t2, tenant: 't1' }));
    const nowMs = Date.now();
    const answer = await promQuery(trespasser, 'query', { query: `e2e_requests_total[${Math.ceil((nowMs - startMs) / 1000) + 1}s]`, time: (nowMs / 1000).toFixed(3) });
    expect(answer.status).toBe('success');
    expect(answer.data?.result).toEqual([]);
    expect(answer.warnings?.join('\n')).toMatch(/403/);
  }, STEP_TIMEOUT_MS);
});
