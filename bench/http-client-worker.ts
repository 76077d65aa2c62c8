// Owns the benchmark's client thread: posts prepared ingest bodies over HTTP from its own event loop, like an external client.
import { parentPort, workerData } from 'node:worker_threads';
import { benchClient } from './http-client.js';

/** What the client thread is given: where to post, with which token, and the bodies in order. */
export interface ClientJob {
  readonly url: string;
  readonly token: string;
  readonly path: string;
  readonly contentType: string;
  readonly clients: number;
  readonly bodies: readonly Uint8Array[];
}

/** What the client thread answers: seconds from first send to last acknowledgement, or the first failure. */
export type ClientReport = { readonly ok: true; readonly seconds: number } | { readonly ok: false; readonly message: string };

async function run(job: ClientJob): Promise<ClientReport> {
  const client = benchClient(job.url, job.token, job.clients);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < job.bodies.length) {
      const index = next++;
      const body = job.bodies[index] as Uint8Array;
      const status = await client.post(job.path, Buffer.from(body.buffer, body.byteOffset, body.byteLength), job.contentType);
      if (status !== 200) throw new Error(`batch ${index}: HTTP ${status}`);
    }
  };
  try {
    const started = performance.now();
    await Promise.all(Array.from({ length: job.clients }, worker));
    return { ok: true, seconds: (performance.now() - started) / 1000 };
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  } finally {
    client.close();
  }
}

if (parentPort !== null) parentPort.postMessage(await run(workerData as ClientJob));
