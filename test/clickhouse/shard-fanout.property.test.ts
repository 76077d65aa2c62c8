// Tests the shard fan-out: results in shard order, and a failure thrown (the first in shard order) only once every shard's step has finished.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { onEveryShard } from '../../src/clickhouse/shard-fanout.js';

/** One shard's step: how many turns of the event loop it takes, and whether it fails at the end. */
interface Step {
  readonly turns: number;
  readonly fails: boolean;
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('onEveryShard', () => {
  it('answers every result in shard order, or throws the first failure in shard order after every step finished', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ turns: fc.integer({ min: 0, max: 5 }), fails: fc.boolean() }), { minLength: 1, maxLength: 6 }), async (steps: Step[]) => {
        const finished: number[] = [];
        const run = onEveryShard(steps, async (step, index) => {
          for (let i = 0; i < step.turns; i++) await turn();
          finished.push(index);
          if (step.fails) throw new Error(`shard ${index}`);
          return index * 10;
        });
        const firstFailure = steps.findIndex((s) => s.fails);
        if (firstFailure === -1) {
          await expect(run).resolves.toEqual(steps.map((_, i) => i * 10));
        } else {
          await expect(run).rejects.toThrow(`shard ${firstFailure}`);
        }
        // Whatever the outcome, no shard's step was still running when the fan-out answered.
        expect([...finished].sort((a, b) => a - b)).toEqual(steps.map((_, i) => i));
      }),
      { numRuns: 200 },
    );
  });

  it('waits for a slow shard before throwing a fast shard failure, and turns a step that throws at once into that failure', async () => {
    let slowDone = false;
    const run = onEveryShard(['fast', 'slow'], async (name) => {
      if (name === 'fast') throw new Error('refused');
      await new Promise((resolve) => setTimeout(resolve, 50));
      slowDone = true;
    });
    await expect(run).rejects.toThrow('refused');
    expect(slowDone).toBe(true);
    const sync = onEveryShard([1], () => {
      throw new Error('at once');
    });
    await expect(sync).rejects.toThrow('at once');
  });
});
