// Property tests of the plot parameters over HTTP (inject): any combination answers 200 or a planner code, select's spellings agree, numPoints adds nothing, points picks the resolution of spec 4's table.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import { isStrataError } from '../../../../src/core/errors.js';
import { QUERY_POINTS_MAX } from '../../../../src/core/limits.js';
import { RESOLUTIONS, type Resolution } from '../../../../src/model/resolution.js';
import type { QueryRequest } from '../../../../src/store-types.js';
import { startHarness, type Harness } from '../../harness.js';
import { expectMetricsError, inject, tokenOf, type Injected } from '../../inject.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;
const START_MS = Date.UTC(2026, 0, 1, 12);
const VIEW = '/metrics/v2.0/t1/views/cpu';
/** Every code the planner (the one owner of the query rules) or the plot schema may answer with. */
const QUERY_CODES = ['QUERY_INVALID', 'QUERY_RANGE_INVALID', 'QUERY_POINTS_OR_RESOLUTION_REQUIRED', 'QUERY_RESOLUTION_INVALID', 'QUERY_SELECT_INVALID', 'QUERY_POINTS_OVER_LIMIT'];
const STATS = ['average', 'variance', 'min', 'max'] as const;

/** A query string from (name, value) pairs, values percent-encoded. */
function queryString(pairs: readonly (readonly [string, string])[]): string {
  return pairs.map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('&');
}

/** Each letter upper- or lower-cased by the bits of `mask`. */
function recase(text: string, mask: number): string {
  return [...text].map((c, i) => ((mask >> i % 30) & 1 ? c.toUpperCase() : c.toLowerCase())).join('');
}

/** The spec 4 table: the resolution a point count picks over 48 hours. */
function tableResolution(points: number): Resolution {
  if (points >= 3168) return 'FULL';
  if (points >= 360) return 'MIN5';
  if (points >= 96) return 'MIN20';
  if (points >= 30) return 'MIN60';
  if (points >= 7) return 'MIN240';
  return 'MIN1440';
}

