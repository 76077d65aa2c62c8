// Property tests of the agent's result buffer against a plain array model: FIFO order, the bound, dropping the oldest, requeue at the front.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ResultBuffer } from '../../../src/agent/client/result-buffer.js';

type Op = { kind: 'push'; item: number } | { kind: 'shift' } | { kind: 'requeue'; item: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.integer().map((item) => ({ kind: 'push' as const, item })),
  fc.constant({ kind: 'shift' as const }),
  fc.integer().map((item) => ({ kind: 'requeue' as const, item })),
);

describe('ResultBuffer', () => {
  it('behaves like a bounded array: push drops the oldest when full, requeue goes to the front (dropped itself when full)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.array(op, { maxLength: 200 }), (capacity, ops) => {
        const buffer = new ResultBuffer<number>(capacity);
        const model: number[] = [];
        let dropped = 0;
        for (const step of ops) {
          if (step.kind === 'push') {
            if (model.length === capacity) {
              model.shift();
              dropped += 1;
            }
            model.push(step.item);
            buffer.push(step.item);
          } else if (step.kind === 'requeue') {
            if (model.length === capacity) dropped += 1;
            else model.unshift(step.item);
            buffer.requeue(step.item);
          } else {
            expect(buffer.shift()).toBe(model.shift());
          }
          expect(buffer.size).toBe(model.length);
          expect(buffer.size).toBeLessThanOrEqual(capacity);
          expect(buffer.dropped).toBe(dropped);
          expect(buffer.toArray()).toEqual(model);
        }
      }),
    );
  });

  it('a shifted item requeued after a failed post comes out first again', () => {
    fc.assert(
      fc.property(fc.array(fc.integer(), { minLength: 1, maxLength: 50 }), (items) => {
        const buffer = new ResultBuffer<number>(items.length);
        for (const item of items) buffer.push(item);
        const first = buffer.shift() as number;
        buffer.requeue(first);
        expect(buffer.toArray()).toEqual(items);
        expect(buffer.dropped).toBe(0);
      }),
    );
  });

  it('keeps the newest `capacity` items of any push sequence and counts the rest as dropped', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), fc.array(fc.integer(), { maxLength: 100 }), (capacity, items) => {
        const buffer = new ResultBuffer<number>(capacity);
        for (const item of items) buffer.push(item);
        expect(buffer.toArray()).toEqual(items.slice(Math.max(0, items.length - capacity)));
        expect(buffer.dropped).toBe(Math.max(0, items.length - capacity));
      }),
    );
  });
});
