// Owns the protocols bench: the standard workload into one server per run over msgpack, Prometheus remote write, OTLP (protobuf, JSON) and Graphite; points per second side by side.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createServer } from '../src/http/server.js';
import { openIdentity } from '../src/identity/identity-service.js';
import { openStore } from '../src/index.js';
import { GraphiteListener } from '../src/protocols/graphite-listener.js';
import type { Store } from '../src/store-types.js';
import { emitResult, intArg, reportProgress } from './child-io.js';
import { PROTOCOL_FORMATS, type ProtocolFormat } from './protocols-bodies.js';
import type { ProtocolLoadResult } from './protocols-load.js';
import { spreadOf } from './spread.js';
import { BATCH_POINTS, BENCH_TENANT, generateWorkload, standardSpec } from '../src/workload/standard-workload.js';

/** One format's measurement. */
export interface ProtocolIngestResult {
  readonly format: ProtocolFormat;
  readonly points: number;
  readonly batches: number;
  /** Bytes of every body as sent (compressed where the protocol compresses). */
  readonly bodyBytes: number;
  /** Median over the runs, from "go" until every point was durable. */
  readonly pointsPerSecond: number;
  readonly pointsPerSecondRuns: readonly number[];
}

/** What the protocols bench measured. */
export interface ProtocolsBenchResult {
  readonly description: string;
  readonly clients: number;
  readonly batchPoints: number;
  readonly ingest: readonly ProtocolIngestResult[];
}

/** Runs per format, each on a fresh server; the median stands. */
const RUNS = 3;
const CLIENTS = 2;
/** How often the Graphite run checks whether every point is durable. */
const GRAPHITE_POLL_MS = 5;
const LOAD_SCRIPT = join(fileURLToPath(import.meta.url), '..', 'protocols-load.js');
const SILENT = { info: () => undefined, warn: () => undefined, error: () => undefined };

interface Running {
  readonly url: string;
  readonly token: string;
  readonly graphitePort: number;
  readonly store: Store;
  close(): Promise<void>;
}

async function startServer(): Promise<Running> {
  const dir = mkdtempSync(join(tmpdir(), 'strata-protocols-bench-'));
  const store = await openStore({ dir, workers: 1 });
  const clock = { now: () => Date.now() };
  const identity = openIdentity({ dir, clock });
  const apiKey = 'bench-api-key-0123456789';
  identity.createUser({ username: 'bench', tenant: BENCH_TENANT, role: 'admin', apiKey });
  const app = await createServer({ store, identity, config: { admission: { ingest: { concurrency: CLIENTS, queueMax: CLIENTS } } } });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const graphite = new GraphiteListener({ store, tenant: BENCH_TENANT, host: '127.0.0.1', port: 0, clock, logger: SILENT });
  const graphitePort = await graphite.listen();
  return {
    url: app.strata.publicUrl(),
    token: identity.authenticate('bench', apiKey).token,
    graphitePort,
    store,
    async close() {
      await graphite.close();
      await app.close();
      await store.close();
      identity.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Resolves with the seconds from `startedMs` until the store has accepted `points` points. */
async function untilAccepted(store: Store, points: number, startedMs: number): Promise<number> {
  while (store.stats().pointsAccepted < points) await new Promise((resolve) => setTimeout(resolve, GRAPHITE_POLL_MS));
  return (performance.now() - startedMs) / 1000;
}

async function runLoad(server: Running, format: ProtocolFormat, endMs: number): Promise<ProtocolLoadResult> {
  const args = [LOAD_SCRIPT, server.url, server.token, format, String(endMs), String(CLIENTS), String(server.graphitePort)];
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  let result: ProtocolLoadResult | undefined;
  let startedMs = 0;
  for await (const line of createInterface({ input: child.stdout })) {
    if (line === 'ready') {
      startedMs = performance.now();
      child.stdin.write('go\n');
    } else if (line.startsWith('{')) {
      result = JSON.parse(line) as ProtocolLoadResult;
    }
  }
  if (result === undefined) throw new Error(`the ${format} load process printed no result`);
  // Graphite has no acknowledgement: its run ends when the server has made every point durable.
  if (format === 'graphite') return { ...result, seconds: await untilAccepted(server.store, result.points, startedMs) };
  return result;
}

/** Runs every format RUNS times on fresh servers. */
export async function runProtocolsBench(endMs: number, formats: readonly ProtocolFormat[] = PROTOCOL_FORMATS): Promise<ProtocolsBenchResult> {
  const wl = generateWorkload(standardSpec('walk', endMs));
  const ingest: ProtocolIngestResult[] = [];
  for (const format of formats) {
    const loads: ProtocolLoadResult[] = [];
    for (let run = 0; run < RUNS; run++) {
      reportProgress(`protocols ${format}`, run, RUNS);
      const server = await startServer();
      try {
        loads.push(await runLoad(server, format, endMs));
      } finally {
        await server.close();
      }
    }
    reportProgress(`protocols ${format}`, RUNS, RUNS);
    const rates = spreadOf(loads.map((l) => l.points / l.seconds));
    const first = loads[0] as ProtocolLoadResult;
    ingest.push({ format, points: first.points, batches: first.batches, bodyBytes: first.bodyBytes, pointsPerSecond: rates.median, pointsPerSecondRuns: rates.runs });
  }
  return { description: `${wl.description}; ${CLIENTS} clients; load client in its own process`, clients: CLIENTS, batchPoints: BATCH_POINTS, ingest };
}

async function main(): Promise<void> {
  emitResult(await runProtocolsBench(intArg(0, 'END_MS')));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
