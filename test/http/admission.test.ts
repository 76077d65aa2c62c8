// Tests admission: bounded queues per kind of work, and the 503 with Retry-After that changes nothing.
import { describe, expect, it } from 'vitest';
import { Admission } from '../../src/http/admission.js';
import type { AdmissionLimits } from '../../src/http/admission-budget.js';
import { TURNS_PER_PACED_START } from '../../src/http/http-limits.js';
import { openStore } from '../../src/store.js';
import { gated, type GatedStore } from './gated-store.js';
import { call, startHarness } from './harness.js';

/** Limits of a kind whose budgets are as wide as its queue, so only the queue sizes matter. */
function queueOnly(concurrency: number, queueMax: number): AdmissionLimits {
  return { concurrency, queueMax, tenantRequestsMax: Math.max(1, concurrency + queueMax), bodyBytesMax: 1024, tenantBodyBytesMax: 1024 };
}

describe('Admission', () => {
  it('runs up to concurrency, queues up to queueMax, and refuses the rest before starting them', async () => {
    const admission = new Admission({ ingest: queueOnly(1, 1), query: queueOnly(1, 0) });
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

  it('starts ingest work at most once per TURNS_PER_PACED_START turns of the event loop, and query work at once', async () => {
    const admission = new Admission({ ingest: queueOnly(4, 4), query: queueOnly(4, 4) });
    let turn = 0;
    let ticking = true;
    const tick = (): void => {
      turn += 1;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const starts: number[] = [];
    await Promise.all([1, 2, 3, 4].map(() => admission.run('ingest', async () => void starts.push(turn))));
    for (let k = 1; k < starts.length; k++) expect((starts[k] as number) - (starts[k - 1] as number)).toBeGreaterThanOrEqual(TURNS_PER_PACED_START);
    const asked = turn;
    let ran = -1;
    await admission.run('query', async () => void (ran = turn));
    expect(ran).toBe(asked);
    ticking = false;
  });

  it('refuses unbounded or nonsensical sizes', () => {
    expect(() => new Admission({ ingest: queueOnly(0, 1), query: queueOnly(1, 1) })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
    expect(() => new Admission({ ingest: { ...queueOnly(1, 1), queueMax: Infinity }, query: queueOnly(1, 1) })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
  });
});

describe('503 over HTTP', () => {
  it('answers 503 with Retry-After when the ingest queue is full, and writes nothing of the refused batch', async () => {
    const now = Date.now();
    let gate!: GatedStore;
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
