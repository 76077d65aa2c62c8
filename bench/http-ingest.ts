// Owns the HTTP benchmark: ingest of the standard workload over HTTP (JSON and msgpack) and 288-point plot latency.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { pack } from 'msgpackr';
import { createServer } from '../src/http/server.js';
import { openIdentity } from '../src/identity/identity-service.js';
import { openStore } from '../src/index.js';
import { emitResult, intArg, reportProgress } from './child-io.js';
import { benchClient, type BenchClient } from './http-client.js';
import type { ClientJob, ClientReport } from './http-client-worker.js';
import { timeQueries, type LatencySummary } from './latency.js';
import { mulberry32, uniformInt } from './prng.js';
import { BATCH_POINTS, BENCH_TENANT, generateWorkload, metricName, standardSpec, type Workload } from './workload.js';

/** A wire format of the ingest API. */
export type IngestFormat = 'json' | 'msgpack';

/** Options of runHttpBench; every field has the standard value by default. */
export interface HttpBenchOptions {
  /** Reference "now" of the workload (default: the wall clock at the start). */
  readonly endMs?: number;
  readonly series?: number;
  readonly points?: number;
  readonly batchPoints?: number;
  /** Concurrent clients, each with its own connection. */
  readonly clients?: number;
  readonly formats?: readonly IngestFormat[];
  /** Rollup worker threads of the store (as on a 2-core production machine). */
  readonly workers?: number;
  /** Threads decoding ingest bodies beside the server's main thread (as `strata serve` on 2 cores). */
  readonly decodeThreads?: number;
}

/** One format's ingest measurement. */
export interface HttpIngestResult {
  readonly format: IngestFormat;
  readonly points: number;
  readonly batches: number;
  readonly bodyBytes: number;
  readonly seconds: number;
  readonly pointsPerSecond: number;
}

/** Everything runHttpBench measured, as plain numbers. */
export interface HttpBenchResult {
  readonly description: string;
  readonly clients: number;
  readonly batchPoints: number;
  readonly ingest: HttpIngestResult[];
  /** 24 h at MIN5 (288 values) over HTTP, after a flush, select average,min,max. */
  readonly plot288: LatencySummary & { readonly values: number };
}

/** ttlInSeconds every benchmark metric carries, as Blueflood clients send it. */
const TTL_SECONDS = 172_800;
const DAY_MS = 86_400_000;
/** Seed of the series the plot queries pick. */
const QUERY_SEED = 7;
const TYPES: Readonly<Record<IngestFormat, string>> = { json: 'application/json', msgpack: 'application/x-msgpack' };

/** Encodes the workload's batches as ingest bodies (before any clock starts). */
export function encodeBatches(wl: Workload, batchPoints: number, format: IngestFormat): Buffer[] {
  const names = Array.from({ length: wl.spec.series }, (_, s) => metricName(s));
  const bodies: Buffer[] = [];
  for (let start = 0; start < wl.length; start += batchPoints) {
    const end = Math.min(start + batchPoints, wl.length);
    const metrics = [];
    for (let i = start; i < end; i++) {
      metrics.push({ metricName: names[wl.seriesIndex[i] as number], metricValue: wl.values[i], collectionTime: wl.timestampsMs[i], ttlInSeconds: TTL_SECONDS });
    }
    bodies.push(format === 'json' ? Buffer.from(JSON.stringify(metrics)) : pack(metrics));
  }
  return bodies;
}

/**
 * Posts every body, `clients` at a time in batch order, from a client thread (so the clients' own
 * work does not share the server's event loop, as with external clients), and returns the seconds
 * from first send to last acknowledgement.
 */
