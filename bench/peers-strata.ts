// Owns Strata in the peer bench: the built `strata serve` on loopback with a temporary data dir, its first-run token, queries, settling and its bytes with and without rollup tiers.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openStore } from '../src/index.js';
import { BENCH_TENANT, metricName, type Workload } from '../src/workload/standard-workload.js';
import { allocatedBytes, apparentBytes } from './disk-usage.js';
import { benchClient, type BenchClient } from './http-client.js';
import { spawnServer, stopServer, waitReady, type ServerProcess } from './peers-process.js';
import { getJson, type PeerBytes, type RunningSystem, type SettleResult } from './peers-system.js';
import { measureStoreBytes } from './store-bytes.js';

/** The built CLI: dist/bench/peers-strata.js sits beside dist/src. */
const CLI = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'cli', 'main.js');
/** Series whose points the count after the clock adds up (every 50th: s0000, s0050, …). */
const COUNT_SAMPLE_SERIES = 20;
/** Settling: /metrics is read this often… */
const SETTLE_POLL_MS = 1_000;
/** …until the head has not shrunk and no rollup was waiting for this long (the store seals windows due after its 5 min grace, 2 s after their last write). */
const SETTLE_STABLE_MS = 3_000;
const SETTLE_MAX_MS = 120_000;

/** The two wire formats of the ingest API. */
export type StrataFormat = 'msgpack' | 'json';

const CONTENT_TYPES: Readonly<Record<StrataFormat, string>> = { msgpack: 'application/x-msgpack', json: 'application/json' };

/** The arguments of `strata serve` (the admin's tenant is the bench's, so its token writes there). */
export function strataArgs(dataDir: string): string[] {
  return [CLI, 'serve', '--data', dataDir, '--host', '127.0.0.1', '--port', '0', '--no-agent-endpoint', '--log-level', 'warn', '--admin-tenant', BENCH_TENANT];
}

/** The first-run credentials and URL `strata serve` prints on stdout. */
function firstRun(stdout: string): { url: string; username: string; apiKey: string } | undefined {
  const url = /listening on (http:\/\/\S+)/.exec(stdout)?.[1];
  const username = /^ {2}username: (\S+)$/m.exec(stdout)?.[1];
  const apiKey = /^ {2}apiKey: (\S+)$/m.exec(stdout)?.[1];
  return url === undefined || username === undefined || apiKey === undefined ? undefined : { url, username, apiKey };
}

