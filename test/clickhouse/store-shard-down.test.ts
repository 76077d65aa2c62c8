// Tests the ClickHouse store with a shard down: writes, reads and listings that need it fail with STORE_SHARD_UNAVAILABLE naming it, nothing is acknowledged, and all works once it is back.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriesIdOf } from '../../src/clickhouse/series-id.js';
import { ManualClock } from '../../src/core/clock.js';
import { StrataError } from '../../src/core/errors.js';
import { HOUR_MS, MINUTE_MS } from '../../src/core/time.js';
import type { Point } from '../../src/model/sample.js';
import { openStore } from '../../src/store.js';
import type { Store } from '../../src/store-types.js';
import { T_NOON } from '../store-harness.js';
import { clickhouseStatement, startClickHouseCluster, type ClickHouseCluster } from '../support/clickhouse-cluster.js';

const TENANT = 'acme';
/** The shard this test stops (0-based): the cluster's second. */
const DOWN = 1;
const START = T_NOON - HOUR_MS;
/** This test's own cluster holds only this database. */
const DATABASE = 'strata_shard_down';

/** The first metric name `<prefix><n>` whose series lands on `shard` of two (series id modulo 2). */
function metricOnShard(prefix: string, shard: number): string {
  for (let n = 0; ; n++) {
    const metric = `${prefix}${n}`;
    if (seriesIdOf(TENANT, metric) % 2n === BigInt(shard)) return metric;
  }
}

const ON_UP = metricOnShard('up.', 1 - DOWN);
const ON_DOWN = metricOnShard('down.', DOWN);

function point(metric: string, offsetMin: number, value: number): Point {
  return { tenant: TENANT, metric, timestamp: START + offsetMin * MINUTE_MS, value };
}

/** A batch with a series on each shard, refused while one is down and written again once it is back. */
const MIXED_BATCH: readonly Point[] = [point(ON_UP, 2, 2), point(ON_DOWN, 2, 12)];

async function expectShardUnavailable(promise: Promise<unknown>, shardUrl: string): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StrataError);
  expect((error as StrataError).code).toBe('STORE_SHARD_UNAVAILABLE');
  // Soft: every operation of the test is checked even when one names another shard.
  expect.soft((error as StrataError).details.shard, (error as StrataError).message).toBe(shardUrl);
}

let dir: string;
let cluster: ClickHouseCluster | undefined;
let store: Store | undefined;
const clock = new ManualClock(T_NOON);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'strata-shard-down-'));
  cluster = await startClickHouseCluster({ dir, shards: 2 });
  store = await openStore({
    backend: { kind: 'clickhouse', urls: cluster.urls, cluster: cluster.cluster, database: DATABASE },
    clock,
    background: false,
    workers: 0,
  });
}, 120_000);

afterAll(async () => {
  try {
    await store?.close();
  } finally {
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);

function the(): { store: Store; cluster: ClickHouseCluster } {
  if (store === undefined || cluster === undefined) throw new Error('the cluster did not start');
  return { store, cluster };
}

const fullOf = (metric: string) => ({ tenant: TENANT, metric, from: START, to: T_NOON, resolution: 'FULL' });

describe('the ClickHouse store with a shard down', () => {
  it('picks test series on each shard', () => {
    expect(seriesIdOf(TENANT, ON_UP) % 2n).toBe(BigInt(1 - DOWN));
    expect(seriesIdOf(TENANT, ON_DOWN) % 2n).toBe(BigInt(DOWN));
  });

  it('refuses writes, reads and listings that need the stopped shard with STORE_SHARD_UNAVAILABLE naming it, and acknowledges nothing', async () => {
    const { store: s, cluster: c } = the();
    expect(await s.write([point(ON_UP, 0, 1), point(ON_DOWN, 0, 10)])).toEqual({ accepted: 2, rejected: [] });
    expect((await s.query(fullOf(ON_DOWN))).values).toEqual([{ timestamp: START, numPoints: 1, average: 10 }]);
    const downUrl = c.urls[DOWN] as string;
    await c.stopShard(DOWN);
    try {
      const before = s.stats().pointsAccepted;
      // A series of the stopped shard alone, then a batch with a series of each shard.
      await expectShardUnavailable(s.write([point(ON_DOWN, 1, 11)]), downUrl);
      await expectShardUnavailable(s.write(MIXED_BATCH), downUrl);
      expect(s.stats().pointsAccepted).toBe(before);
      await expectShardUnavailable(s.query(fullOf(ON_DOWN)), downUrl);
      await expectShardUnavailable(s.listMetrics(TENANT), downUrl);
    } finally {
      await c.startShard(DOWN);
    }
  });

  it('works again once the shard is back: a refused write is not present, and a refused batch written again is there once', async () => {
    const { store: s } = the();
    expect((await s.query(fullOf(ON_DOWN))).values).toEqual([{ timestamp: START, numPoints: 1, average: 10 }]);
    expect(await s.listMetrics(TENANT)).toEqual({ metrics: [ON_DOWN, ON_UP].sort().map((name) => ({ name, unit: null })), nextAfter: null });
    // The refused batch may have reached the shard that was up (documented): the client's retry rewrites the same points.
    expect(await s.write(MIXED_BATCH)).toEqual({ accepted: 2, rejected: [] });
    expect(await s.write([point(ON_DOWN, 3, 13), point(ON_UP, 3, 3)])).toEqual({ accepted: 2, rejected: [] });
    expect((await s.query(fullOf(ON_DOWN))).values).toEqual([
      { timestamp: START, numPoints: 1, average: 10 },
      { timestamp: START + 2 * MINUTE_MS, numPoints: 1, average: 12 },
      { timestamp: START + 3 * MINUTE_MS, numPoints: 1, average: 13 },
    ]);
    expect((await s.query(fullOf(ON_UP))).values).toEqual([
      { timestamp: START, numPoints: 1, average: 1 },
      { timestamp: START + 2 * MINUTE_MS, numPoints: 1, average: 2 },
      { timestamp: START + 3 * MINUTE_MS, numPoints: 1, average: 3 },
    ]);
    // Each series' points are on its shard (series id modulo 2) and only there.
    const { cluster: c } = the();
    const count = async (url: string, metric: string): Promise<number> =>
      Number((await clickhouseStatement(url, `SELECT count() FROM ${DATABASE}.points_local FINAL WHERE series = ${seriesIdOf(TENANT, metric)} FORMAT TabSeparated`)).trim());
    expect(await Promise.all(c.urls.map((url) => count(url, ON_DOWN)))).toEqual(DOWN === 1 ? [0, 3] : [3, 0]);
    expect(await Promise.all(c.urls.map((url) => count(url, ON_UP)))).toEqual(DOWN === 1 ? [3, 0] : [0, 3]);
    await s.flush();
    const min5 = await s.query({ ...fullOf(ON_DOWN), resolution: 'MIN5', select: ['average', 'min', 'max'] });
    expect(min5.values).toEqual([{ timestamp: START, numPoints: 3, average: 35 / 3, min: 10, max: 13 }]);
  });
});
