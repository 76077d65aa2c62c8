// Owns the HTTP benchmark: ingest of the standard workload over HTTP (JSON and msgpack) and 288-point plot latency.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { pack } from 'msgpackr';
import { createServer } from '../src/http/server.js';
import { openIdentity } from '../src/identity/identity-service.js';
import { openStore } from '../src/index.js';
import { emitResult, intArg, reportProgress } from './child-io.js';
import type { LoadResult } from './http-load.js';
import { benchClient, type BenchClient } from './http-client.js';
import { timeQueries, type LatencySummary } from './latency.js';
import { mulberry32, uniformInt } from '../src/workload/prng.js';
import { spreadOf } from './spread.js';
import { BATCH_POINTS, BENCH_TENANT, generateWorkload, metricName, standardSpec, type Workload } from '../src/workload/standard-workload.js';

/** A wire format of the ingest API. */
export type IngestFormat = 'json' | 'msgpack';

/** Options of runHttpBench; every field has the standard value by default. */
export interface HttpBenchOptions {
  /** Reference "now" of the workload (default: the wall clock at the start). */
  readonly endMs?: number;
  /** Concurrent clients, each with its own keep-alive connection. */
  readonly clients?: number;
  readonly formats?: readonly IngestFormat[];
  /** Rollup worker threads of the store (as on a 2-core production machine). */
  readonly workers?: number;
  /** Runs per format, each on a fresh server (default HTTP_RUNS). */
  readonly runs?: number;
}

/** One format's ingest measurement. */
export interface HttpIngestResult {
  readonly format: IngestFormat;
  readonly points: number;
  readonly batches: number;
  readonly bodyBytes: number;
  readonly seconds: number;
  /** Median over the runs. */
  readonly pointsPerSecond: number;
  /** Every run's rate, in run order. */
  readonly pointsPerSecondRuns: readonly number[];
}

/** Everything runHttpBench measured, as plain numbers. */
export interface HttpBenchResult {
  readonly description: string;
  readonly clients: number;
  readonly batchPoints: number;
  readonly ingest: HttpIngestResult[];
  /** 24 h at MIN5 (288 values) of a random series over HTTP, after a flush, select average,min,max. */
  readonly plot288: LatencySummary & { readonly values: number };
}

/** Runs per format: HTTP rates on this machine vary by a third from run to run. */
const HTTP_RUNS = 3;
/** The compiled load client, next to this module. */
const LOAD_SCRIPT = join(fileURLToPath(import.meta.url), '..', 'http-load.js');
/** ttlInSeconds every benchmark metric carries, as Blueflood clients send it. */
const TTL_SECONDS = 172_800;
const DAY_MS = 86_400_000;
/** Seed of the series the plot queries pick. */
const QUERY_SEED = 7;
/** Progress is reported every this many batches. */
const PROGRESS_EVERY_BATCHES = 16;
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
    // Copy msgpackr's output: it may be a view on the encoder's reused buffer.
    bodies.push(format === 'json' ? Buffer.from(JSON.stringify(metrics)) : Buffer.from(pack(metrics)));
  }
  return bodies;
}

/**
 * Posts every body in batch order with `clients` requests in flight, and returns the seconds from
 * the first send to the last acknowledgement. Runs in the load process (bench/http-load.ts).
 */
export async function postAll(client: BenchClient, bodies: readonly Buffer[], format: IngestFormat, clients: number): Promise<number> {
  const path = `/ingest/v2.0/${BENCH_TENANT}/ingest`;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < bodies.length) {
      const index = next++;
      const status = await client.post(path, bodies[index] as Buffer, TYPES[format]);
      if (status !== 200) throw new Error(`batch ${index}: HTTP ${status}`);
      if (index % PROGRESS_EVERY_BATCHES === 0) reportProgress(`http ingest ${format}`, index, bodies.length);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: clients }, worker));
  const seconds = (performance.now() - started) / 1000;
  reportProgress(`http ingest ${format}`, bodies.length, bodies.length);
  return seconds;
}

