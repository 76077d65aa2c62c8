// Owns a real webhook receiver for the delivery tests: an HTTP server on 127.0.0.1 that records each POST and answers as the test scripts it.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the receiver got. */
export interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  readonly json: any;
}

/** How the receiver answers one request: a status (with an optional body and headers), or never ('hang'). */
export type Answer = number | { readonly status: number; readonly body?: string; readonly headers?: Record<string, string>; readonly delayMs?: number } | 'hang';

/** A running receiver. */
export interface WebhookReceiver {
  /** Base URL, e.g. http://127.0.0.1:41234 */
  readonly url: string;
  readonly requests: ReceivedRequest[];
  /** Most requests the receiver was answering at once. */
  readonly maxInFlight: () => number;
  /** Sets how the next requests are answered, in order; the last answer repeats. */
  script(...answers: Answer[]): void;
  close(): Promise<void>;
}

function parse(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

function answer(res: ServerResponse, how: Answer, done: () => void): void {
  if (how === 'hang') return;
  const spec = typeof how === 'number' ? { status: how } : how;
  const send = (): void => {
    done();
    if (res.destroyed) return;
    res.writeHead(spec.status, { 'content-type': 'text/plain', ...spec.headers });
    res.end(spec.body ?? '');
  };
  if (spec.delayMs === undefined) send();
  else setTimeout(send, spec.delayMs);
}

/** Starts a receiver on 127.0.0.1, port 0, answering 200 until scripted otherwise. */
export async function startReceiver(): Promise<WebhookReceiver> {
  const requests: ReceivedRequest[] = [];
  let answers: Answer[] = [200];
  let inFlight = 0;
  let maxInFlight = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, json: parse(body) });
      const how = answers.length > 1 ? (answers.shift() as Answer) : (answers[0] as Answer);
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      answer(res, how, () => (inFlight -= 1));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    maxInFlight: () => maxInFlight,
    script(...next) {
      answers = next.length === 0 ? [200] : next;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Polls `condition` every few milliseconds until it holds or `timeoutMs` passes (then fails with `what`). */
export async function eventually(what: string, condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