// Text a client might send for a number: mostly decimal integers near the data, then anything.
const decimal = (min: number, max: number) => fc.integer({ min, max }).map(String);
const junk = fc.oneof(
  fc.constantFrom('', ' ', 'abc', '1.5', '-1', '-0', '1e3', '1e20', '0x10', 'NaN', 'Infinity', '9007199254740993', '99999999999999999999', '10,20'),
  fc.string({ maxLength: 12 }),
);
const timeText = fc.oneof({ weight: 12, arbitrary: decimal(START_MS - 400 * DAY_MS, START_MS + DAY_MS) }, { weight: 1, arbitrary: decimal(-1e15, 1e15) }, { weight: 1, arbitrary: junk });
const pointsText = fc.oneof({ weight: 8, arbitrary: decimal(0, 5000) }, { weight: 1, arbitrary: decimal(-10, 10) }, { weight: 1, arbitrary: junk });
const resolutionText = fc.oneof({ weight: 8, arbitrary: fc.tuple(fc.constantFrom(...RESOLUTIONS), fc.nat()).map(([r, mask]) => recase(r, mask)) }, { weight: 1, arbitrary: junk });
const selectName = fc.oneof(
  { weight: 16, arbitrary: fc.tuple(fc.constantFrom(...STATS, 'numPoints'), fc.nat()).map(([name, mask]) => recase(name, mask)) },
  { weight: 1, arbitrary: fc.constantFrom('median', '', ' ', 'sum', 'avg') },
  { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
);
const selectText = fc.array(selectName, { minLength: 1, maxLength: 3 }).map((names) => names.join(','));
/** Absent, given once, or (rarely) given twice. */
const param = (name: string, value: fc.Arbitrary<string>) =>
  fc.oneof(
    { weight: 2, arbitrary: fc.constant([] as [string, string][]) },
    { weight: 16, arbitrary: value.map((v) => [[name, v]] as [string, string][]) },
    { weight: 1, arbitrary: fc.tuple(value, value).map(([a, b]) => [[name, a], [name, b]] as [string, string][]) },
  );

const plotParams = fc
  .tuple(
    param('from', timeText),
    fc.oneof(
      { weight: 3, arbitrary: fc.integer({ min: 1, max: 3 * DAY_MS }).map((rangeMs) => ({ rangeMs })) },
      { weight: 1, arbitrary: param('to', timeText).map((pairs) => ({ pairs })) },
    ),
    param('points', pointsText),
    param('resolution', resolutionText),
    fc.array(selectText, { maxLength: 3 }),
  )
  .map(([from, to, points, resolution, selects]) => {
    // `to` is mostly from + a range, so that a good share of the requests is answerable.
    const first = from[0]?.[1];
    const toPairs: [string, string][] =
      'rangeMs' in to ? (first !== undefined && /^-?\d+$/.test(first) ? [['to', String(Number(first) + to.rangeMs)]] : [['to', String(START_MS)]]) : to.pairs;
    return [...from, ...toPairs, ...points, ...resolution, ...selects.map((s) => ['select', s] as [string, string])];
  });

/** The query the HTTP route should ask the planner, when every parameter is well-typed text given at most once; else undefined. */
function wellTypedRequest(pairs: readonly (readonly [string, string])[]): QueryRequest | undefined {
  const single = new Map<string, string>();
  const select: string[] = [];
  for (const [name, value] of pairs) {
    if (name === 'select') select.push(value);
    else if (single.has(name)) return undefined;
    else single.set(name, value);
  }
  const number = (name: string): number | undefined | null => {
    const text = single.get(name);
    if (text === undefined) return undefined;
    return /^-?\d+$/.test(text) ? Number(text) : null;
  };
  const [from, to, points] = [number('from'), number('to'), number('points')];
  if (from === undefined || to === undefined || from === null || to === null || points === null) return undefined;
  const resolution = single.get('resolution');
  return {
    tenant: 't1',
    metric: 'cpu',
    from,
    to,
    ...(points !== undefined ? { points } : {}),
    ...(resolution !== undefined ? { resolution: resolution.toUpperCase() } : {}),
    ...(select.length > 0 ? { select } : {}),
  };
}

/** What the planner says of a request: its error code, QUERY_POINTS_OVER_LIMIT, or 'ok'. */
function plannerVerdict(h: Harness, request: QueryRequest): string {
  try {
    return h.app.strata.store.plan(request).overLimit ? 'QUERY_POINTS_OVER_LIMIT' : 'ok';
  } catch (error) {
    if (isStrataError(error)) return error.code;
    throw error;
  }
}

describe('plot parameters over HTTP (properties)', () => {
  let h: Harness;
  let token: string;

  beforeAll(async () => {
    h = await startHarness({ clock: new ManualClock(START_MS) });
    token = await tokenOf(h, 'alice');
    // A point every 10 minutes over the last 47 hours, values that vary so every statistic differs.
    const points = Array.from({ length: 47 * 6 }, (_, i) => ({ metricName: 'cpu', metricValue: (i * 37) % 101, collectionTime: START_MS - 47 * HOUR_MS + i * 10 * MINUTE_MS }));
    expect((await inject(h, 'POST', '/ingest/v2.0/t1/ingest', { token, json: points })).status).toBe(200);
  });
  afterAll(async () => h.close());

  const view = (query: string): Promise<Injected> => inject(h, 'GET', `${VIEW}?${query}`, { token });
  const valuesOf = async (query: string): Promise<unknown[]> => {
    const res = await view(query);
    expect(res.status, `${query}: ${res.text.slice(0, 300)}`).toBe(200);
    return res.json.values as unknown[];
  };

  it('any from/to/points/resolution/select answers 200 or a 400/413 with a planner code (never 500), as the planner decides', async () => {
    await fc.assert(
      fc.asyncProperty(plotParams, async (pairs) => {
        const query = queryString(pairs);
        const res = await view(query);
        expect([200, 400, 413], `${query} → ${res.status} ${res.text.slice(0, 300)}`).toContain(res.status);
        if (res.status === 200) {
          expect(res.json.values.length).toBeLessThanOrEqual(QUERY_POINTS_MAX);
          expect(res.json.metadata.count).toBe(res.json.values.length);
        } else {
          const code = res.json?.details?.code as string;
          expect(QUERY_CODES, `${query} → ${res.text.slice(0, 300)}`).toContain(code);
          expectMetricsError(res, code === 'QUERY_POINTS_OVER_LIMIT' ? 413 : 400, code);
        }
        const request = wellTypedRequest(pairs);
        if (request !== undefined) {
          const verdict = plannerVerdict(h, request);
          expect(res.status === 200 ? 'ok' : res.json.details.code, `${query}: the route and the planner disagree`).toBe(verdict);
        }
      }),
      { numRuns: 400 },
    );
  });

  /** Answerable (range, resolution) pairs, so that select is the only thing that varies. */
  const answerable = fc.constantFrom<[number, Resolution]>([6 * HOUR_MS, 'FULL'], [2 * DAY_MS, 'MIN5'], [2 * DAY_MS, 'MIN20'], [2 * DAY_MS, 'MIN60'], [2 * DAY_MS, 'MIN240'], [2 * DAY_MS, 'MIN1440']);

  it('select repeated or comma-separated, in any case, with duplicates, gives the same values as the plain list', async () => {
    const spelling = fc.record({
      stats: fc.array(fc.constantFrom(...STATS), { minLength: 1, maxLength: 6 }),
      masks: fc.array(fc.nat(), { minLength: 6, maxLength: 6 }),
      cuts: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
      spaces: fc.boolean(),
      plan: answerable,
    });
    await fc.assert(
      fc.asyncProperty(spelling, async ({ stats, masks, cuts, spaces, plan: [rangeMs, resolution] }) => {
        const base = `from=${START_MS - rangeMs}&to=${START_MS}&resolution=${resolution}`;
        // Split the names into groups: each group is one select parameter, its names comma-separated.
        const groups: string[][] = [[]];
        stats.forEach((stat, i) => {
          if (i > 0 && cuts[i]) groups.push([]);
          (groups.at(-1) as string[]).push(recase(stat, masks[i] as number));
        });
        const spelled = groups.map((group) => ['select', group.join(spaces ? ' , ' : ',')] as [string, string]);
        const plain = [...new Set(stats)].join(',');
        expect(await valuesOf(`${base}&${queryString(spelled)}`)).toEqual(await valuesOf(`${base}&select=${plain}`));
      }),
      { numRuns: 150 },
    );
  });

  it('select=numPoints is accepted and adds nothing, alone or among other names, in any case', async () => {
    const withNumPoints = fc.record({
      stats: fc.subarray([...STATS]),
      at: fc.array(fc.nat(), { minLength: 1, maxLength: 3 }),
      mask: fc.nat(),
      separate: fc.boolean(),
      plan: answerable,
    });
    await fc.assert(
      fc.asyncProperty(withNumPoints, async ({ stats, at, mask, separate, plan: [rangeMs, resolution] }) => {
        const base = `from=${START_MS - rangeMs}&to=${START_MS}&resolution=${resolution}`;
        const names: string[] = [...stats];
        for (const position of at) names.splice(position % (names.length + 1), 0, recase('numPoints', mask));
        const asked = separate ? names.map((name) => ['select', name] as [string, string]) : [['select', names.join(',')] as [string, string]];
        const without = stats.length === 0 ? base : `${base}&select=${stats.join(',')}`;
        const values = await valuesOf(`${base}&${queryString(asked)}`);
        expect(values).toEqual(await valuesOf(without));
        for (const value of values as Record<string, unknown>[]) {
          expect(Object.keys(value).sort()).toEqual(['numPoints', 'timestamp', ...(stats.length === 0 ? ['average'] : stats)].sort());
        }
      }),
      { numRuns: 100 },
    );
  });

  it('points=0 is accepted and picks MIN1440, over 48 hours and any longer answerable range', async () => {
    const window = fc.record({
      endMs: fc.integer({ min: START_MS - 3 * DAY_MS, max: START_MS + DAY_MS }),
      rangeMs: fc.oneof(fc.constant(2 * DAY_MS), fc.integer({ min: 2 * DAY_MS, max: 1000 * DAY_MS })),
      select: fc.constantFrom('', '&select=max', '&select=min,variance', '&select=numPoints'),
    });
    await fc.assert(
      fc.asyncProperty(window, async ({ endMs, rangeMs, select }) => {
        const base = `from=${endMs - rangeMs}&to=${endMs}${select}`;
        const values = await valuesOf(`${base}&points=0`);
        expect(values).toEqual(await valuesOf(`${base}&resolution=MIN1440`));
        for (const value of values as { timestamp: number }[]) expect(value.timestamp % DAY_MS).toBe(0);
      }),
      { numRuns: 100 },
    );
  });

  it('over 48 hours, points picks the resolution of spec 4\'s table (3168 and above is FULL: 5760 points, over the limit)', async () => {
    const asked = fc.record({
      points: fc.oneof(fc.integer({ min: 0, max: 3167 }), fc.constantFrom(0, 6, 7, 29, 30, 95, 96, 359, 360, 3167)),
      endMs: fc.integer({ min: START_MS - 3 * DAY_MS, max: START_MS }),
    });
    await fc.assert(
      fc.asyncProperty(asked, async ({ points, endMs }) => {
        const base = `from=${endMs - 2 * DAY_MS}&to=${endMs}&select=average,max`;
        expect(await valuesOf(`${base}&points=${points}`), `points=${points}`).toEqual(await valuesOf(`${base}&resolution=${tableResolution(points)}`));
      }),
      { numRuns: 100 },
    );
    for (const points of [3168, 5760, 100_000]) {
      const res = await view(`from=${START_MS - 2 * DAY_MS}&to=${START_MS}&points=${points}`);
      expectMetricsError(res, 413, 'QUERY_POINTS_OVER_LIMIT', { resolution: 'FULL', expectedPoints: 5760 });
    }
  });
});
