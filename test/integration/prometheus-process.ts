// Owns running Debian's `prometheus` binary as a child process for the end-to-end tests: its config, port, storage and stop.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** How long a Prometheus may take to answer `/-/ready` after it was spawned. */
export const PROMETHEUS_READY_TIMEOUT_MS = 30_000;
/** How long a Prometheus may take to exit after SIGTERM before it gets SIGKILL. */
export const PROMETHEUS_STOP_GRACE_MS = 15_000;
/** Pause between two readiness probes. */
const READY_POLL_MS = 100;
/** Attempts at a free port: another process may take the port between our probe and Prometheus' bind. */
const PORT_ATTEMPTS_MAX = 3;

/** A port that was free a moment ago on 127.0.0.1 (listen on 0, read the port, close). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** A running Prometheus with its own temporary directory (config and TSDB storage). */
export interface PrometheusProcess {
  readonly child: ChildProcess;
  /** `http://127.0.0.1:PORT`, its HTTP API. */
  readonly url: string;
  /** Everything it logged (Prometheus logs to stderr) so far. */
  log(): string;
  /** SIGTERM to its own PID, SIGKILL after PROMETHEUS_STOP_GRACE_MS, then removes its directory. */
  stop(): Promise<void>;
}

function exitOf(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

async function stopChild(child: ChildProcess): Promise<void> {
  const exited = exitOf(child);
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), PROMETHEUS_STOP_GRACE_MS)));
  const outcome = await Promise.race([exited.then(() => 'exited' as const), late]);
  clearTimeout(timer);
  if (outcome === 'late') {
    child.kill('SIGKILL');
    await exited;
  }
}

async function waitReady(url: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + PROMETHEUS_READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`prometheus exited (${child.exitCode ?? child.signalCode}):\n${log()}`);
    const ready = await fetch(`${url}/-/ready`).then((r) => r.status === 200, () => false);
    if (ready) return;
    await new Promise((resolve) => setTimeout(resolve, READY_POLL_MS));
  }
  throw new Error(`prometheus was not ready within ${PROMETHEUS_READY_TIMEOUT_MS} ms:\n${log()}`);
}

async function spawnOnce(dir: string): Promise<PrometheusProcess> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(
    'prometheus',
    [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=info'],
    { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let logText = '';
  child.stderr?.on('data', (chunk: Buffer) => (logText += chunk.toString()));
  const log = (): string => logText;
  try {
    await waitReady(url, child, log);
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  return { child, url, log, stop: async () => stopChild(child).then(() => rmSync(dir, { recursive: true, force: true })) };
}

/**
 * Writes `config` as prometheus.yml into a fresh temporary directory and starts Prometheus on it
 * (storage in that directory, HTTP API on a free loopback port); resolves once `/-/ready` answers.
 */
export async function startPrometheus(name: string, config: string): Promise<PrometheusProcess> {
  const dir = mkdtempSync(join(tmpdir(), `strata-prom-${name}-`));
  writeFileSync(join(dir, 'prometheus.yml'), config);
  for (let attempt = 1; ; attempt++) {
    try {
      return await spawnOnce(dir);
    } catch (error) {
      const portTaken = error instanceof Error && /address already in use/.test(error.message);
      if (!portTaken || attempt >= PORT_ATTEMPTS_MAX) {
        rmSync(dir, { recursive: true, force: true });
        throw error;
      }
    }
  }
}

/** One series of a PromQL answer: its labels and its [seconds, "value"] pairs (matrix) or single pair (vector). */
export interface PromSeries {
  readonly metric: Record<string, string>;
  readonly values?: readonly (readonly [number, string])[];
  readonly value?: readonly [number, string];
}

/** A PromQL answer of the HTTP API, warnings included (a failing remote read shows only there). */
export interface PromAnswer {
  readonly status: string;
  readonly data?: { readonly resultType: string; readonly result: readonly PromSeries[] };
  readonly warnings?: readonly string[];
  readonly error?: string;
}

/** Runs a PromQL query against a Prometheus' HTTP API (`path` is `query` or `query_range`). */
export async function promQuery(prometheus: PrometheusProcess, path: 'query' | 'query_range', params: Record<string, string>): Promise<PromAnswer> {
  const response = await fetch(`${prometheus.url}/api/v1/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params).toString(),
  });
  return (await response.json()) as PromAnswer;
}

/** A Prometheus API sample as [integer ms, value]; the API writes times as seconds with millisecond decimals. */
export function promSample(pair: readonly [number, string]): [number, number] {
  return [Math.round(pair[0] * 1000), Number(pair[1])];
}
