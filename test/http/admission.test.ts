// Tests admission: bounded queues per kind of work, and the 503 with Retry-After that changes nothing.
import { describe, expect, it } from 'vitest';
import { Admission } from '../../src/http/admission.js';
import { openStore } from '../../src/store.js';
import type { Store } from '../../src/store-types.js';
import { call, startHarness } from './harness.js';

/** A store whose writes wait at a gate the test opens, so requests stay in flight on demand. */
function gated(store: Store): { store: Store; open(): void; entered: () => number } {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let entered = 0;
  const wrapper: Store = {
    write: async (points, options) => {
      entered += 1;
      await gate;
      return store.write(points, options);
    },
    writeColumns: async (columns, options) => {
      entered += 1;
      await gate;
      return store.writeColumns(columns, options);
    },
    query: (request) => store.query(request),
    plan: (request) => store.plan(request),
    listMetrics: (tenant, options) => store.listMetrics(tenant, options),
    flush: () => store.flush(),
    stats: () => store.stats(),
    close: () => store.close(),
  };
  return { store: wrapper, open: () => release(), entered: () => entered };
}

describe('Admission', () => {
  it('runs up to concurrency, queues up to queueMax, and refuses the rest before starting them', async () => {
    const admission = new Admission({ ingest: { concurrency: 1, queueMax: 1 }, query: { concurrency: 1, queueMax: 0 } });
    let release!: () => void;
    const hold = new Promise<void>((resolve) => (release = resolve));
    const started: number[] = [];
    const first = admission.run('ingest', async () => (started.push(1), hold));
    const second = admission.run('ingest', async () => started.push(2));
    expect(admission.hasRoom('ingest')).toBe(false);
    let thirdRan = false;
    await expect(admission.run('ingest', async () => (thirdRan = true))).rejects.toMatchObject({ code: 'HTTP_OVERLOADED', kind: 'unavailable' });
    expect(thirdRan).toBe(false);
    expect(admission.depths().get('ingest')).toEqual({ running: 1, waiting: 1 });
    expect(admission.hasRoom('query')).toBe(true);
    release();
    await Promise.all([first, second]);
    expect(started).toEqual([1, 2]);
    await admission.idle();
    expect(admission.depths().get('ingest')).toEqual({ running: 0, waiting: 0 });
  });

  it('refuses unbounded or nonsensical sizes', () => {
    expect(() => new Admission({ ingest: { concurrency: 0, queueMax: 1 }, query: { concurrency: 1, queueMax: 1 } })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
    expect(() => new Admission({ ingest: { concurrency: 1, queueMax: Infinity }, query: { concurrency: 1, queueMax: 1 } })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
  });
});

describe('503 over HTTP', () => {
  it('answers 503 with Retry-After when the ingest queue is full, and writes nothing of the refused batch', async () => {
    const now = Date.now();
    let gate!: ReturnType<typeof gated>;
    const h = await startHarness({
      makeStore: async (dir) => (gate = gated(await openStore({ dir, workers: 0, background: false }))).store,
      config: { admission: { ingest: { concurrency: 1, queueMax: 0 } } },
    });
    try {
      const token = await h.token('alice');
      const batch = (name: string) => [{ metricName: name, metricValue: 1, collectionTime: now - 1000, ttlInSeconds: 60 }];
      const held = call(h, 'POST', '/ingest/v2.0/t1/ingest', { token, json: batch('held') });
      let heldAnswered = false;
      void held.then(
        () => (heldAnswered = true),
        () => (heldAnswered = true),
      );
      // Wait until the first request is inside the store's write (or fail fast if it was answered instead).
      while (gate.entered() === 0 && !heldAnswered) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(gate.entered()).toBe(1);
      const refused = await call(h, 'POST', '/ingest/v2.0/t1/ingest', { token, json: batch('refused') });
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(refused.json).toMatchObject({ type: 'systemFailureError', code: 503, details: { code: 'HTTP_OVERLOADED' } });
      expect(refused.json.errors[0].code).toBe('HTTP_OVERLOADED');
      // Queries have their own queue and still run.
      expect((await call(h, 'GET', '/metrics/v2.0/t1/metrics/search?query=*', { token })).status).toBe(200);
      gate.open();
      expect((await held).status).toBe(200);
      const names = await call(h, 'GET', '/metrics/v2.0/t1/metrics/search?query=*', { token });
      expect(names.json).toEqual([{ metric: 'held' }]);
      expect(gate.entered()).toBe(1);
      const scrape = await call(h, 'GET', '/metrics');
      expect(scrape.text).toMatch(/strata_admission_rejected_total\{work="ingest"\} 1/);
    } finally {
      await h.close();
    }
  });
});
