// Owns the proof that the tests' ClickHouse cluster works: shards, clusters, Distributed spread, a shard down and back, loopback only, clean stop.
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { clickhouseStatement, startClickHouseCluster, type ClickHouseCluster } from './clickhouse-cluster.js';

const DB = 'h1_cluster_test';

function pidOf(cluster: ClickHouseCluster, index: number): number {
  return Number(readFileSync(join(cluster.dir, `s${index + 1}`, 'pid'), 'utf8').trim());
}

/** True while `pid` is a running process (a zombie waiting to be reaped counts as gone). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}

/** Every TCP socket that `pid` listens on, as [hex address, port] from /proc/net/tcp and tcp6. */
function listeningSockets(pid: number): { family: 'tcp' | 'tcp6'; address: string; port: number }[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    const link = (() => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        return '';
      }
    })();
    const match = /^socket:\[(\d+)\]$/.exec(link);
    if (match?.[1] !== undefined) inodes.add(match[1]);
  }
  const found: { family: 'tcp' | 'tcp6'; address: string; port: number }[] = [];
  for (const family of ['tcp', 'tcp6'] as const) {
    for (const line of readFileSync(`/proc/net/${family}`, 'latin1').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const [local, , state] = [fields[1], fields[2], fields[3]];
      if (state !== '0A' || local === undefined || !inodes.has(fields[9] ?? '')) continue;
      const [address = '', port = ''] = local.split(':');
      found.push({ family, address, port: parseInt(port, 16) });
    }
  }
  return found;
}

const count = async (url: string, table: string): Promise<number> => Number((await clickhouseStatement(url, `SELECT count() FROM ${DB}.${table}`)).trim());

