// Checks LruMap against a list model: it never holds more than its capacity and always forgets the least recently used key.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LruMap } from '../../../src/monitoring/alarms/alarm-lru.js';

type Op = { kind: 'get'; key: number } | { kind: 'delete'; key: number } | { kind: 'set'; key: number; value: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('get' as const), key: fc.integer({ min: 0, max: 9 }) }),
  fc.record({ kind: fc.constant('delete' as const), key: fc.integer({ min: 0, max: 9 }) }),
  fc.record({ kind: fc.constant('set' as const), key: fc.integer({ min: 0, max: 9 }), value: fc.integer() }),
);

describe('LruMap', () => {
  it('behaves as a recency-ordered list cut to its capacity', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.array(op, { maxLength: 80 }), (capacity, ops) => {
        const lru = new LruMap<number, number>(capacity);
        // The model: entries oldest first.
        let model: [number, number][] = [];
        for (const o of ops) {
          const at = model.findIndex(([key]) => key === o.key);
          if (o.kind === 'get') {
            const found = at >= 0 ? model[at] : undefined;
            expect(lru.get(o.key)).toBe(found?.[1]);
            if (found !== undefined) model = [...model.filter(([key]) => key !== o.key), found];
          } else if (o.kind === 'delete') {
            expect(lru.delete(o.key)).toBe(at >= 0);
            model = model.filter(([key]) => key !== o.key);
          } else {
            lru.set(o.key, o.value);
            model = [...model.filter(([key]) => key !== o.key), [o.key, o.value]];
            if (model.length > capacity) model = model.slice(model.length - capacity);
          }
          expect(lru.size).toBe(model.length);
          expect(lru.size).toBeLessThanOrEqual(capacity);
        }
        // Reading every model key back (oldest first keeps the order) finds its value.
        for (const [key, value] of model) expect(lru.get(key)).toBe(value);
      }),
    );
  });

  it('refuses a capacity below one', () => {
    expect(() => new LruMap(0)).toThrow();
  });
});