interface Running {
  readonly client: BenchClient;
  readonly url: string;
  readonly token: string;
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** A fresh store, identity and server on an ephemeral port, and a client holding a token for the bench tenant. */
async function startServer(workers: number, clients: number): Promise<Running> {
  const dir = mkdtempSync(join(tmpdir(), 'strata-http-bench-'));
  const store = await openStore({ dir, workers });
  const identity = openIdentity({ dir, clock: { now: () => Date.now() } });
  const apiKey = 'bench-api-key-0123456789';
  identity.createUser({ username: 'bench', tenant: BENCH_TENANT, role: 'admin', apiKey });
  const app = await createServer({ store, identity, config: { admission: { ingest: { concurrency: clients, queueMax: clients } } } });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const token = identity.authenticate('bench', apiKey).token;
  const client = benchClient(app.strata.publicUrl(), token, clients);
  return {
    client,
    url: app.strata.publicUrl(),
    token,
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
    const metric = metricName(uniformInt(pick, wl.spec.series));
    const { status, text } = await client.get(`/metrics/v2.0/${BENCH_TENANT}/views/${metric}?from=${from}&to=${wl.dataEndMs}&resolution=MIN5&select=average,min,max`);
    if (status !== 200) throw new Error(`plot: HTTP ${status} ${text}`);
    values = (JSON.parse(text) as { values: unknown[] }).values.length;
  });
  return { ...summary, values };
}

/** Starts the load process, waits until its bodies are encoded, lets it go and returns what it measured. */
async function runLoad(url: string, token: string, format: IngestFormat, endMs: number, clients: number): Promise<LoadResult> {
  const child = spawn(process.execPath, [LOAD_SCRIPT, url, token, format, String(endMs), String(clients)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  let result: LoadResult | undefined;
  for await (const line of lines) {
    if (line === 'ready') {
      reportProgress(`http ingest ${format}`, 0, 1);
      child.stdin.write('go\n');
    } else if (line.startsWith('{')) {
      result = JSON.parse(line) as LoadResult;
    }
  }
  if (result === undefined) throw new Error(`the ${format} load process printed no result`);
  reportProgress(`http ingest ${format}`, 1, 1);
  return result;
}

/** Runs the HTTP benchmark on fresh temporary stores (one per format) and returns plain numbers. */
export async function runHttpBench(options: HttpBenchOptions = {}): Promise<HttpBenchResult> {
  const endMs = options.endMs ?? Date.now();
  const clients = options.clients ?? 2;
  const formats = options.formats ?? ['json', 'msgpack'];
  const wl = generateWorkload(standardSpec('walk', endMs));
  const ingest: HttpIngestResult[] = [];
  let plot288: (LatencySummary & { values: number }) | undefined;
  const runs = options.runs ?? HTTP_RUNS;
  for (const format of formats) {
    const loads: LoadResult[] = [];
    for (let run = 0; run < runs; run++) {
      const server = await startServer(options.workers ?? 1, clients);
      try {
        loads.push(await runLoad(server.url, server.token, format, endMs, clients));
        if (format === formats[formats.length - 1] && run === runs - 1) {
          reportProgress('http plot', 0, 1);
          await server.flush();
          plot288 = await measurePlot(server.client, wl);
          reportProgress('http plot', 1, 1);
        }
      } finally {
        await server.close();
      }
    }
    // The run with the median rate stands for the format; the spread shows how noisy it was.
    const rates = spreadOf(loads.map((l) => l.points / l.seconds));
    const median = loads.find((l) => l.points / l.seconds === rates.median) ?? (loads[0] as LoadResult);
    ingest.push({ format, points: median.points, batches: median.batches, bodyBytes: median.bodyBytes, seconds: median.seconds, pointsPerSecond: rates.median, pointsPerSecondRuns: rates.runs });
  }
  return { description: `${wl.description}; load client in its own process`, clients, batchPoints: BATCH_POINTS, ingest, plot288: plot288 as LatencySummary & { values: number } };
}

async function main(): Promise<void> {
  emitResult(await runHttpBench({ endMs: intArg(0, 'END_MS') }));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
