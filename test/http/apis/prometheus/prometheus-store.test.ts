// Tests the Prometheus API against the store's time and health over real HTTP: reads past the FULL retention answer rollup averages, and a store that cannot write answers 503 with Retry-After.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import { openStore } from '../../../../src/store.js';
import { startHarness, type Harness } from '../../harness.js';
import { nameIs, plain, promRead, promWrite } from './prom-http.js';
import { unreliable, type UnreliableStore } from './unreliable-store.js';

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;
const T = Date.UTC(2026, 0, 1, 12);

describe('remote read past the FULL retention', () => {
  let h: Harness;
  const clock = new ManualClock(T);

  beforeAll(async () => {
    h = await startHarness({ clock });
  });
  afterAll(async () => h.close());

  it('answers rollup bucket averages at their starts where FULL has expired, and raw points after', async () => {
    // One point a minute over the hour before T, valued 0 to 59.
    const old = Array.from({ length: 60 }, (_, i) => ({ timestampMs: T - 60 * MINUTE_MS + i * MINUTE_MS, value: i }));
    expect((await promWrite(h, 't1', [{ labels: [{ name: '__name__', value: 'aged' }, { name: 'job', value: 'a' }], samples: old }], { basic: 'alice' })).status).toBe(204);
    clock.advance(3 * DAY_MS);
    const recent = [{ timestampMs: clock.now() - MINUTE_MS, value: 100 }];
    expect((await promWrite(h, 't1', [{ labels: [{ name: '__name__', value: 'aged' }, { name: 'job', value: 'a' }], samples: recent }], { basic: 'alice' })).status).toBe(204);
    await h.app.strata.store.flush();

    const read = await promRead(h, 't1', [{ startMs: T - 60 * MINUTE_MS, endMs: clock.now(), matchers: [nameIs('aged')] }], { basic: 'alice' });
    expect(read.status).toBe(200);
    // Three days: MIN5 is nearest to 1440 points; each 5-minute bucket of 0..59 averages its middle value.
    const buckets = Array.from({ length: 12 }, (_, k): [number, number] => [T - 60 * MINUTE_MS + k * 5 * MINUTE_MS, 5 * k + 2]);
    expect(read.results[0]?.map(plain)).toEqual([{ labels: { __name__: 'aged', job: 'a' }, samples: [...buckets, [clock.now() - MINUTE_MS, 100]] }]);
  });
});

describe('a store that cannot make writes durable', () => {
  let h: Harness;
  let wrapped: UnreliableStore | undefined;

  beforeAll(async () => {
    h = await startHarness({ makeStore: async (dir) => (wrapped = unreliable(await openStore({ dir, workers: 0, background: false }))).store });
  });
  afterAll(async () => h.close());

  it('answers 503 with Retry-After (Prometheus retries), and writes once the log is back', async () => {
    const series = [{ labels: [{ name: '__name__', value: 'durable_m' }], samples: [{ timestampMs: Date.now() - MINUTE_MS, value: 1 }] }];
    (wrapped as UnreliableStore).failing = true;
    const refused = await promWrite(h, 't1', series, { basic: 'alice' });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.text).toMatch(/^STORE_NOT_DURABLE: /);
    (wrapped as UnreliableStore).failing = false;
    expect((await promWrite(h, 't1', series, { basic: 'alice' })).status).toBe(204);
  });
});
