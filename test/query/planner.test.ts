// Unit tests of query/planner: the published 48 h table, explicit resolutions, errors, the 1440 cap and retention.
import { describe, expect, it } from 'vitest';
import { StrataError, type ErrorCode } from '../../src/core/errors.js';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../src/core/time.js';
import { DEFAULT_RETENTION_MS, RESOLUTIONS, type Resolution } from '../../src/model/resolution.js';
import {
  expectedPointsFor,
  maxRangeMsFor,
  overLimitMessage,
  parseSelect,
  planQuery,
  resolutionForPoints,
  validateQuery,
} from '../../src/query/planner.js';
import type { QueryRequest } from '../../src/store-types.js';

const FROM = Date.UTC(2024, 0, 10);
const TO = FROM + 48 * HOUR_MS;
const retention = DEFAULT_RETENTION_MS;
const base = { tenant: 't1', metric: 'cpu.load' } as const;

function plan(fields: Partial<QueryRequest>, nowMs = TO) {
  return planQuery({ ...base, from: FROM, to: TO, ...fields }, nowMs, retention);
}

function codeOf(run: () => unknown): ErrorCode | 'no error' | 'not a StrataError' {
  try {
    run();
    return 'no error';
  } catch (error) {
    return error instanceof StrataError ? error.code : 'not a StrataError';
  }
}

describe('points over 48 h (the published table, at every boundary)', () => {
  const table: readonly [number, Resolution][] = [
    [0, 'MIN1440'], [6, 'MIN1440'],
    [7, 'MIN240'], [29, 'MIN240'],
    [30, 'MIN60'], [95, 'MIN60'],
    [96, 'MIN20'], [359, 'MIN20'],
    [360, 'MIN5'], [3167, 'MIN5'],
    [3168, 'FULL'], [10000, 'FULL'],
  ];
  it.each(table)('points=%i gives %s', (points, expected) => {
    expect(plan({ points }).resolution).toBe(expected);
  });

  it('matches the table for every count from 0 to 20000', () => {
    const expected = (p: number): Resolution =>
      p >= 3168 ? 'FULL' : p >= 360 ? 'MIN5' : p >= 96 ? 'MIN20' : p >= 30 ? 'MIN60' : p >= 7 ? 'MIN240' : 'MIN1440';
    for (let p = 0; p <= 20000; p++) {
      if (resolutionForPoints(p, 48 * HOUR_MS) !== expected(p)) throw new Error(`points=${p}`);
    }
  });

  it('explains the choice', () => {
    const reason = plan({ points: 500 }).reason;
    expect(reason).toContain('500 points asked over 2 days: MIN5 is nearest');
    expect(reason).toContain('FULL 5760, MIN5 576, MIN20 144, MIN60 48, MIN240 12, MIN1440 2');
  });

  it('lets points win over resolution, as Blueflood does', () => {
    const p = plan({ points: 500, resolution: 'MIN1440' });
    expect(p.resolution).toBe('MIN5');
    expect(p.reason).toContain('points wins over resolution MIN1440');
  });
});

describe('resolution given', () => {
  const returned: readonly [Resolution, number][] = [
    ['FULL', 5760], ['MIN5', 576], ['MIN20', 144], ['MIN60', 48], ['MIN240', 12], ['MIN1440', 2],
  ];
  it.each(returned)('%s over 48 h yields %i points (the published table)', (resolution, points) => {
    const p = plan({ resolution });
    expect(p.resolution).toBe(resolution);
    expect(p.expectedPoints).toBe(points);
    expect(p.reason).toContain(`resolution ${resolution} as requested`);
  });

  it('counts every bucket the range touches when from is not aligned', () => {
    expect(expectedPointsFor('MIN60', FROM + 1, FROM + 2 * HOUR_MS)).toBe(2);
    expect(expectedPointsFor('MIN60', FROM + 1, FROM + 2 * HOUR_MS + 1)).toBe(3);
    expect(expectedPointsFor('MIN5', FROM, FROM + 1)).toBe(1);
    expect(expectedPointsFor('FULL', FROM, FROM + 30_001)).toBe(2);
  });

  it('is never coarsened, even when from is past its retention', () => {
    const now = TO + DAY_MS;
    const p = plan({ resolution: 'FULL' }, now);
    expect(p.resolution).toBe('FULL');
    expect(p.servedFrom).toBe(now - 2 * DAY_MS);
    expect(p.reason).toContain('FULL keeps 2 days; data before 2024-01-11T00:00:00.000Z has expired and is not served');
  });
});

