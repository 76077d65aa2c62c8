// Tests what the plan panel says: the planner's facts as given, the retention cut, and the limit explanation.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planTexts, type PlanFacts } from '../../src/console/plan-text.js';

const facts: fc.Arbitrary<PlanFacts> = fc
  .record({
    resolution: fc.constantFrom('FULL', 'MIN5', 'MIN20', 'MIN60', 'MIN240', 'MIN1440'),
    from: fc.integer({ min: 0, max: 2 ** 42 }),
    length: fc.integer({ min: 1, max: 2 ** 36 }),
    cutAt: fc.double({ min: 0, max: 1, noNaN: true }),
    expectedPoints: fc.integer({ min: 0, max: 10 ** 6 }),
    pointsMax: fc.integer({ min: 1, max: 5000 }),
    reason: fc.string(),
  })
  .map(({ from, length, cutAt, ...rest }) => ({ ...rest, from, to: from + length, servedFrom: from + Math.floor(cutAt * length) }));
/** Notes are the console's own sentences: words, sometimes blank-padded or blank, at most three. */
const note = fc.oneof(fc.string({ minLength: 1 }), fc.stringMatching(/^ ?[a-z][a-z0-9 ;,]{4,60} ?$/));
const decision = fc.record({ requested: fc.string(), notes: fc.array(note, { maxLength: 3 }), blocked: fc.boolean() });
const iso = (ms: number): string => new Date(ms).toISOString();

describe('planTexts', () => {
  it('shows the planner’s resolution, count and reason as given, and what was asked', () => {
    fc.assert(
      fc.property(facts, decision, (plan, d) => {
        const texts = planTexts(plan, d, iso);
        expect(texts.resolution).toBe(plan.resolution);
        expect(texts.expected).toBe(String(plan.expectedPoints));
        expect(texts.expected).toMatch(/^\d+$/);
        expect(texts.reason).toBe(plan.reason);
        expect(texts.requested).toBe(d.requested);
        expect(texts.offerUsePoints).toBe(d.blocked);
      }),
    );
  });

  it('shows the retention cut as a time exactly when older data expired', () => {
    fc.assert(
      fc.property(facts, decision, (plan, d) => {
        const { cut } = planTexts(plan, d, iso);
        expect(cut).toBe(plan.servedFrom > plan.from ? iso(plan.servedFrom) : 'none');
      }),
    );
  });

  it('explains the limit exactly when a note exists, with the limit and every note', () => {
    fc.assert(
      fc.property(facts, decision, (plan, d) => {
        const { limit } = planTexts(plan, d, iso);
        if (d.notes.length === 0) {
          expect(limit).toBeNull();
          return;
        }
        expect(limit).toContain(`at most ${plan.pointsMax} points`);
        // Each non-blank note appears as written, only its first letter capitalised.
        for (const note of d.notes) {
          const text = note.trim();
          if (text !== '') expect(limit).toContain(text.charAt(0).toUpperCase() + text.slice(1));
        }
      }),
    );
  });

  it('writes the capped-points note as sentences', () => {
    const texts = planTexts(
      { resolution: 'MIN5', from: 0, to: 86_400_000, servedFrom: 0, expectedPoints: 288, pointsMax: 1440, reason: 'r.' },
      { requested: '1440 points', notes: ['asked 5000 points; a view returns at most 1440, so 1440 were asked'], blocked: false },
      iso,
    );
    expect(texts.limit).toBe(
      'A view returns at most 1440 points, so a plot never asks the server for more than it can send in one answer. Asked 5000 points; a view returns at most 1440, so 1440 were asked.',
    );
  });
});
