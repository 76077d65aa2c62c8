// Properties of the metrics page's range arithmetic: presets, custom ranges, auto points, the capped ask and the over-limit steps.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PX_PER_POINT } from '../../src/console/plot-density.js';
import {
  askFor,
  coarserResolution,
  customRange,
  nextStep,
  presetRange,
  RANGE_PRESETS,
  RESOLUTION_NAMES,
  viewQuery,
  type PointsChoice,
  type RangePreset,
} from '../../src/console/range.js';
import { formatLocalDateTime, parseLocalDateTime } from '../../src/console/time-format.js';

const PRESETS = Object.keys(RANGE_PRESETS) as RangePreset[];
/** 2000-01-01 .. 2100-01-01, whole minutes (what a datetime-local value can name). */
const minuteMs = fc.integer({ min: 946_684_800_000 / 60_000, max: 4_102_444_800_000 / 60_000 }).map((m) => m * 60_000);
const pointsMax = fc.integer({ min: 1, max: 5000 });
const choice: fc.Arbitrary<PointsChoice> = fc.oneof(
  fc.constant({ mode: 'auto' as const }),
  fc.integer({ min: 1, max: 100_000 }).map((points) => ({ mode: 'points' as const, points })),
  fc.constantFrom(...RESOLUTION_NAMES).map((resolution) => ({ mode: 'resolution' as const, resolution })),
);

describe('presetRange', () => {
  it('ends now and spans exactly the preset, in integer ms', () => {
    fc.assert(
      fc.property(fc.constantFrom(...PRESETS), fc.integer({ min: 0, max: 8_000_000_000_000 }), (preset, now) => {
        const range = presetRange(preset, now);
        expect(range.to).toBe(now);
        expect(range.to - range.from).toBe(RANGE_PRESETS[preset]);
        expect(Number.isSafeInteger(range.from)).toBe(true);
      }),
    );
  });
});

describe('custom ranges', () => {
  it('accepts from < to and refuses every other order with a message', () => {
    fc.assert(
      fc.property(minuteMs, minuteMs, (a, b) => {
        const result = customRange(formatLocalDateTime(a), formatLocalDateTime(b));
        const from = parseLocalDateTime(formatLocalDateTime(a)) as number;
        const to = parseLocalDateTime(formatLocalDateTime(b)) as number;
        if (from < to) expect(result).toEqual({ range: { from, to } });
        else expect(result).toEqual({ error: 'The end of the range must be after its start.' });
      }),
    );
  });

  it('refuses a start or end that is not a date and time, naming it', () => {
    expect(customRange('', '2024-01-01T00:00')).toEqual({ error: 'The start "" is not a date and time.' });
    expect(customRange('2024-01-01T00:00', '2024-02-30T00:00')).toEqual({ error: 'The end "2024-02-30T00:00" is not a date and time.' });
  });
});

describe('askFor', () => {
  it('never asks more than pointsMax points, and notes exactly when it capped', () => {
    fc.assert(
      fc.property(choice, fc.integer({ min: 0, max: 20_000 }), pointsMax, (c, width, max) => {
        const { ask, requested, limitNote } = askFor(c, width, max);
        if (c.mode === 'resolution') {
          expect(ask).toEqual({ resolution: c.resolution });
          expect(requested).toBe(`resolution ${c.resolution}`);
          expect(limitNote).toBeNull();
          return;
        }
        expect('points' in ask).toBe(true);
        const points = (ask as { points: number }).points;
        expect(points).toBeGreaterThanOrEqual(1);
        expect(points).toBeLessThanOrEqual(max);
        const wanted = c.mode === 'points' ? c.points : Math.floor(width / PX_PER_POINT);
        expect(limitNote !== null).toBe(wanted > max);
        if (limitNote !== null) {
          expect(limitNote).toContain(String(wanted));
          expect(limitNote).toContain(`at most ${max}`);
          expect(points).toBe(max);
        }
        if (c.mode === 'points') expect(requested).toBe(`${points} points`);
        else expect(requested).toBe(`auto: ${points} points for ${width} px`);
      }),
    );
  });

  it('says what was done with a too-high points value', () => {
    expect(askFor({ mode: 'points', points: 5000 }, 800, 1440).limitNote).toBe('asked 5000 points; a view returns at most 1440, so 1440 were asked');
  });
});

describe('nextStep', () => {
  const plan = fc.record({
    resolution: fc.constantFrom(...RESOLUTION_NAMES),
    expectedPoints: fc.integer({ min: 0, max: 1_000_000 }),
    pointsMax: fc.integer({ min: 1, max: 5000 }),
  });

  it('fetches within the limit; over it, steps coarser for points and blocks a chosen resolution', () => {
    fc.assert(
      fc.property(plan, fc.constantFrom('auto', 'points', 'resolution') as fc.Arbitrary<PointsChoice['mode']>, (p, mode) => {
        const overLimit = p.expectedPoints > p.pointsMax;
        const step = nextStep(mode, { ...p, overLimit });
        if (!overLimit) {
          expect(step).toEqual({ kind: 'fetch' });
          return;
        }
        const coarser = coarserResolution(p.resolution);
        if (mode === 'resolution' || coarser === undefined) {
          expect(step.kind).toBe('blocked');
        } else {
          expect(step).toMatchObject({ kind: 'coarser', ask: { resolution: coarser } });
        }
        if (step.kind !== 'fetch') {
          expect(step.note).toContain(String(p.expectedPoints));
          expect(step.note).toContain(String(p.pointsMax));
        }
      }),
    );
  });

  it('the coarser chain is finite and ends at MIN1440', () => {
    let resolution: string | undefined = 'FULL';
    const seen: string[] = [];
    while (resolution !== undefined) {
      seen.push(resolution);
      resolution = coarserResolution(resolution);
    }
    expect(seen).toEqual([...RESOLUTION_NAMES]);
  });
});

describe('viewQuery', () => {
  it('sends the range and exactly one of points and resolution', () => {
    fc.assert(
      fc.property(minuteMs, fc.integer({ min: 1, max: 1e9 }), choice, (from, length, c) => {
        const { ask } = askFor(c, 1000, 1440);
        const query = viewQuery({ from, to: from + length }, ask);
        expect(query.from).toBe(from);
        expect(query.to).toBe(from + length);
        expect((query.points === undefined) !== (query.resolution === undefined)).toBe(true);
      }),
    );
  });
});
