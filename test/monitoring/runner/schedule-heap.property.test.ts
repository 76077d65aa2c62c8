// Properties of the schedule heap: pops come out in due order, and retain keeps exactly the accepted items, still in order.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ScheduleHeap } from '../../../src/monitoring/runner/schedule-heap.js';

interface Item {
  dueMs: number;
  id: number;
}

function drain(heap: ScheduleHeap<Item>): Item[] {
  const out: Item[] = [];
  for (let item = heap.pop(); item !== undefined; item = heap.pop()) out.push(item);
  return out;
}

describe('ScheduleHeap', () => {
  it('pops every pushed item in due order, peek showing the next', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 1_000 }), { maxLength: 300 }), (dues) => {
        const heap = new ScheduleHeap<Item>();
        dues.forEach((dueMs, id) => heap.push({ dueMs, id }));
        expect(heap.size).toBe(dues.length);
        expect(heap.peek()?.dueMs).toBe(dues.length === 0 ? undefined : Math.min(...dues));
        const popped = drain(heap);
        expect(popped.map((i) => i.dueMs)).toEqual([...dues].sort((a, b) => a - b));
        expect(new Set(popped.map((i) => i.id)).size).toBe(dues.length);
        expect(heap.size).toBe(0);
      }),
    );
  });

  it('interleaved pushes and pops always pop the smallest', () => {
    fc.assert(
      fc.property(fc.array(fc.option(fc.integer({ min: 0, max: 100 })), { maxLength: 300 }), (ops) => {
        const heap = new ScheduleHeap<Item>();
        const model: number[] = [];
        ops.forEach((op, id) => {
          if (op === null) {
            model.sort((a, b) => a - b);
            expect(heap.pop()?.dueMs).toBe(model.shift());
          } else {
            heap.push({ dueMs: op, id });
            model.push(op);
          }
        });
        expect(heap.size).toBe(model.length);
      }),
    );
  });

  it('retain keeps only accepted items and the heap order', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 1_000 }), { maxLength: 300 }), (dues) => {
        const heap = new ScheduleHeap<Item>();
        dues.forEach((dueMs, id) => heap.push({ dueMs, id }));
        heap.retain((item) => item.id % 3 !== 0);
        const expected = dues.filter((_, id) => id % 3 !== 0).sort((a, b) => a - b);
        expect(drain(heap).map((i) => i.dueMs)).toEqual(expected);
      }),
    );
  });
});