async function token(url: string, username: string, apiKey: string): Promise<string> {
  const response = await fetch(`${url}/v2.0/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ auth: { 'RAX-KSKEY:apiKeyCredentials': { username, apiKey } } }),
  });
  if (response.status !== 200) throw new Error(`POST /v2.0/tokens: HTTP ${response.status} ${await response.text()}`);
  return ((await response.json()) as { access: { token: { id: string } } }).access.token.id;
}

/** Starts the built `strata serve` on a fresh temporary data dir, reads its admin's API key and gets a token. */
export async function startStrata(format: StrataFormat, clients: number): Promise<RunningSystem> {
  const dataDir = mkdtempSync(join(tmpdir(), 'strata-peers-strata-'));
  let server: ServerProcess | undefined;
  try {
    server = spawnServer(process.execPath, strataArgs(dataDir));
    const s = server;
    await waitReady(server, 'strata serve', async () => firstRun(s.stdout()) !== undefined);
    const credentials = firstRun(server.stdout()) as { url: string; username: string; apiKey: string };
    const client = benchClient(credentials.url, await token(credentials.url, credentials.username, credentials.apiKey), clients);
    return strataSystem(format, server, client, dataDir);
  } catch (error) {
    if (server !== undefined) await stopServer(server);
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}

interface PlotAnswer {
  readonly values: readonly { readonly timestamp: number; readonly numPoints: number; readonly average?: number | null }[];
}

function viewPath(s: number, fromMs: number, toMs: number, rest: string): string {
  return `/metrics/v2.0/${BENCH_TENANT}/views/${encodeURIComponent(metricName(s))}?from=${fromMs}&to=${toMs}&${rest}`;
}

async function countSample(client: BenchClient, wl: Workload): Promise<number> {
  let counted = 0;
  const step = Math.floor(wl.spec.series / COUNT_SAMPLE_SERIES);
  for (let i = 0; i < COUNT_SAMPLE_SERIES; i++) {
    const answer = await getJson<PlotAnswer>(client, viewPath(i * step, wl.t0Ms, wl.dataEndMs, 'resolution=MIN5'));
    counted += answer.values.reduce((sum, v) => sum + v.numPoints, 0);
  }
  return counted;
}

/** Reads a gauge of the /metrics exposition text (NaN when absent). */
function gauge(text: string, name: string): number {
  const match = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  return match?.[1] === undefined ? NaN : Number(match[1]);
}

/** Waits until the running server has sealed the windows that are due and rolled them up (head stable, no rollup waiting). */
async function settle(client: BenchClient, lastAckMs: number): Promise<SettleResult> {
  let head = NaN;
  let stableSinceMs = performance.now();
  for (;;) {
    const { text } = await client.get('/metrics');
    const now = performance.now();
    const nextHead = gauge(text, 'strata_head_points');
    const busy = gauge(text, 'strata_rollup_queue_depth') > 0 || gauge(text, 'strata_rollup_lag_seconds') > 0;
    if (nextHead !== head || busy) stableSinceMs = now;
    head = nextHead;
    if (now - stableSinceMs >= SETTLE_STABLE_MS) return { seconds: (now - lastAckMs) / 1000, note: `head ${head} points (windows not yet due), no rollup waiting, for ${SETTLE_STABLE_MS / 1000} s` };
    if (now - lastAckMs >= SETTLE_MAX_MS) return { seconds: (now - lastAckMs) / 1000, note: `still sealing or rolling up after ${SETTLE_MAX_MS / 1000} s (head ${head})` };
    await new Promise((resolve) => setTimeout(resolve, SETTLE_POLL_MS));
  }
}

/**
 * Stops the server with SIGTERM (it drains requests and closes the store: sealed windows and the
 * WAL are durable, windows within their grace stay in the WAL), measures that, then opens the
 * directory in this process and seals and rolls up everything (what the server does once the last
 * window's grace has passed), closes it and measures again: the figures the table reports.
 */
async function stopAndSeal(server: ServerProcess, dataDir: string): Promise<PeerBytes> {
  const stopped = await stopServer(server);
  const asLeft = { dirAllocatedBytes: allocatedBytes(dataDir), walAllocatedBytes: allocatedBytes(join(dataDir, 'wal')) };
  const started = performance.now();
  const store = await openStore({ dir: dataDir, background: false });
  try {
    await store.flush();
  } finally {
    await store.close();
  }
  const sealSeconds = (performance.now() - started) / 1000;
  const bytes = measureStoreBytes(dataDir);
  return {
    dirAllocatedBytes: bytes.dirAllocatedBytes,
    dirApparentBytes: apparentBytes(dataDir),
    fullAllocatedBytes: bytes.fullAllocatedBytes,
    details: { stop: stopped, afterSigterm: asLeft, offlineSealSeconds: sealSeconds, store: bytes },
  };
}

function strataSystem(format: StrataFormat, server: ServerProcess, client: BenchClient, dataDir: string): RunningSystem {
  return {
    name: format === 'msgpack' ? 'strata-msgpack' : 'strata-json',
    pid: server.pid,
    dataDir,
    client,
    command: server.command,
    ingestPath: `/ingest/v2.0/${BENCH_TENANT}/ingest`,
    contentType: CONTENT_TYPES[format],
    ingestOkStatus: 200,
    readableOnAck: true,
    beforeCount: async () => {},
    countPoints: async (wl) => ({
      counted: await countSample(client, wl),
      expected: COUNT_SAMPLE_SERIES * wl.spec.points,
      scope: `${COUNT_SAMPLE_SERIES} series (every ${Math.floor(wl.spec.series / COUNT_SAMPLE_SERIES)}th): sum of numPoints at MIN5 over the data`,
    }),
    settle: (lastAckMs) => settle(client, lastAckMs),
    async plot(s, fromMs, toMs) {
      return (await getJson<PlotAnswer>(client, viewPath(s, fromMs, toMs, 'resolution=MIN5&select=average,min,max'))).values.length;
    },
    async rawPoints(s, fromMs, toMs) {
      const answer = await getJson<PlotAnswer>(client, viewPath(s, fromMs, toMs, 'resolution=FULL'));
      return new Map(answer.values.map((v) => [v.timestamp, v.average as number]));
    },
    async finish() {
      client.close();
      return stopAndSeal(server, dataDir);
    },
    async dispose() {
      client.close();
      await stopServer(server);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
