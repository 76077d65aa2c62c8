// Tests how /healthz renders the store's health (in process): exactly {"status":"ok"} when healthy, 200 degraded with every reason, 503 unavailable with Retry-After, a store without health() taken as healthy, and the health gauges on /metrics.
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import { openStore } from '../../../../src/store.js';
import type { Store, StoreHealth } from '../../../../src/store-types.js';
import { startHarness, type Harness } from '../../harness.js';
import { inject } from '../../inject.js';

const START_MS = Date.UTC(2026, 0, 1, 12);

/** A real store whose health() answers what the test sets (or is absent). */
function withHealth(store: Store, health: () => StoreHealth | undefined): Store {
  const wrapper: Store = {
    write: (points, options) => store.write(points, options),
    writeColumns: (columns, options) => store.writeColumns(columns, options),
    query: (request) => store.query(request),
    plan: (request) => store.plan(request),
    listMetrics: (tenant, options) => store.listMetrics(tenant, options),
    flush: () => store.flush(),
    stats: () => store.stats(),
    timestampBounds: () => store.timestampBounds(),
    close: () => store.close(),
  };
  const answer = health();
  return answer === undefined ? wrapper : { ...wrapper, health: () => health() as StoreHealth };
}

const DAMAGED = {
  code: 'STORE_PARTITION_DAMAGED',
  message: 'the FULL [...] partition is unavailable',
  details: { resolution: 'FULL', partitionStartMs: 0, partitionEndMs: 21_600_000, reason: 'missing', detail: 'gone', detectedMs: 5 },
};
const NOT_DURABLE = { code: 'STORE_NOT_DURABLE', message: 'the write-ahead log cannot be written', details: { errno: 'EACCES', sinceMs: 1, cause: 'EACCES: permission denied' } };

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function harness(health: () => StoreHealth | undefined): Promise<Harness> {
  const clock = new ManualClock(START_MS);
  return startHarness({ clock, makeStore: async (dir) => withHealth(await openStore({ dir, clock, workers: 0, background: false }), health) });
}

describe('GET /healthz renders the store health', () => {
  it('answers exactly {"status":"ok"} for a healthy store', async () => {
    h = await harness(() => ({ status: 'ok', reasons: [] }));
    const res = await inject(h, 'GET', '/healthz');
    expect(res.status).toBe(200);
    expect(res.text).toBe('{"status":"ok"}');
  });

  it('answers 200 degraded with every reason, their details whole', async () => {
    h = await harness(() => ({ status: 'degraded', reasons: [DAMAGED, { ...DAMAGED, details: { ...DAMAGED.details, resolution: 'MIN5', reason: 'lost' } }] }));
    const res = await inject(h, 'GET', '/healthz');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ status: 'degraded', reasons: [DAMAGED, { ...DAMAGED, details: { ...DAMAGED.details, resolution: 'MIN5', reason: 'lost' } }] });
    expect(res.headers['retry-after']).toBeUndefined();
  });

  it('answers 503 unavailable with its reasons and Retry-After when writes cannot be made durable; HEAD too', async () => {
    h = await harness(() => ({ status: 'unavailable', reasons: [NOT_DURABLE, DAMAGED] }));
    const res = await inject(h, 'GET', '/healthz');
    expect(res.status).toBe(503);
    expect(res.json).toEqual({ status: 'unavailable', reasons: [NOT_DURABLE, DAMAGED] });
    expect(res.headers['retry-after']).toBe('1');
    expect((await inject(h, 'HEAD', '/healthz')).status).toBe(503);
  });

  it('takes a store without health() as healthy while it answers', async () => {
    h = await harness(() => undefined);
    expect((await inject(h, 'GET', '/healthz')).text).toBe('{"status":"ok"}');
  });

  it('reads the store stats once per scrape, for every store gauge', async () => {
    const clock = new ManualClock(START_MS);
    let reads = 0;
    h = await startHarness({
      clock,
      makeStore: async (dir) => {
        const store = withHealth(await openStore({ dir, clock, workers: 0, background: false }), () => undefined);
        return { ...store, stats: () => (reads++, store.stats()) };
      },
    });
    const before = reads;
    const res = await inject(h, 'GET', '/metrics');
    expect(res.text).toMatch(/^strata_head_points 0$/m);
    expect(reads - before).toBe(1);
  });

  it('exposes the damaged partition count, durability and write-ahead log damage as gauges', async () => {
    h = await harness(() => undefined);
    const res = await inject(h, 'GET', '/metrics');
    expect(res.text).toMatch(/^strata_store_damaged_partitions 0$/m);
    expect(res.text).toMatch(/^strata_store_durable 1$/m);
    expect(res.text).toMatch(/^strata_wal_corrupt_spans 0$/m);
    expect(res.text).toMatch(/^strata_wal_corrupt_bytes 0$/m);
    expect(res.text).toMatch(/^strata_wal_damaged_copies 0$/m);
  });
});
