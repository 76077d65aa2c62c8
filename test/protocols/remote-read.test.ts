// Owns the tests of the remote read executor against a real store: selection, the inclusive range, FULL slices, rollups past the FULL retention, and the request budget.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isStrataError } from '../../src/core/errors.js';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../src/core/time.js';
import { ReadBudget, readSeries } from '../../src/protocols/remote-read.js';
import type { LabelMatcher, ReadSeries, RemoteReadQuery } from '../../src/wire/prom-read-codec.js';
import { PROM_READ_SAMPLES_MAX, PROM_READ_SCAN_NAMES_MAX, PROM_READ_SERIES_MAX } from '../../src/wire/protocol-limits.js';
import { seriesMetricName } from '../../src/wire/series-name.js';
import { openTestStore, T_NOON, type TestStore } from '../store-harness.js';

let t: TestStore;

beforeEach(async () => {
  t = await openTestStore();
});
afterEach(async () => {
  await t.cleanup();
});

function query(startMs: number, endMs: number, matchers: LabelMatcher[]): RemoteReadQuery {
  return { startMs, endMs, matchers, hints: null };
}

const nameIs = (value: string): LabelMatcher => ({ type: 'EQ', name: '__name__', value });

async function read(q: RemoteReadQuery, tenant = 't1', budget = new ReadBudget()): Promise<ReadSeries[]> {
  return readSeries(t.store, tenant, q, budget);
}

/** The samples of a series as [time, value] pairs. */
function samples(series: ReadSeries | undefined): [number, number][] {
  if (series === undefined) return [];
  return Array.from({ length: series.values.length }, (_, i) => [series.timestampsMs[i] as number, series.values[i] as number]);
}

async function writeAll(points: { metric: string; timestamp: number; value: number | string; tenant?: string }[]): Promise<void> {
  const result = await t.store.write(points.map((p) => ({ tenant: p.tenant ?? 't1', metric: p.metric, timestamp: p.timestamp, value: p.value })));
  expect(result.rejected).toEqual([]);
}

const UP_API = seriesMetricName('up', [{ name: 'job', value: 'api' }, { name: 'instance', value: 'h1' }]);
const UP_WEB = seriesMetricName('up', [{ name: 'job', value: 'web' }]);

describe('readSeries: selection', () => {
  beforeEach(async () => {
    const at = T_NOON - 10 * MINUTE_MS;
    await writeAll([
      { metric: UP_API, timestamp: at, value: 1 },
      { metric: UP_WEB, timestamp: at, value: 0 },
      { metric: 'up', timestamp: at, value: 0.5 },
      { metric: 'up_total', timestamp: at, value: 7 },
      { metric: 'cpu.load', timestamp: at, value: 2.25 },
      { metric: 'a*b', timestamp: at, value: 3 },
      { metric: 'a*bc', timestamp: at, value: 4 },
      { metric: UP_API, timestamp: at, value: 9, tenant: 't2' },
    ]);
  });

  const range = (matchers: LabelMatcher[]) => query(T_NOON - HOUR_MS, T_NOON, matchers);
  const names = (found: ReadSeries[]) => found.map((s) => s.labels.map((l) => `${l.name}=${l.value}`).join(',')).sort();

  it('answers the series of a name with all their labels, __name__ included and sorted by name', async () => {
    const found = await read(range([nameIs('up')]));
    expect(names(found)).toEqual(['__name__=up', '__name__=up,instance=h1,job=api', '__name__=up,job=web']);
    const api = found.find((s) => s.labels.some((l) => l.value === 'api'));
    expect(samples(api)).toEqual([[T_NOON - 10 * MINUTE_MS, 1]]);
  });

  it('combines matchers of every type, a missing label reading as empty', async () => {
    expect(names(await read(range([nameIs('up'), { type: 'EQ', name: 'job', value: 'api' }])))).toEqual(['__name__=up,instance=h1,job=api']);
    expect(names(await read(range([nameIs('up'), { type: 'NEQ', name: 'job', value: 'api' }])))).toEqual(['__name__=up', '__name__=up,job=web']);
    expect(names(await read(range([nameIs('up'), { type: 'RE', name: 'job', value: 'a.*|w.b' }])))).toEqual(['__name__=up,instance=h1,job=api', '__name__=up,job=web']);
    expect(names(await read(range([nameIs('up'), { type: 'NRE', name: 'job', value: '.+' }])))).toEqual(['__name__=up']);
    expect(names(await read(range([nameIs('up'), { type: 'EQ', name: 'job', value: '' }])))).toEqual(['__name__=up']);
  });

  it('scans every name without a name matcher, and reads native names as series without labels', async () => {
    expect(names(await read(range([{ type: 'RE', name: '__name__', value: 'up.*' }])))).toEqual([
      '__name__=up',
      '__name__=up,instance=h1,job=api',
      '__name__=up,job=web',
      '__name__=up_total',
    ]);
    expect(names(await read(range([{ type: 'EQ', name: 'job', value: 'web' }])))).toEqual(['__name__=up,job=web']);
    expect(samples((await read(range([nameIs('cpu.load')])))[0])).toEqual([[T_NOON - 10 * MINUTE_MS, 2.25]]);
  });

  it('finds a name holding glob characters exactly', async () => {
    expect(names(await read(range([nameIs('a*b')])))).toEqual(['__name__=a*b']);
  });

  it('selects nothing for __name__="" and keeps tenants apart', async () => {
    expect(await read(range([nameIs('')]))).toEqual([]);
    const t2 = await read(range([nameIs('up')]), 't2');
    expect(samples(t2[0])).toEqual([[T_NOON - 10 * MINUTE_MS, 9]]);
    expect(await read(range([nameIs('up')]), 't3')).toEqual([]);
  });

  it('refuses a bad pattern with PROMETHEUS_MATCHER_INVALID', async () => {
    await expect(read(range([{ type: 'RE', name: 'job', value: '(a+)+' }]))).rejects.toMatchObject({ code: 'PROMETHEUS_MATCHER_INVALID' });
  });
});

