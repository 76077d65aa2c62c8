// Properties of the metrics page's hash state: round trips, lenient parsing, and the plotted-metrics limit.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { INITIAL_STATE, paramsFromState, PLOTTED_METRICS_MAX, stateFromParams, withMetric, withoutMetric, type MetricsState } from '../../src/console/metrics-state.js';
import { RANGE_PRESETS, RESOLUTION_NAMES, type RangePreset } from '../../src/console/range.js';
import { hashOf, parseHash } from '../../src/console/router.js';

describe('metrics state in the hash', () => {
  const state: fc.Arbitrary<MetricsState> = fc.record({
    metrics: fc.uniqueArray(fc.string({ minLength: 1 }), { maxLength: 8 }),
    range: fc.oneof(
      fc.constantFrom(...(Object.keys(RANGE_PRESETS) as RangePreset[])).map((preset) => ({ preset })),
      fc.tuple(fc.integer({ min: 0, max: 2 ** 42 }), fc.integer({ min: 1, max: 2 ** 36 })).map(([from, length]) => ({ fixed: { from, to: from + length } })),
    ),
    choice: fc.oneof(
      fc.constant({ mode: 'auto' as const }),
      fc.integer({ min: 1, max: 100_000 }).map((points) => ({ mode: 'points' as const, points })),
      fc.constantFrom(...RESOLUTION_NAMES).map((resolution) => ({ mode: 'resolution' as const, resolution })),
    ),
  });

  it('round-trips through the parameters', () => {
    fc.assert(
      fc.property(state, (s) => {
        expect(stateFromParams(paramsFromState(s))).toEqual(s);
      }),
    );
  });

  it('survives a trip through the hash', () => {
    fc.assert(
      fc.property(state, (s) => {
        expect(stateFromParams(parseHash(hashOf('/metrics', paramsFromState(s))).params)).toEqual(s);
      }),
    );
  });

  it('falls back to defaults for unreadable parameters', () => {
    expect(stateFromParams(new URLSearchParams('range=3w&points=-4&resolution=MIN7&from=9&to=3'))).toEqual(INITIAL_STATE);
    expect(stateFromParams(new URLSearchParams('resolution=min5')).choice).toEqual({ mode: 'resolution', resolution: 'MIN5' });
    expect(stateFromParams(new URLSearchParams('m=a&m=a&m=&m=b')).metrics).toEqual(['a', 'b']);
  });

  it('never holds more than PLOTTED_METRICS_MAX metrics, and says so when one more is added', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: PLOTTED_METRICS_MAX + 5 }), (count) => {
        let s: MetricsState = INITIAL_STATE;
        let refusals = 0;
        for (let i = 0; i < count; i++) {
          const added = withMetric(s, `m${i}`);
          if (added.refused) refusals++;
          s = added.state;
        }
        expect(s.metrics.length).toBe(Math.min(count, PLOTTED_METRICS_MAX));
        expect(refusals).toBe(Math.max(0, count - PLOTTED_METRICS_MAX));
        if (s.metrics.length > 0) {
          // Adding a metric already plotted is no change and no refusal, even on a full plot.
          expect(withMetric(s, s.metrics[0] as string)).toEqual({ state: s, refused: false });
          expect(withoutMetric(s, s.metrics[0] as string).metrics).toEqual(s.metrics.slice(1));
        }
      }),
    );
  });
});
