// Owns the tests' stores: one on either backend (SQLite in a temporary directory, or a fresh database on the test ClickHouse cluster), with a manual clock, and their cleanup.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { ManualClock } from '../src/core/clock.js';
import { DAY_MS, HOUR_MS } from '../src/core/time.js';
import { DEFAULT_RETENTION_MS, LAYOUT, type Resolution } from '../src/model/resolution.js';
import { openStore } from '../src/store.js';
import type { Store, StoreOptions } from '../src/store-types.js';
import type { BackendName } from './store-backends.js';
import { clickhouseStatement } from './support/clickhouse-cluster.js';

/** A fixed start time: 2026-11-22T12:00:00Z, on every bucket boundary up to a day. */
export const T_NOON = Date.UTC(2026, 10, 22, 12);

/** The ClickHouse store partitions raw points by UTC day. */
const CLICKHOUSE_RAW_PARTITION_WIDTH_MS = DAY_MS;
/** How far past the moment a raw partition is wholly expired rawPartitionExpiredMs goes: past any grace a store waits. */
const EXPIRY_MARGIN_MS = HOUR_MS;

/** The local table of each resolution on every ClickHouse shard. */
const CLICKHOUSE_LOCAL_TABLES: Readonly<Record<Resolution, string>> = {
  FULL: 'points_local',
  MIN5: 'rollup_min5_local',
  MIN20: 'rollup_min20_local',
  MIN60: 'rollup_min60_local',
  MIN240: 'rollup_min240_local',
  MIN1440: 'rollup_min1440_local',
};

/** A store for one test, with a manual clock and no background timer. */
export interface TestStore {
  readonly store: Store;
  readonly clock: ManualClock;
  readonly backend: BackendName;
  /**
   * SQLite: the store's data directory. ClickHouse: an empty scratch directory the store never
   * uses (the backend keeps no files), removed by cleanup() like the SQLite one; tests about files are SQLite-only.
   */
  readonly dir: string;
  /** Width of one raw (FULL) partition: retention drops raw points a whole partition at a time (SQLite 6 h, ClickHouse 1 day). */
  readonly rawPartitionWidthMs: number;
  /** Partitions the store holds now at `res`: SQLite's partition files, ClickHouse's active partitions summed over every shard. */
  partitionCount(res: Resolution): Promise<number>;
  /** Closes the store and opens it again on the same data (directory or database), with `options` on top. */
  reopen(options?: Partial<StoreOptions>): Promise<Store>;
  /** Closes the store and deletes its data (the directory, or the database on every shard). */
  cleanup(): Promise<void>;
}

/** The test cluster that test/support/clickhouse-global-setup.ts provides for the run. */
function providedCluster(): { readonly urls: readonly string[]; readonly cluster: string } {
  const provided = inject('clickhouse');
  if (provided === undefined) throw new Error('no ClickHouse cluster was provided: run the tests through vitest.config.ts (its globalSetup starts one)');
  return provided;
}

/** The SQLite store's `.sqlite` partition files of `res`. */
function sqlitePartitionCount(dir: string, res: Resolution): number {
  const path = join(dir, 'partitions', res);
  return existsSync(path) ? readdirSync(path).filter((f) => f.endsWith('.sqlite')).length : 0;
}

/** Distinct active partitions of the resolution's local table in `database`, summed over every shard. */
async function clickhousePartitionCount(urls: readonly string[], database: string, res: Resolution): Promise<number> {
  const sql = `SELECT count(DISTINCT partition) FROM system.parts WHERE active AND database = '${database}' AND table = '${CLICKHOUSE_LOCAL_TABLES[res]}' FORMAT TabSeparated`;
  const counts = await Promise.all(urls.map(async (url) => Number((await clickhouseStatement(url, sql)).trim())));
  return counts.reduce((a, b) => a + b, 0);
}

/**
 * Opens a store for a test on `backend`; call cleanup() in afterEach. A ClickHouse store gets a fresh
 * database `strata_test_<16 hex>` on the cluster the global setup started.
 */
export async function openTestStore(options: Partial<StoreOptions> = {}, startMs = T_NOON, backend: BackendName = 'sqlite'): Promise<TestStore> {
  // Before any directory exists: a run without a cluster leaves nothing behind.
  const provided = backend === 'clickhouse' ? providedCluster() : undefined;
  const dir = mkdtempSync(join(tmpdir(), 'strata-test-'));
  const clock = new ManualClock(startMs);
  let base: StoreOptions;
  let partitionCount: (res: Resolution) => Promise<number>;
  let dropData: () => Promise<void>;
  if (provided === undefined) {
    base = { dir, clock, background: false, workers: 0, ...options };
    partitionCount = async (res) => sqlitePartitionCount(dir, res);
    dropData = async () => undefined;
  } else {
    const { urls, cluster } = provided;
    const database = `strata_test_${randomBytes(8).toString('hex')}`;
    base = { backend: { kind: 'clickhouse', urls, cluster, database }, clock, background: false, workers: 0, ...options };
    partitionCount = async (res) => clickhousePartitionCount(urls, database, res);
    dropData = async () => void (await Promise.all(urls.map((url) => clickhouseStatement(url, `DROP DATABASE IF EXISTS ${database}`))));
  }
  let store: Store;
  try {
    store = await openStore(base);
  } catch (error) {
    // The open's own error is the one to see; a database it may have created goes too.
    await dropData().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    get store() {
      return store;
    },
    clock,
    backend,
    dir,
    rawPartitionWidthMs: backend === 'sqlite' ? LAYOUT.FULL.partitionWidthMs : CLICKHOUSE_RAW_PARTITION_WIDTH_MS,
    partitionCount,
    async reopen(more = {}) {
      await store.close();
      store = await openStore({ ...base, ...more });
      return store;
    },
    async cleanup() {
      try {
        await store.close();
      } finally {
        try {
          await dropData();
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }
    },
  };
}

/**
 * A time at which the raw partition holding `timestampMs` is wholly expired under `retentionFullMs`
 * (its end is older than the retention), plus a margin past any grace: a flush then drops it.
 */
export function rawPartitionExpiredMs(t: TestStore, timestampMs: number, retentionFullMs = DEFAULT_RETENTION_MS.FULL): number {
  const end = (Math.floor(timestampMs / t.rawPartitionWidthMs) + 1) * t.rawPartitionWidthMs;
  return end + retentionFullMs + EXPIRY_MARGIN_MS;
}