describe('readSeries: time range', () => {
  it('includes both ends of [startMs, endMs] and leaves out series with no sample there', async () => {
    const base = T_NOON - HOUR_MS;
    await writeAll([
      { metric: 'm', timestamp: base - 1, value: 1 },
      { metric: 'm', timestamp: base, value: 2 },
      { metric: 'm', timestamp: base + 1000, value: 3 },
      { metric: 'm', timestamp: base + 2000, value: 4 },
      { metric: 'other', timestamp: base - 1, value: 1 },
    ]);
    const found = await read(query(base, base + 1000, [{ type: 'RE', name: '__name__', value: '.*' }]));
    expect(found).toHaveLength(1);
    expect(samples(found[0])).toEqual([
      [base, 2],
      [base + 1000, 3],
    ]);
  });

  it('returns every raw FULL point of a range longer than one planner slice, and skips string values', async () => {
    t.clock.set(T_NOON + DAY_MS);
    const start = T_NOON - 6 * HOUR_MS;
    const points = Array.from({ length: 30 * 60 }, (_, i) => ({ metric: 'dense', timestamp: start + i * MINUTE_MS, value: i * 0.5 }));
    await writeAll([...points, { metric: 'dense', timestamp: start + 30_000, value: 'text' }]);
    const found = await read(query(start, start + 30 * HOUR_MS, [nameIs('dense')]));
    expect(samples(found[0])).toEqual(points.map((p) => [p.timestamp, p.value]));
  });
});

