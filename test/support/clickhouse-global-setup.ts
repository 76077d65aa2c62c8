// Owns the one ClickHouse cluster of a test run: a vitest globalSetup that starts two shards in a fresh temp dir and provides their URLs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startClickHouseCluster } from './clickhouse-cluster.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's 2-shard ClickHouse cluster: each shard's HTTP URL (shard 0 first) and the cluster name (`strata2`). */
    clickhouse: { urls: string[]; cluster: string };
  }
}

/**
 * Starts the run's 2-shard cluster (Debian's clickhouse-server, installed when missing) under a fresh temp dir,
 * provides it as `inject('clickhouse')`, and returns the teardown that stops both servers and removes the dir.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = mkdtempSync(join(tmpdir(), 'strata-clickhouse-'));
  let cluster;
  try {
    cluster = await startClickHouseCluster({ dir, shards: 2 });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  project.provide('clickhouse', { urls: [...cluster.urls], cluster: cluster.cluster });
  return async () => {
    try {
      await cluster.stop();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}