describe('the 1440-point cap', () => {
  it('marks 48 h at FULL over the limit and says how to fit', () => {
    const p = plan({ points: 3168 });
    expect(p).toMatchObject({ resolution: 'FULL', expectedPoints: 5760, overLimit: true });
    const message = overLimitMessage(p);
    expect(message).toBe(
      'FULL would return 5760 points over this range, more than the limit of 1440; ' +
        'split the range into pieces of at most 12 h, or ask for a coarser resolution',
    );
    expect(p.reason).toContain(message);
  });

  it('mentions the alignment rollup pieces need', () => {
    const p = plan({ resolution: 'MIN5' }, TO);
    const long = planQuery({ ...base, from: FROM, to: FROM + 6 * DAY_MS, resolution: 'MIN5' }, FROM + 6 * DAY_MS, retention);
    expect(p.overLimit).toBe(false);
    expect(long.overLimit).toBe(true);
    expect(overLimitMessage(long)).toContain('pieces of at most 5 days, each starting on a 5 min boundary');
  });

  it('fits exactly QUERY_POINTS_MAX points in maxRangeMsFor', () => {
    expect(maxRangeMsFor('FULL')).toBe(12 * HOUR_MS);
    expect(maxRangeMsFor('MIN5')).toBe(5 * DAY_MS);
    for (const resolution of RESOLUTIONS) {
      expect(expectedPointsFor(resolution, FROM, FROM + maxRangeMsFor(resolution))).toBe(1440);
      expect(expectedPointsFor(resolution, FROM, FROM + maxRangeMsFor(resolution) + 1)).toBe(1441);
    }
  });
});

describe('retention', () => {
  const from = FROM;
  const to = FROM + DAY_MS;
  const at = (nowMs: number) => planQuery({ ...base, from, to, points: 5000 }, nowMs, retention);

  it('keeps FULL while from is inside its retention (the cutoff itself included)', () => {
    expect(at(to).resolution).toBe('FULL');
    expect(at(from + 2 * DAY_MS).resolution).toBe('FULL');
  });

  it('steps one coarser when from is older than FULL keeps, and says so', () => {
    const p = at(from + 2 * DAY_MS + 1);
    expect(p.resolution).toBe('MIN5');
    expect(p.servedFrom).toBe(from);
    expect(p.reason).toContain('FULL keeps 2 days; from is older, so MIN5');
  });

  it('steps as many times as needed', () => {
    const p = at(from + 16 * DAY_MS);
    expect(p.resolution).toBe('MIN20');
    expect(p.reason).toContain('FULL keeps 2 days and MIN5 keeps 10 days; from is older, so MIN20');
  });

  it('stops at MIN1440 and serves nothing once that has expired too', () => {
    const p = at(from + 20 * 365 * DAY_MS);
    expect(p.resolution).toBe('MIN1440');
    expect(p.servedFrom).toBe(to);
    expect(p.reason).toContain('the whole range has expired, so the result is empty');
  });

  it('serves only the unexpired part of a range', () => {
    const p = planQuery({ ...base, from: FROM, to: FROM + 30 * DAY_MS, resolution: 'MIN20' }, FROM + 30 * DAY_MS, retention);
    expect(p.servedFrom).toBe(FROM + 10 * DAY_MS);
  });
});