describe('readSeries: past the FULL retention', () => {
  /** A value constant within each hour, so any bucket up to an hour wide averages to it. */
  const hourly = (timeMs: number) => Math.floor(timeMs / HOUR_MS) % 7;

  /** Writes one point every 10 minutes over `days` days from T_NOON, each day written while it is recent, then ages it all. */
  async function writeDays(days: number, nowAfterMs: number): Promise<void> {
    for (let d = 0; d < days; d++) {
      t.clock.set(T_NOON + (d + 1) * DAY_MS);
      const points = Array.from({ length: 144 }, (_, k) => T_NOON + d * DAY_MS + k * 10 * MINUTE_MS).map((timestamp) => ({ metric: 'old', timestamp, value: hourly(timestamp) }));
      await writeAll(points);
      await t.store.flush();
    }
    t.clock.set(nowAfterMs);
    await t.store.flush();
  }

  it('answers each rollup bucket as its average at its start, then the FULL points', async () => {
    await writeDays(3, T_NOON + 3 * DAY_MS + HOUR_MS);
    // FULL keeps 2 days: from T_NOON + 1 day + 1 h on the points are raw.
    const fullFrom = T_NOON + DAY_MS + HOUR_MS;
    const found = await read(query(T_NOON + 7 * MINUTE_MS, T_NOON + 3 * DAY_MS, [nameIs('old')]));
    const got = samples(found[0]);
    const rolled = got.filter(([time]) => time < fullFrom);
    const raw = got.filter(([time]) => time >= fullFrom);
    // MIN5 is nearest to 1440 points over 3 days; buckets start every 5 minutes where a point is.
    expect(rolled.length).toBeGreaterThan(100);
    for (const [time, value] of rolled) {
      expect(time % (5 * MINUTE_MS)).toBe(0);
      expect(value).toBe(hourly(time));
    }
    // The bucket holding the start (12:05) begins before it and is left out; the first is 12:10.
    expect(rolled[0]?.[0]).toBe(T_NOON + 10 * MINUTE_MS);
    expect(raw.map(([time]) => time)).toEqual(Array.from({ length: raw.length }, (_, k) => fullFrom + k * 10 * MINUTE_MS));
    expect(raw.length).toBe((3 * DAY_MS - HOUR_MS - DAY_MS) / (10 * MINUTE_MS));
    for (const [time, value] of raw) expect(value).toBe(hourly(time));
    const times = got.map(([time]) => time);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(new Set(times).size).toBe(times.length);
  });

  it('cuts an old range whose resolution would exceed the point limit into pieces, at day boundaries', async () => {
    // Six days, all past FULL and within MIN5's 10 days: MIN5 is nearest to 1440 and yields 1728 buckets.
    await writeDays(6, T_NOON + 8 * DAY_MS + HOUR_MS);
    const found = await read(query(T_NOON, T_NOON + 6 * DAY_MS - 1, [nameIs('old')]));
    const got = samples(found[0]);
    // One MIN5 bucket per point (every 10 minutes), each at its start, none twice.
    expect(got.map(([time]) => time)).toEqual(Array.from({ length: 6 * 144 }, (_, k) => T_NOON + k * 10 * MINUTE_MS));
    for (const [time, value] of got) expect(value).toBe(hourly(time));
  });

  it('steps coarser where a rollup retention has passed, as the planner does', async () => {
    // Eight days from 11 days ago: the start is past MIN5's 10 days, so MIN20 serves the range.
    await writeDays(8, T_NOON + 11 * DAY_MS);
    const found = await read(query(T_NOON, T_NOON + 8 * DAY_MS - 1, [nameIs('old')]));
    const got = samples(found[0]);
    expect(got.map(([time]) => time)).toEqual(Array.from({ length: 8 * 72 }, (_, k) => T_NOON + k * 20 * MINUTE_MS));
    for (const [time, value] of got) expect(value).toBe(hourly(time));
  });
});

describe('ReadBudget', () => {
  function code(run: () => void): string | undefined {
    try {
      run();
    } catch (error) {
      return isStrataError(error) ? error.code : 'OTHER';
    }
    return undefined;
  }

  it('throws PROMETHEUS_READ_TOO_LARGE one past each limit, counting across queries', () => {
    const budget = new ReadBudget();
    for (let i = 0; i < PROM_READ_SERIES_MAX; i++) budget.addSeries();
    expect(code(() => budget.addSeries())).toBe('PROMETHEUS_READ_TOO_LARGE');
    budget.addSamples(PROM_READ_SAMPLES_MAX);
    expect(code(() => budget.addSamples(1))).toBe('PROMETHEUS_READ_TOO_LARGE');
    for (let i = 0; i < PROM_READ_SCAN_NAMES_MAX; i++) budget.testName();
    expect(code(() => budget.testName())).toBe('PROMETHEUS_READ_TOO_LARGE');
  });

  it('stops a read that would answer one series too many', async () => {
    await writeAll([{ metric: 'm', timestamp: T_NOON - MINUTE_MS, value: 1 }]);
    const budget = new ReadBudget();
    for (let i = 0; i < PROM_READ_SERIES_MAX; i++) budget.addSeries();
    await expect(read(query(T_NOON - HOUR_MS, T_NOON, [nameIs('m')]), 't1', budget)).rejects.toMatchObject({ code: 'PROMETHEUS_READ_TOO_LARGE' });
  });
});
