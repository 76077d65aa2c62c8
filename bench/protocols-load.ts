// Owns the protocols bench's load process: encodes the workload in one protocol, waits for "go", sends every batch, prints what it sent.
import { connect } from 'node:net';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { emitResult, reportProgress } from './child-io.js';
import { benchClient } from './http-client.js';
import { encodeProtocolBatches, type ProtocolFormat } from './protocols-bodies.js';
import { BATCH_POINTS, BENCH_TENANT, generateWorkload, standardSpec } from '../src/workload/standard-workload.js';

/** What the load process reports; for Graphite `seconds` is only the time to hand the bytes to the kernel (the server side times durability). */
export interface ProtocolLoadResult {
  readonly seconds: number;
  readonly batches: number;
  readonly bodyBytes: number;
  readonly points: number;
}

/** Where each HTTP format goes, with its content headers and the status that means durable. */
const ROUTES: Readonly<Record<Exclude<ProtocolFormat, 'graphite'>, { path: string; type: string; headers: Record<string, string>; ok: number }>> = {
  msgpack: { path: `/ingest/v2.0/${BENCH_TENANT}/ingest`, type: 'application/x-msgpack', headers: {}, ok: 200 },
  prometheus: { path: `/prometheus/${BENCH_TENANT}/api/v1/write`, type: 'application/x-protobuf', headers: { 'content-encoding': 'snappy', 'x-prometheus-remote-write-version': '0.1.0' }, ok: 204 },
  'otlp-protobuf': { path: `/otlp/${BENCH_TENANT}/v1/metrics`, type: 'application/x-protobuf', headers: {}, ok: 200 },
  'otlp-json': { path: `/otlp/${BENCH_TENANT}/v1/metrics`, type: 'application/json', headers: {}, ok: 200 },
};

const PROGRESS_EVERY_BATCHES = 16;

async function postAll(url: string, token: string, format: Exclude<ProtocolFormat, 'graphite'>, bodies: readonly Buffer[], clients: number): Promise<number> {
  const route = ROUTES[format];
  const client = benchClient(url, token, clients);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < bodies.length) {
      const index = next++;
      const status = await client.post(route.path, bodies[index] as Buffer, route.type, route.headers);
      if (status !== route.ok) throw new Error(`${format} batch ${index}: HTTP ${status}`);
      if (index % PROGRESS_EVERY_BATCHES === 0) reportProgress(`protocols ${format}`, index, bodies.length);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: clients }, worker));
  const seconds = (performance.now() - started) / 1000;
  client.close();
  return seconds;
}

/** Writes the bodies over `clients` connections, each its share in order, honouring backpressure. */
async function sendGraphite(port: number, bodies: readonly Buffer[], clients: number): Promise<number> {
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      const socket = connect({ host: '127.0.0.1', port });
      await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
      for (let i = c; i < bodies.length; i += clients) {
        if (!socket.write(bodies[i] as Buffer)) await new Promise((resolve) => socket.once('drain', resolve));
      }
      await new Promise<void>((resolve) => socket.end(resolve));
    }),
  );
  return (performance.now() - started) / 1000;
}

/** argv: url token format endMs clients graphitePort. */
async function main(): Promise<void> {
  const [url, token, format, endArg, clientsArg, portArg] = process.argv.slice(2) as [string, string, ProtocolFormat, string, string, string];
  const wl = generateWorkload(standardSpec('walk', Number(endArg)));
  const bodies = encodeProtocolBatches(wl, BATCH_POINTS, format);
  const clients = Number(clientsArg);
  process.stdout.write('ready\n');
  for await (const line of createInterface({ input: process.stdin })) if (line.trim() === 'go') break;
  const seconds = format === 'graphite' ? await sendGraphite(Number(portArg), bodies, clients) : await postAll(url, token, format, bodies, clients);
  const result: ProtocolLoadResult = { seconds, batches: bodies.length, bodyBytes: bodies.reduce((sum, b) => sum + b.length, 0), points: wl.length };
  emitResult(result);
  process.exit(0);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
