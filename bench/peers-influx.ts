// Owns InfluxDB 1.x in the peer bench: its loopback-only config with temporary dirs, starting it, its count, plot and raw queries, settling.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BENCH_TENANT, metricName, type Workload } from '../src/workload/standard-workload.js';
import { allocatedBytes, apparentBytes } from './disk-usage.js';
import { benchClient, type BenchClient } from './http-client.js';
import { freePort, spawnServer, stopServer, waitReady, type ServerProcess } from './peers-process.js';
import { getJson, waitDiskStable, type RunningSystem } from './peers-system.js';

/** The database every point goes to. */
const DATABASE = 'bench';
/**
 * Settle: the config snapshots the cache after 10 s without writes and fully compacts after 30 s
 * (peer-results (b)), so du is final some seconds after that; wait at least this long after the
 * last ack, then until du is stable for SETTLE_STABLE_MS.
 */
const SETTLE_MIN_MS = 45_000;
const SETTLE_POLL_MS = 2_000;
const SETTLE_STABLE_MS = 10_000;
const SETTLE_MAX_MS = 180_000;

/**
 * The config: HTTP and the RPC (backup) service on 127.0.0.1 only, temporary meta/data/wal dirs,
 * no usage reporting, no _internal monitor database, cache snapshot and full compaction after 10 s
 * and 30 s without writes (defaults 10 min and 4 h) so the files are final within the settle.
 */
export function influxConfig(storeDir: string, httpPort: number, rpcPort: number): string {
  return [
    'reporting-disabled = true',
    `bind-address = "127.0.0.1:${rpcPort}"`,
    '[meta]',
    `  dir = "${join(storeDir, 'meta')}"`,
    '  logging-enabled = false',
    '[data]',
    `  dir = "${join(storeDir, 'data')}"`,
    `  wal-dir = "${join(storeDir, 'wal')}"`,
    '  query-log-enabled = false',
    '  cache-snapshot-write-cold-duration = "10s"',
    '  compact-full-write-cold-duration = "30s"',
    '[monitor]',
    '  store-enabled = false',
    '[http]',
    '  enabled = true',
    `  bind-address = "127.0.0.1:${httpPort}"`,
    '  log-enabled = false',
    '  suppress-write-log = true',
    '[logging]',
    '  level = "warn"',
    '  suppress-logo = true',
    '[continuous_queries]',
    '  enabled = false',
    '[subscriber]',
    '  enabled = false',
    '',
  ].join('\n');
}

interface InfluxAnswer {
  readonly results: readonly { readonly error?: string; readonly series?: readonly { readonly values: readonly (readonly (number | null)[])[] }[] }[];
}

/** Runs an InfluxQL query with times in ms and returns the series of its one statement. */
async function query(client: BenchClient, q: string): Promise<NonNullable<InfluxAnswer['results'][number]['series']>> {
  const answer = await getJson<InfluxAnswer>(client, `/query?db=${DATABASE}&epoch=ms&q=${encodeURIComponent(q)}`);
  const result = answer.results[0];
  if (result?.error !== undefined) throw new Error(`InfluxDB: ${result.error} (${q})`);
  return result?.series ?? [];
}

/** The WHERE clause of the bench tenant and a half-open range in ms. */
function where(fromMs: number, toMs: number): string {
  return `"tenant" = '${BENCH_TENANT}' AND time >= ${fromMs}ms AND time < ${toMs}ms`;
}

/** The measurement of series `s`, as strata replay --convert names it. */
function measurement(s: number): string {
  return `"${metricName(s)}"`;
}

async function countAll(client: BenchClient, wl: Workload): Promise<number> {
  const series = await query(client, `SELECT count("value") FROM /.*/ WHERE ${where(wl.t0Ms, wl.dataEndMs)}`);
  return series.reduce((sum, one) => sum + Number(one.values[0]?.[1] ?? 0), 0);
}

/** Starts influxd with a config of its own on free loopback ports, waits for /ping, creates the database. */
export async function startInflux(clients: number): Promise<RunningSystem> {
  const root = mkdtempSync(join(tmpdir(), 'strata-peers-influx-'));
  const storeDir = join(root, 'store');
  mkdirSync(storeDir);
  let server: ServerProcess | undefined;
  let client: BenchClient | undefined;
  try {
    const httpPort = await freePort();
    const rpcPort = await freePort();
    const config = influxConfig(storeDir, httpPort, rpcPort);
    const configPath = join(root, 'influxdb.conf');
    writeFileSync(configPath, config);
    server = spawnServer('influxd', ['run', '-config', configPath]);
    client = benchClient(`http://127.0.0.1:${httpPort}`, '', clients);
    const c = client;
    await waitReady(server, 'influxd', async () => (await c.get('/ping')).status === 204);
    const created = await client.post(`/query?q=${encodeURIComponent(`CREATE DATABASE ${DATABASE}`)}`, Buffer.alloc(0), 'application/x-www-form-urlencoded');
    if (created !== 200) throw new Error(`CREATE DATABASE: HTTP ${created}`);
    return influxSystem(server, client, root, storeDir, config);
  } catch (error) {
    client?.close();
    if (server !== undefined) await stopServer(server);
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
}

function influxSystem(server: ServerProcess, client: BenchClient, root: string, storeDir: string, config: string): RunningSystem {
  return {
    name: 'influx',
    pid: server.pid,
    dataDir: storeDir,
    client,
    command: server.command,
    config,
    ingestPath: `/write?db=${DATABASE}&precision=ms`,
    contentType: 'text/plain; charset=utf-8',
    ingestOkStatus: 204,
    readableOnAck: true,
    beforeCount: async () => {},
    countPoints: async (wl) => ({ counted: await countAll(client, wl), expected: wl.length, scope: 'every point: SELECT count(value) FROM /.*/' }),
    settle: (lastAckMs) => waitDiskStable(storeDir, { pollMs: SETTLE_POLL_MS, stableMs: SETTLE_STABLE_MS, minMs: SETTLE_MIN_MS, maxMs: SETTLE_MAX_MS, sinceMs: lastAckMs }),
    async plot(s, fromMs, toMs) {
      const series = await query(client, `SELECT mean("value"), min("value"), max("value") FROM ${measurement(s)} WHERE ${where(fromMs, toMs)} GROUP BY time(5m)`);
      return series[0]?.values.length ?? 0;
    },
    async rawPoints(s, fromMs, toMs) {
      const series = await query(client, `SELECT "value" FROM ${measurement(s)} WHERE ${where(fromMs, toMs)}`);
      return new Map((series[0]?.values ?? []).map((row) => [row[0] as number, row[1] as number]));
    },
    async finish() {
      const bytes = { dirAllocatedBytes: allocatedBytes(storeDir), dirApparentBytes: apparentBytes(storeDir) };
      const stopped = await stopServer(server);
      return { ...bytes, details: { stop: stopped } };
    },
    async dispose() {
      client.close();
      await stopServer(server);
      rmSync(root, { recursive: true, force: true });
    },
  };
}
