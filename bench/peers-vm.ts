// Owns VictoriaMetrics in the peer bench: starting it on loopback with a temporary data dir, its count, plot and export queries, force_flush settling.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BENCH_TENANT, metricName, type Workload } from '../src/workload/standard-workload.js';
import { allocatedBytes, apparentBytes } from './disk-usage.js';
import { benchClient, type BenchClient } from './http-client.js';
import { freePort, spawnServer, stopServer, waitReady, type ServerProcess } from './peers-process.js';
import { getJson, waitDiskStable, type RunningSystem } from './peers-system.js';

/** Settle rule of the reference harness: force_flush every 2 s until du is stable for 10 s. */
const SETTLE_POLL_MS = 2_000;
const SETTLE_STABLE_MS = 10_000;
/** Longest settle before the bench moves on (and says so). */
const SETTLE_MAX_MS = 180_000;
/** The count window reaches well past the 24 h of data. */
const COUNT_WINDOW = '2d';
/** The plot's bucket: 5 minutes, as a PromQL duration and in ms. */
const BUCKET = '5m';
const BUCKET_MS = 300_000;

/** VictoriaMetrics takes times in seconds; fractional seconds keep the millisecond. */
function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

/** The series selector of series `s`, as strata replay --convert names it (metric as __name__, tenant as a label). */
function selector(s: number): string {
  return `{__name__=${JSON.stringify(metricName(s))},tenant=${JSON.stringify(BENCH_TENANT)}}`;
}

/** The flags the bench starts VictoriaMetrics with (loopback only, own data dir, errors only in its log). */
export function vmArgs(port: number, dataDir: string): string[] {
  return ['-httpListenAddr', `127.0.0.1:${port}`, '-storageDataPath', dataDir, '-loggerLevel', 'ERROR'];
}

interface VmVector {
  readonly data: { readonly result: readonly { readonly value: readonly [number, string] }[] };
}

interface VmMatrix {
  readonly data: { readonly result: readonly { readonly values: readonly (readonly [number, string])[] }[] };
}

async function countAll(client: BenchClient, wl: Workload): Promise<number> {
  // nocache=1: a count taken before every row is searchable must not be served again from the cache.
  const query = `sum(count_over_time({tenant=${JSON.stringify(BENCH_TENANT)}}[${COUNT_WINDOW}]))`;
  const answer = await getJson<VmVector>(client, `/api/v1/query?query=${encodeURIComponent(query)}&time=${seconds(wl.dataEndMs)}&nocache=1`);
  const value = answer.data.result[0]?.value[1];
  return value === undefined ? 0 : Number(value);
}

/**
 * One request for mean, min and max per 5 minutes: MetricsQL's rollup() returns the three as
 * series labelled rollup="avg|min|max". A point at t covers (t - 5m, t]; `offset 1ms` makes it
 * [t - 5m, t), the same half-open buckets as Strata's, labelled by their end.
 */
async function plot(client: BenchClient, s: number, fromMs: number, toMs: number): Promise<number> {
  const query = `rollup(${selector(s)}[${BUCKET}] offset 1ms)`;
  const path = `/api/v1/query_range?query=${encodeURIComponent(query)}&start=${seconds(fromMs + BUCKET_MS)}&end=${seconds(toMs)}&step=${BUCKET_MS / 1000}`;
  const answer = await getJson<VmMatrix>(client, path);
  if (answer.data.result.length !== 3) throw new Error(`VictoriaMetrics rollup() returned ${answer.data.result.length} series, not avg/min/max`);
  return answer.data.result[0]?.values.length ?? 0;
}

async function exportRaw(client: BenchClient, s: number, fromMs: number, toMs: number): Promise<Map<number, number>> {
  // export's end is inclusive: stop 1 ms before the half-open range's end.
  const path = `/api/v1/export?match[]=${encodeURIComponent(selector(s))}&start=${seconds(fromMs)}&end=${seconds(toMs - 1)}`;
  const { status, text } = await client.get(path);
  if (status !== 200) throw new Error(`GET ${path}: HTTP ${status} ${text.slice(0, 500)}`);
  const points = new Map<number, number>();
  // One JSON line per block of the series; a series may span several lines.
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const block = JSON.parse(line) as { values: number[]; timestamps: number[] };
    block.timestamps.forEach((t, i) => points.set(t, block.values[i] as number));
  }
  return points;
}

/** Starts VictoriaMetrics on a free loopback port with a fresh temporary data directory and waits for /health. */
export async function startVm(clients: number): Promise<RunningSystem> {
  const dataDir = mkdtempSync(join(tmpdir(), 'strata-peers-vm-'));
  let server: ServerProcess | undefined;
  let client: BenchClient | undefined;
  try {
    const port = await freePort();
    server = spawnServer('victoria-metrics', vmArgs(port, dataDir));
    client = benchClient(`http://127.0.0.1:${port}`, '', clients);
    const c = client;
    await waitReady(server, 'victoria-metrics', async () => (await c.get('/health')).status === 200);
    return vmSystem(server, client, dataDir);
  } catch (error) {
    client?.close();
    if (server !== undefined) await stopServer(server);
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}

function vmSystem(server: ServerProcess, client: BenchClient, dataDir: string): RunningSystem {
  const flush = async (): Promise<void> => {
    const { status } = await client.get('/internal/force_flush');
    if (status !== 200) throw new Error(`force_flush: HTTP ${status}`);
  };
  return {
    name: 'vm',
    pid: server.pid,
    dataDir,
    client,
    command: server.command,
    ingestPath: '/api/v1/import',
    contentType: 'application/json',
    ingestOkStatus: 204,
    readableOnAck: false,
    beforeCount: flush,
    countPoints: async (wl) => ({ counted: await countAll(client, wl), expected: wl.length, scope: 'every point: sum(count_over_time) with nocache=1' }),
    settle: (lastAckMs) => waitDiskStable(dataDir, { pollMs: SETTLE_POLL_MS, stableMs: SETTLE_STABLE_MS, minMs: 0, maxMs: SETTLE_MAX_MS, sinceMs: lastAckMs, tick: flush }),
    plot: (s, fromMs, toMs) => plot(client, s, fromMs, toMs),
    rawPoints: (s, fromMs, toMs) => exportRaw(client, s, fromMs, toMs),
    async finish() {
      const bytes = { dirAllocatedBytes: allocatedBytes(dataDir), dirApparentBytes: apparentBytes(dataDir) };
      const stopped = await stopServer(server);
      return { ...bytes, details: { stop: stopped } };
    },
    async dispose() {
      client.close();
      await stopServer(server);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