describe('a 2-shard test cluster of its own', () => {
  let dir = '';
  let cluster: ClickHouseCluster;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'strata-ch-cluster-test-'));
    cluster = await startClickHouseCluster({ dir, shards: 2 });
  });

  afterAll(async () => {
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('both shards answer on their own loopback URL, on ClickHouse 18.16 in UTC', async () => {
    expect(cluster.cluster).toBe('strata2');
    expect(cluster.urls).toHaveLength(2);
    expect(new Set(cluster.urls).size).toBe(2);
    for (const url of cluster.urls) {
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      // The server's time zone is UTC (18.16 names it by an alias such as Etc/UTC): epoch second 86400 prints as midnight.
      expect(await clickhouseStatement(url, 'SELECT version(), toString(toDateTime(86400))')).toBe('18.16.1\t1970-01-02 00:00:00\n');
    }
  });

  test('both servers carry strata1 (shard 1) and strata2 (both shards) on the shards native ports', async () => {
    const rows = await Promise.all(
      cluster.urls.map((url) =>
        clickhouseStatement(url, "SELECT cluster, shard_num, host_address FROM system.clusters WHERE cluster LIKE 'strata%' ORDER BY cluster, shard_num"),
      ),
    );
    for (const text of rows) expect(text).toBe('strata1\t1\t127.0.0.1\nstrata2\t1\t127.0.0.1\nstrata2\t2\t127.0.0.1\n');
    const ports = await clickhouseStatement(cluster.urls[0] as string, "SELECT port FROM system.clusters WHERE cluster = 'strata2' ORDER BY shard_num");
    const [p1, p2] = ports.trim().split('\n').map(Number);
    expect(listeningSockets(pidOf(cluster, 0)).map((s) => s.port)).toContain(p1);
    expect(listeningSockets(pidOf(cluster, 1)).map((s) => s.port)).toContain(p2);
  });

  test('a Distributed table over a local MergeTree on both shards spreads 1000 rows by key', async () => {
    for (const url of cluster.urls) {
      await clickhouseStatement(url, `CREATE DATABASE IF NOT EXISTS ${DB}`);
      await clickhouseStatement(url, `CREATE TABLE ${DB}.t_local (k UInt64, v String) ENGINE = MergeTree ORDER BY k`);
      await clickhouseStatement(url, `CREATE TABLE ${DB}.t AS ${DB}.t_local ENGINE = Distributed(strata2, ${DB}, t_local, k)`);
    }
    const entry = cluster.urls[0] as string;
    await clickhouseStatement(`${entry}/?insert_distributed_sync=1`, `INSERT INTO ${DB}.t SELECT number, toString(number) FROM numbers(1000)`);
    // k % 2 picks the shard: even keys on shard 1 (urls[0]), odd keys on shard 2 (urls[1]).
    expect(await count(cluster.urls[0] as string, 't_local')).toBe(500);
    expect(await count(cluster.urls[1] as string, 't_local')).toBe(500);
    expect(await clickhouseStatement(cluster.urls[1] as string, `SELECT countIf(k % 2 = 1) FROM ${DB}.t_local`)).toBe('500\n');
    for (const url of cluster.urls) expect(await count(url, 't')).toBe(1000);
  });

  test('a stopped shard makes a Distributed SELECT fail, and a restarted one answers again on the same URL', async () => {
    const entry = cluster.urls[0] as string;
    const pid = pidOf(cluster, 1);
    await cluster.stopShard(1);
    expect(alive(pid)).toBe(false);
    const failure = await count(entry, 't').then(
      () => 'answered',
      (error: Error) => error.message,
    );
    // 18.16 names the refused connection to the stopped shard's native port ("Code: 279 ... All connection tries failed").
    expect(failure).toMatch(/answered 500: Code: (279|210)\b/);
    expect(failure).toMatch(/Connection refused/);
    console.log(`a Distributed SELECT with shard 2 down: ${failure}`);
    await expect(clickhouseStatement(cluster.urls[1] as string, 'SELECT 1')).rejects.toThrow();
    await cluster.stopShard(1); // stopping a stopped shard is a no-op
    await cluster.startShard(1);
    expect(pidOf(cluster, 1)).not.toBe(pid);
    expect(await count(entry, 't')).toBe(1000);
    expect(await count(cluster.urls[1] as string, 't_local')).toBe(500);
  });

  test('every server listens on 127.0.0.1 only, on its HTTP and native ports, and keeps its files private', () => {
    cluster.urls.forEach((url, index) => {
      const sockets = listeningSockets(pidOf(cluster, index));
      expect(sockets).toHaveLength(2);
      expect(sockets.every((s) => s.family === 'tcp' && s.address === '0100007F')).toBe(true);
      expect(sockets.map((s) => s.port)).toContain(Number(new URL(url).port));
      for (const sub of ['', 'data', 'etc', 'log']) expect(statSync(join(cluster.dir, `s${index + 1}`, sub)).mode & 0o777).toBe(0o700);
    });
  });

  test('stop() ends every server it started and leaves no process behind', async () => {
    const pids = cluster.urls.map((_, index) => pidOf(cluster, index));
    expect(pids.every(alive)).toBe(true);
    await cluster.stop();
    expect(pids.filter(alive)).toEqual([]);
    for (const url of cluster.urls) await expect(clickhouseStatement(url, 'SELECT 1')).rejects.toThrow();
  });
});

describe('a 1-shard test cluster', () => {
  test('carries only strata1 and knows no second shard', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'strata-ch-cluster-test-'));
    const cluster = await startClickHouseCluster({ dir, shards: 1 });
    try {
      expect(cluster.cluster).toBe('strata1');
      expect(cluster.urls).toHaveLength(1);
      const text = await clickhouseStatement(cluster.urls[0] as string, "SELECT cluster, shard_num FROM system.clusters WHERE cluster LIKE 'strata%'");
      expect(text).toBe('strata1\t1\n');
      await expect(cluster.stopShard(1)).rejects.toThrow(RangeError);
    } finally {
      await cluster.stop();
      rmSync(dir, { recursive: true, force: true });
    }
    expect(existsSync(dir)).toBe(false);
  });
});

describe('the run-wide cluster of the global setup', () => {
  test("inject('clickhouse') reaches a 2-shard strata2 cluster", async () => {
    const { urls, cluster } = inject('clickhouse');
    expect(cluster).toBe('strata2');
    expect(urls).toHaveLength(2);
    for (const url of urls) expect(await clickhouseStatement(url, 'SELECT 1')).toBe('1\n');
    const shards = await clickhouseStatement(urls[0] as string, "SELECT count() FROM system.clusters WHERE cluster = 'strata2'");
    expect(shards).toBe('2\n');
    await expect(clickhouseStatement(urls[0] as string, 'SELECT no_such_column')).rejects.toThrow(/answered 404: Code: 47/);
  });
});
