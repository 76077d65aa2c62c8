// Properties of the sorted name set: after any mix of loads, adds and deletes it scans exactly like a sorted array of the same names.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SortedNames } from '../../src/storage/sorted-names.js';

/** Names from a small alphabet (code units low and high), so adds and deletes often collide. */
const name = fc.string({ unit: fc.constantFrom('a', 'b', 'c', '.', '\u0000', '\uffff', '😀'), maxLength: 4 });
const op = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), name }),
  fc.record({ kind: fc.constant('delete' as const), name }),
  // Runs of adds in order grow one block past its limit, so blocks split.
  fc.record({ kind: fc.constant('addRun' as const), name, count: fc.integer({ min: 1, max: 1500 }) }),
);

/** The model: a plain set, sorted when read, with JavaScript's `<` order. */
function sortedModel(model: Set<string>): string[] {
  return [...model].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

describe('SortedNames', () => {
  it('scans from any start, inclusive or not, like a sorted array, after any adds and deletes', () => {
    fc.assert(
      fc.property(fc.uniqueArray(name, { maxLength: 30 }), fc.array(op, { maxLength: 40 }), fc.array(name, { maxLength: 5 }), (loaded, ops, starts) => {
        const set = SortedNames.of(loaded);
        const model = new Set(loaded);
        for (const o of ops) {
          if (o.kind === 'add') {
            expect(set.add(o.name)).toBe(!model.has(o.name));
            model.add(o.name);
          } else if (o.kind === 'delete') {
            expect(set.delete(o.name)).toBe(model.has(o.name));
            model.delete(o.name);
          } else {
            for (let i = 0; i < o.count; i++) {
              const next = `${o.name}${String(i).padStart(4, '0')}`;
              set.add(next);
              model.add(next);
            }
          }
        }
        const sorted = sortedModel(model);
        expect(set.size).toBe(sorted.length);
        expect([...set.namesFrom('', true)]).toEqual(sorted);
        for (const start of starts) {
          expect([...set.namesFrom(start, true)]).toEqual(sorted.filter((n) => n >= start));
          expect([...set.namesFrom(start, false)]).toEqual(sorted.filter((n) => n > start));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('loads many names in order and keeps them in order through deletes that empty whole blocks', () => {
    const names = Array.from({ length: 5000 }, (_, i) => `m${(i * 7919) % 5000}`);
    const set = SortedNames.of(names);
    const sorted = [...names].sort();
    expect([...set.namesFrom('', true)]).toEqual(sorted);
    for (const n of sorted.slice(1000, 3000)) expect(set.delete(n)).toBe(true);
    const kept = [...sorted.slice(0, 1000), ...sorted.slice(3000)];
    expect([...set.namesFrom('', true)]).toEqual(kept);
    expect([...set.namesFrom(sorted[1500] as string, false)]).toEqual(sorted.slice(3000));
    expect(set.size).toBe(3000);
  });
});
