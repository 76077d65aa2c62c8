// Property tests of plot parameter parsing: from, to, points or resolution, and select.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RESOLUTIONS } from '../../src/model/resolution.js';
import { parsePlotParams, parseSelect } from '../../src/http/routes/metrics/plot-params.js';

const STATS = ['average', 'variance', 'min', 'max'] as const;
const time = fc.integer({ min: 0, max: 4_102_444_800_000 });

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  }
}

describe('parsePlotParams', () => {
  it('accepts every well-formed request and keeps its values; points wins over resolution', () => {
    fc.assert(
      fc.property(time, fc.integer({ min: 1, max: 10_000_000 }), fc.option(fc.integer({ min: 1, max: 100_000 })), fc.constantFrom(...RESOLUTIONS), (from, span, points, resolution) => {
        const query = { from: String(from), to: String(from + span), resolution: resolution.toLowerCase(), ...(points !== null ? { points: String(points) } : {}) };
        const parsed = parsePlotParams(query);
        expect(parsed.from).toBe(from);
        expect(parsed.to).toBe(from + span);
        if (points !== null) {
          expect(parsed.points).toBe(points);
          expect(parsed.resolution).toBeUndefined();
        } else {
          expect(parsed.resolution).toBe(resolution);
        }
      }),
    );
  });

  it('always rejects a range with to <= from with QUERY_RANGE_INVALID', () => {
    fc.assert(
      fc.property(time, fc.integer({ min: 0, max: 1_000_000 }), (to, back) => {
        expect(codeOf(() => parsePlotParams({ from: String(to + back), to: String(to), points: '10' }))).toBe('QUERY_RANGE_INVALID');
      }),
    );
  });

  it('always rejects non-integer bounds and points with QUERY_INVALID', () => {
    const notInteger = fc.oneof(fc.constant(''), fc.constant('1.5'), fc.constant('1e3'), fc.constant('abc'), fc.constant(' 1'), fc.string().filter((s) => !/^-?\d+$/.test(s)));
    fc.assert(
      fc.property(notInteger, (text) => {
        expect(codeOf(() => parsePlotParams({ from: text, to: '100', points: '1' }))).toBe('QUERY_INVALID');
        expect(codeOf(() => parsePlotParams({ from: '0', to: '100', points: text === '' ? '0' : text }))).toBe('QUERY_INVALID');
      }),
    );
  });

  it('requires points or resolution, and a valid resolution name', () => {
    expect(codeOf(() => parsePlotParams({ from: '0', to: '10' }))).toBe('QUERY_POINTS_OR_RESOLUTION_REQUIRED');
    fc.assert(
      fc.property(fc.string({ minLength: 1 }).filter((s) => !(RESOLUTIONS as readonly string[]).includes(s.toUpperCase())), (name) => {
        expect(codeOf(() => parsePlotParams({ from: '0', to: '10', resolution: name }))).toBe('QUERY_RESOLUTION_INVALID');
      }),
    );
    expect(codeOf(() => parsePlotParams({ from: ['0', '1'], to: '10', points: '1' }))).toBe('QUERY_INVALID');
  });
});

describe('parseSelect', () => {
  it('accepts any mix of repeated and comma-separated names in any case, deduplicated, numPoints dropped', () => {
    const name = fc.constantFrom(...STATS, 'numPoints');
    const cased = name.chain((n) => fc.constantFrom(n, n.toUpperCase(), n[0]?.toUpperCase() + n.slice(1)));
    fc.assert(
      fc.property(fc.array(fc.array(cased, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 4 }), (groups) => {
        const parsed = parseSelect(groups.map((g) => g.join(',')));
        const expected = [...new Set(groups.flat().map((n) => n.toLowerCase()).filter((n) => n !== 'numpoints'))];
        expect(parsed ?? []).toEqual(expected);
      }),
    );
  });

  it('always rejects a name outside average, variance, min, max, numPoints with QUERY_SELECT_INVALID', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z]{1,10}$/).filter((s) => ![...STATS, 'numpoints'].includes(s)), (bad) => {
        expect(codeOf(() => parseSelect(['average', bad]))).toBe('QUERY_SELECT_INVALID');
      }),
    );
  });
});