describe('invalid requests', () => {
  it('requires points or resolution', () => {
    expect(codeOf(() => plan({}))).toBe('QUERY_POINTS_OR_RESOLUTION_REQUIRED');
    expect(codeOf(() => plan({ points: undefined, resolution: undefined }))).toBe('QUERY_POINTS_OR_RESOLUTION_REQUIRED');
  });

  it('refuses from >= to and bounds that are not integers', () => {
    expect(codeOf(() => plan({ from: TO, points: 10 }))).toBe('QUERY_RANGE_INVALID');
    expect(codeOf(() => plan({ from: TO + 1, points: 10 }))).toBe('QUERY_RANGE_INVALID');
    expect(codeOf(() => plan({ from: FROM + 0.5, points: 10 }))).toBe('QUERY_RANGE_INVALID');
    expect(codeOf(() => plan({ to: Number.NaN, points: 10 }))).toBe('QUERY_RANGE_INVALID');
    expect(codeOf(() => plan({ to: '1' as unknown as number, points: 10 }))).toBe('QUERY_RANGE_INVALID');
    expect(codeOf(() => plan({ from: 2 ** 53, points: 10 }))).toBe('QUERY_RANGE_INVALID');
  });

  it('refuses a resolution that is not one of the six, listing them', () => {
    for (const resolution of ['MIN10', 'min5', '', 'FULL ']) {
      expect(codeOf(() => plan({ resolution }))).toBe('QUERY_RESOLUTION_INVALID');
    }
    expect(() => plan({ resolution: 'MIN10' })).toThrow('allowed values: FULL, MIN5, MIN20, MIN60, MIN240, MIN1440');
  });

  it('refuses points that are not a non-negative integer', () => {
    for (const points of [-1, 1.5, Number.POSITIVE_INFINITY, '10' as unknown as number]) {
      expect(codeOf(() => plan({ points }))).toBe('QUERY_INVALID');
    }
  });

  it('refuses a missing tenant or metric and a non-object request', () => {
    expect(codeOf(() => plan({ tenant: '', points: 1 }))).toBe('QUERY_INVALID');
    expect(codeOf(() => plan({ metric: 7 as unknown as string, points: 1 }))).toBe('QUERY_INVALID');
    expect(codeOf(() => planQuery(null as unknown as QueryRequest, TO, retention))).toBe('QUERY_INVALID');
  });

  it('refuses a bad select even when the plan would be fine', () => {
    expect(codeOf(() => plan({ points: 10, select: ['median'] }))).toBe('QUERY_SELECT_INVALID');
  });
});

describe('parseSelect', () => {
  it('defaults to average', () => {
    expect(parseSelect(undefined)).toEqual(['average']);
    expect(parseSelect([])).toEqual(['average']);
  });

  it('accepts comma-separated, case-insensitive entries and drops duplicates', () => {
    expect(parseSelect(['MAX', 'average, min', 'Max', 'variance'])).toEqual(['max', 'average', 'min', 'variance']);
    expect(parseSelect('min,max')).toEqual(['min', 'max']);
  });

  it('accepts numPoints, which every value carries anyway, and adds nothing for it', () => {
    expect(parseSelect(['numPoints'])).toEqual(['average']);
    expect(parseSelect(['max,NUMPOINTS', 'numpoints'])).toEqual(['max']);
  });

  it('refuses unknown, empty and non-string entries', () => {
    for (const select of [['median'], ['average,'], [''], [3]]) {
      expect(codeOf(() => parseSelect(select))).toBe('QUERY_SELECT_INVALID');
    }
  });

  it('is applied by validateQuery', () => {
    expect(validateQuery({ ...base, from: FROM, to: TO, points: 10, select: ['MIN'] }).select).toEqual(['min']);
  });
});

describe('reason text', () => {
  it('names durations plainly', () => {
    const odd = planQuery({ ...base, from: FROM, to: FROM + 90 * MINUTE_MS, points: 10 }, FROM + 90 * MINUTE_MS, retention);
    expect(odd.reason).toContain('over 90 min');
    const ragged = planQuery({ ...base, from: FROM, to: FROM + 90 * MINUTE_MS + 1, points: 10 }, FROM + DAY_MS, retention);
    expect(ragged.reason).toContain('over about 1.5 h');
  });
});
