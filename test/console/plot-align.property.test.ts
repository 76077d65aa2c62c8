// Properties of alignSeries: one ascending axis holding every timestamp, and every metric's values at their own timestamps.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { alignSeries } from '../../src/console/plot-chart.js';

const stat = fc.option(fc.double({ noNaN: false }), { nil: null });
const value = fc.record(
  { timestamp: fc.integer({ min: 0, max: 10_000 }).map((t) => t * 30_000), average: stat, min: stat, max: stat },
  { requiredKeys: ['timestamp'] },
);
const metricValues = fc.record({
  metric: fc.string({ minLength: 1 }),
  unit: fc.string(),
  values: fc.array(value, { maxLength: 40 }),
});

function finite(v: number | null | undefined): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

describe('alignSeries', () => {
  it('has one strictly ascending axis that is exactly the union of the timestamps', () => {
    fc.assert(
      fc.property(fc.array(metricValues, { maxLength: 6 }), (metrics) => {
        const { timestamps } = alignSeries(metrics);
        for (let i = 1; i < timestamps.length; i++) expect(timestamps[i]).toBeGreaterThan(timestamps[i - 1] as number);
        const union = new Set(metrics.flatMap((m) => m.values.map((v) => v.timestamp)));
        expect(new Set(timestamps)).toEqual(union);
        expect(timestamps.length).toBe(union.size);
      }),
    );
  });

  it('keeps metric order, names and units; every series is as long as the axis', () => {
    fc.assert(
      fc.property(fc.array(metricValues, { maxLength: 6 }), (metrics) => {
        const data = alignSeries(metrics);
        expect(data.series.map((s) => [s.metric, s.unit])).toEqual(metrics.map((m) => [m.metric, m.unit]));
        for (const s of data.series) {
          expect(s.average.length).toBe(data.timestamps.length);
          expect(s.min.length).toBe(data.timestamps.length);
          expect(s.max.length).toBe(data.timestamps.length);
        }
      }),
    );
  });

  it('puts each value at its timestamp (first one wins), finite numbers only, null elsewhere', () => {
    fc.assert(
      fc.property(fc.array(metricValues, { maxLength: 6 }), (metrics) => {
        const data = alignSeries(metrics);
        metrics.forEach((m, n) => {
          const series = data.series[n]!;
          const first = new Map<number, (typeof m.values)[number]>();
          for (const v of m.values) if (!first.has(v.timestamp)) first.set(v.timestamp, v);
          data.timestamps.forEach((t, i) => {
            const v = first.get(t);
            expect(series.average[i]).toBe(v === undefined ? null : finite(v.average));
            expect(series.min[i]).toBe(v === undefined ? null : finite(v.min));
            expect(series.max[i]).toBe(v === undefined ? null : finite(v.max));
          });
        });
      }),
    );
  });

  it('drawn values read back as the API gave them for ordinary data', () => {
    const data = alignSeries([
      { metric: 'a', unit: 'ms', values: [{ timestamp: 60_000, average: 2, min: 1, max: 3 }, { timestamp: 0, average: 1, min: 0, max: 2 }] },
      { metric: 'b', unit: 'bytes', values: [{ timestamp: 30_000, average: 5, min: 5, max: 5 }] },
    ]);
    expect(data).toEqual({
      timestamps: [0, 30_000, 60_000],
      series: [
        { metric: 'a', unit: 'ms', average: [1, null, 2], min: [0, null, 1], max: [2, null, 3] },
        { metric: 'b', unit: 'bytes', average: [null, 5, null], min: [null, 5, null], max: [null, 5, null] },
      ],
    });
  });
});
