// Owns the HTTP load client process: encodes the workload, waits for "go", posts every batch, prints the seconds.
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { emitResult } from './child-io.js';
import { benchClient } from './http-client.js';
import { encodeBatches, postAll, type IngestFormat } from './http-ingest.js';
import { BATCH_POINTS, generateWorkload, standardSpec } from '../src/workload/standard-workload.js';

/** What the client process reports: the seconds from its first send to its last acknowledgement. */
export interface LoadResult {
  readonly seconds: number;
  readonly batches: number;
  readonly bodyBytes: number;
  readonly points: number;
}

/**
 * Runs in its own process, like the peers' load clients: the server's event loop then spends its
 * time on the server, not on writing request bytes. Bodies are encoded before "ready" is printed.
 * argv: url token format endMs clients.
 */
async function main(): Promise<void> {
  const [url, token, format, endArg, clientsArg] = process.argv.slice(2) as [string, string, IngestFormat, string, string];
  const wl = generateWorkload(standardSpec('walk', Number(endArg)));
  const bodies = encodeBatches(wl, BATCH_POINTS, format);
  const clients = Number(clientsArg);
  const client = benchClient(url, token, clients);
  process.stdout.write('ready\n');
  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) if (line.trim() === 'go') break;
  const seconds = await postAll(client, bodies, format, clients);
  client.close();
  const result: LoadResult = { seconds, batches: bodies.length, bodyBytes: bodies.reduce((sum, b) => sum + b.length, 0), points: wl.length };
  emitResult(result);
  process.exit(0);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