async function postAll(url: string, token: string, bodies: readonly Buffer[], format: IngestFormat, clients: number): Promise<number> {
  reportProgress(`http ingest ${format}`, 0, bodies.length);
  const job: ClientJob = { url, token, path: `/ingest/v2.0/${BENCH_TENANT}/ingest`, contentType: TYPES[format], clients, bodies };
  const worker = new Worker(new URL('./http-client-worker.js', import.meta.url), { workerData: job });
  const report = await new Promise<ClientReport>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  await worker.terminate();
  if (!report.ok) throw new Error(report.message);
  reportProgress(`http ingest ${format}`, bodies.length, bodies.length);
  return report.seconds;
}

interface Running {
  readonly url: string;
  readonly token: string;
  readonly client: BenchClient;
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** A fresh store, identity and server on an ephemeral port, with a token for the bench tenant. */
async function startServer(workers: number, decodeThreads: number, clients: number): Promise<Running> {
  const dir = mkdtempSync(join(tmpdir(), 'strata-http-bench-'));
  const store = await openStore({ dir, workers });
  const identity = openIdentity({ dir, clock: { now: () => Date.now() } });
  const apiKey = 'bench-api-key-0123456789';
  identity.createUser({ username: 'bench', tenant: BENCH_TENANT, role: 'admin', apiKey });
  const app = await createServer({ store, identity, config: { decodeThreads, admission: { ingest: { concurrency: clients, queueMax: clients } } } });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const url = app.strata.publicUrl();
  const token = identity.authenticate('bench', apiKey).token;
  const client = benchClient(url, token, clients);
  return {
    url,
    token,
    client,
    flush: () => store.flush(),
    async close() {
      client.close();
      await app.close();
      await store.close();
      identity.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function measurePlot(client: BenchClient, wl: Workload): Promise<LatencySummary & { values: number }> {
  const pick = mulberry32(QUERY_SEED);
  const from = wl.dataEndMs - DAY_MS;
  let values = 0;
  const { summary } = await timeQueries(async () => {
    const path = `/metrics/v2.0/${BENCH_TENANT}/views/${metricName(uniformInt(pick, wl.spec.series))}?from=${from}&to=${wl.dataEndMs}&resolution=MIN5&select=average,min,max`;
    const { status, text } = await client.get(path);
    if (status !== 200) throw new Error(`plot: HTTP ${status} ${text}`);
    values = (JSON.parse(text) as { values: unknown[] }).values.length;
  });
  return { ...summary, values };
}

/** Runs the HTTP benchmark on fresh temporary stores and returns plain numbers. */
export async function runHttpBench(options: HttpBenchOptions = {}): Promise<HttpBenchResult> {
  const endMs = options.endMs ?? Date.now();
  const clients = options.clients ?? 2;
  const batchPoints = options.batchPoints ?? BATCH_POINTS;
  const formats = options.formats ?? ['json', 'msgpack'];
  const spec = { ...standardSpec('walk', endMs), ...(options.series ? { series: options.series } : {}), ...(options.points ? { points: options.points } : {}) };
  const wl = generateWorkload(spec);
  const ingest: HttpIngestResult[] = [];
  let plot288: (LatencySummary & { values: number }) | undefined;
  for (const format of formats) {
    const bodies = encodeBatches(wl, batchPoints, format);
    const server = await startServer(options.workers ?? 1, options.decodeThreads ?? 1, clients);
    try {
      const seconds = await postAll(server.url, server.token, bodies, format, clients);
      const bodyBytes = bodies.reduce((sum, body) => sum + body.length, 0);
      ingest.push({ format, points: wl.length, batches: bodies.length, bodyBytes, seconds, pointsPerSecond: wl.length / seconds });
      if (format === formats[formats.length - 1]) {
        reportProgress('http plot', 0, 1);
        await server.flush();
        plot288 = await measurePlot(server.client, wl);
        reportProgress('http plot', 1, 1);
      }
    } finally {
      await server.close();
    }
  }
  return { description: wl.description, clients, batchPoints, ingest, plot288: plot288 as LatencySummary & { values: number } };
}

async function main(): Promise<void> {
  emitResult(await runHttpBench({ endMs: intArg(0, 'END_MS') }));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
