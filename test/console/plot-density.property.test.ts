// Properties of pointsForWidth: one point per PX_PER_POINT CSS px, never below 1, never above pointsMax.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pointsForWidth, PX_PER_POINT } from '../../src/console/plot-density.js';

describe('pointsForWidth', () => {
  it('is floor(width / PX_PER_POINT) clamped to [1, pointsMax]', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 20_000 }), fc.integer({ min: 1, max: 5000 }), (width, pointsMax) => {
        const points = pointsForWidth(width, pointsMax);
        expect(points).toBe(Math.max(1, Math.min(Math.floor(width / PX_PER_POINT), pointsMax)));
        expect(Number.isInteger(points)).toBe(true);
      }),
    );
  });

  it('reads one point per 2 px and caps at the limit', () => {
    expect(PX_PER_POINT).toBe(2);
    expect(pointsForWidth(800, 1440)).toBe(400);
    expect(pointsForWidth(801, 1440)).toBe(400);
    expect(pointsForWidth(4000, 1440)).toBe(1440);
    expect(pointsForWidth(1, 1440)).toBe(1);
  });

  it('gives 1 point for a width that is zero, negative or not a number', () => {
    for (const width of [0, -50, Number.NaN, Number.POSITIVE_INFINITY]) expect(pointsForWidth(width, 1440)).toBe(1);
  });
});
